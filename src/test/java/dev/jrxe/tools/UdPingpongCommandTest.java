package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** ud-pingpong's options and defaults, and runs of server and client as two threads of this JVM. */
class UdPingpongCommandTest {
    private static UdPingpongCommand parse(String... args) {
        UdPingpongCommand cmd = new UdPingpongCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    @Test
    void shouldHaveIbvUdPingpongDefaults() {
        UdPingpongCommand c = parse();
        assertThat(c.port).isEqualTo(18515);
        assertThat(c.ibPort).isEqualTo(1);
        assertThat(c.size).as("what ibv_ud_pingpong sends; its help says 2048").isEqualTo(1024);
        assertThat(c.rxDepth).isEqualTo(500);
        assertThat(c.iters).isEqualTo(1000);
        assertThat(c.sl).isZero();
        assertThat(c.useEvents || c.validate).isFalse();
        assertThat(c.gidx).as("jrxe's documented deviation: RoCE needs a GID").isEqualTo(1);
        assertThat(c.servername).isNull();
        assertThat(UdPingpongCommand.QKEY).isEqualTo(0x11111111);
    }

    @Test
    void shouldTakeIbvUdPingpongShortAndLongOptions() {
        UdPingpongCommand c = parse("-p", "9999", "-d", "jrxe7", "-i", "1", "-s", "8", "-r", "10", "-n", "5", "-l", "3",
            "-e", "-g", "1", "-c", "peer");
        assertThat(List.of(c.port, c.size, c.rxDepth, c.iters, c.sl, c.gidx)).containsExactly(9999, 8, 10, 5, 3, 1);
        assertThat(c.ibDev).isEqualTo("jrxe7");
        assertThat(c.useEvents && c.validate).isTrue();
        assertThat(c.servername).isEqualTo("peer");
        UdPingpongCommand l = parse("--port=1", "--ib-dev=jrxe3", "--ib-port=1", "--size=1", "--rx-depth=2", "--iters=3",
            "--sl=1", "--events", "--gid-idx=1", "--chk");
        assertThat(l.port + l.size + l.rxDepth + l.iters).isEqualTo(1 + 1 + 2 + 3);
        assertThat(l.useEvents && l.validate).isTrue();
    }

    @Test
    void shouldHaveNoPathMtuOption() {
        PingpongHarness.Side r = PingpongHarness.execute(new UdPingpongCommand(), List.of("-m", "1024"));
        assertThat(r.rc()).isNotZero();
        assertThat(r.err()).contains("Unknown option");
    }

    @Test
    void shouldRefuseAMessageLargerThanThePortMtu() throws Exception {
        int udp = FreePorts.udp(PingpongHarness.SERVER_IP);
        PingpongHarness.Side r = PingpongHarness.execute(new UdPingpongCommand(), List.of("-s", "4097",
            "--ip", PingpongHarness.SERVER_IP, "--udp-port", Integer.toString(udp), "-p", Integer.toString(FreePorts.tcp())));
        assertThat(r.rc()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("Requested size larger than port MTU (4096)\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void shouldPingPongAndPrintIbvUdPingpongsLines() throws Exception {
        List<List<String>> out = PingpongHarness.inProcess(UdPingpongCommand::new, "-n", "20");
        PingpongHarness.assertPaired(out, 1, ':', 1024, 20);
    }

    @Test
    void shouldFindNoInvalidDataWithChkAtThePortMtu() throws Exception {
        // a full-MTU datagram, payload after the 40-byte GRH area of the receive buffer
        List<List<String>> out = PingpongHarness.inProcess(UdPingpongCommand::new, "-c", "-s", "4096", "-n", "20");
        PingpongHarness.assertPaired(out, 1, ':', 4096, 20);
    }

    @Test
    void shouldPingPongSleepingOnCqEventsWithFewReceives() throws Exception {
        List<List<String>> out = PingpongHarness.inProcess(UdPingpongCommand::new, "-e", "-c", "-s", "8", "-r", "3",
            "-n", "30");
        PingpongHarness.assertPaired(out, 1, ':', 8, 30);
    }
}
