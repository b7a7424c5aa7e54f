package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpType;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** uc-pingpong's options and defaults, and runs of server and client as two threads of this JVM. */
class UcPingpongCommandTest {
    private static UcPingpongCommand parse(String... args) {
        UcPingpongCommand cmd = new UcPingpongCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    @Test
    void shouldHaveIbvUcPingpongDefaults() {
        UcPingpongCommand c = parse();
        assertThat(c.qpType()).isEqualTo(QpType.UC);
        assertThat(List.of(c.port, c.ibPort, c.size, c.mtu, c.rxDepth, c.iters, c.sl))
            .containsExactly(18515, 1, 4096, 1024, 500, 1000, 0);
        assertThat(c.useEvents || c.validate).isFalse();
        assertThat(c.gidx).as("jrxe's documented deviation: RoCE needs a GID").isEqualTo(1);
        assertThat(c.servername).isNull();
    }

    @Test
    void shouldTakeIbvUcPingpongShortAndLongOptions() {
        UcPingpongCommand c = parse("-p", "9999", "-d", "jrxe7", "-i", "1", "-s", "8", "-m", "4096", "-r", "10",
            "-n", "5", "-l", "3", "-e", "-g", "1", "-c", "peer");
        assertThat(List.of(c.port, c.size, c.mtu, c.rxDepth, c.iters, c.sl, c.gidx))
            .containsExactly(9999, 8, 4096, 10, 5, 3, 1);
        assertThat(c.useEvents && c.validate).isTrue();
        assertThat(c.servername).isEqualTo("peer");
        UcPingpongCommand l = parse("--port=1", "--ib-dev=jrxe3", "--ib-port=1", "--size=1", "--mtu=256", "--rx-depth=2",
            "--iters=3", "--sl=1", "--events", "--gid-idx=1", "--chk");
        assertThat(l.port + l.size + l.rxDepth + l.iters).isEqualTo(1 + 1 + 2 + 3);
        assertThat(l.mtu).isEqualTo(256);
    }

    @Test
    void shouldHaveNoneOfRcPingpongsExtras() {
        for (String rcOnly : List.of("-o", "-O", "-P", "-t", "-N")) {
            PingpongHarness.Side r = PingpongHarness.execute(new UcPingpongCommand(), List.of(rcOnly));
            assertThat(r.rc()).as(rcOnly).isNotZero();
            assertThat(r.err()).as(rcOnly).contains("Unknown option");
        }
    }

    @Test
    void shouldRejectAnInvalidMtuWithUsage() {
        PingpongHarness.Side r = PingpongHarness.execute(new UcPingpongCommand(), List.of("-m", "1000"));
        // a usage error in one line (issue 17), where uc_pingpong prints its usage
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err()).contains("'--mtu': 1000 is not an MTU");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void shouldPingPongAndPrintIbvUcPingpongsLines() throws Exception {
        List<List<String>> out = PingpongHarness.inProcess(UcPingpongCommand::new, "-n", "20");
        PingpongHarness.assertPaired(out, 1, ',', 4096, 20);
    }

    @Test
    void shouldFindNoInvalidDataWithChkOverSeveralPagesAndPackets() throws Exception {
        // 20000 bytes: five pages to mark, twenty UC packets at MTU 1024
        List<List<String>> out = PingpongHarness.inProcess(UcPingpongCommand::new, "-c", "-s", "20000", "-n", "20");
        PingpongHarness.assertPaired(out, 1, ',', 20000, 20);
    }
}
