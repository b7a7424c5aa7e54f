package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** srq-pingpong's options, defaults and checks, and runs of server and client as two threads of this JVM. */
class SrqPingpongCommandTest {
    private static SrqPingpongCommand parse(String... args) {
        SrqPingpongCommand cmd = new SrqPingpongCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    @Test
    void shouldHaveIbvSrqPingpongDefaults() {
        SrqPingpongCommand c = parse();
        assertThat(List.of(c.port, c.ibPort, c.size, c.mtu, c.numQp, c.rxDepth, c.iters, c.sl))
            .containsExactly(18515, 1, 4096, 1024, 16, 500, 1000, 0);
        assertThat(c.useEvents || c.validate || c.odp).isFalse();
        assertThat(c.gidx).as("jrxe's documented deviation: RoCE needs a GID").isEqualTo(1);
        assertThat(c.servername).isNull();
    }

    @Test
    void shouldTakeIbvSrqPingpongShortAndLongOptions() {
        SrqPingpongCommand c = parse("-p", "9999", "-d", "jrxe7", "-i", "1", "-s", "8", "-m", "4096", "-q", "4",
            "-r", "10", "-n", "5", "-l", "3", "-e", "-o", "-g", "1", "-c", "peer");
        assertThat(List.of(c.port, c.size, c.mtu, c.numQp, c.rxDepth, c.iters, c.sl, c.gidx))
            .containsExactly(9999, 8, 4096, 4, 10, 5, 3, 1);
        assertThat(c.useEvents && c.odp && c.validate).isTrue();
        assertThat(c.servername).isEqualTo("peer");
        SrqPingpongCommand l = parse("--port=1", "--ib-dev=jrxe3", "--ib-port=1", "--size=1", "--mtu=256", "--num-qp=2",
            "--rx-depth=2", "--iters=3", "--sl=1", "--events", "--odp", "--gid-idx=1", "--chk");
        assertThat(l.port + l.size + l.numQp + l.rxDepth + l.iters).isEqualTo(1 + 1 + 2 + 2 + 3);
    }

    @Test
    void shouldRequireAReceivePerQp() {
        PingpongHarness.Side r = PingpongHarness.execute(new SrqPingpongCommand(), List.of("-q", "20", "-r", "10"));
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err()).startsWith("rx_depth 10 is too small for 20 QPs -- must have at least one receive per QP.\n");
    }

    @Test
    void shouldRefuseAsManyQpsAsItsMessages() {
        PingpongHarness.Side r = PingpongHarness.execute(new SrqPingpongCommand(), List.of("-q", "256"));
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err()).startsWith("num_qp 256 must be less than 255\n");
    }

    @Test
    void shouldRejectAnEmptyMessageWithUsage() {
        PingpongHarness.Side r = PingpongHarness.execute(new SrqPingpongCommand(), List.of("-s", "0"));
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err()).contains("'--size': '0' is not a size of 1 byte or more");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void shouldPingPongOverSixteenQpsAndPrintALinePerQp() throws Exception {
        List<List<String>> out = PingpongHarness.inProcess(SrqPingpongCommand::new, "-n", "50");
        PingpongHarness.assertPaired(out, 16, ',', 4096, 50);
    }

    @Test
    void shouldFindNoInvalidDataWithChkAndEventsOnFewReceives() throws Exception {
        // four QPs on an SRQ of eight receives: refills after every few completions
        List<List<String>> out = PingpongHarness.inProcess(SrqPingpongCommand::new, "-c", "-e", "-q", "4", "-r", "8",
            "-s", "8", "-n", "40");
        PingpongHarness.assertPaired(out, 4, ',', 8, 40);
    }
}
