package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** srd-pingpong: ud-pingpong's options and defaults over an SRD QP, runs as two threads of this JVM. */
class SrdPingpongCommandTest {
    @Test
    void shouldHaveUdPingpongsOptionsAndDefaults() {
        SrdPingpongCommand c = new SrdPingpongCommand();
        new CommandLine(c).parseArgs("-p", "9999", "-s", "8", "-r", "10", "-n", "5", "-e", "-c", "peer");
        assertThat(List.of(c.port, c.size, c.rxDepth, c.iters)).containsExactly(9999, 8, 10, 5);
        assertThat(c.useEvents && c.validate).isTrue();
        SrdPingpongCommand d = new SrdPingpongCommand();
        new CommandLine(d).parseArgs();
        assertThat(List.of(d.port, d.size, d.rxDepth, d.iters)).containsExactly(18515, 1024, 500, 1000);
        assertThat(d.grhSize()).as("SRD receive buffers have no GRH area").isZero();
    }

    @Test
    void shouldPingPongAtThePortMtuWithChk() throws Exception {
        List<List<String>> out = PingpongHarness.inProcess(SrdPingpongCommand::new, "-c", "-s", "4096", "-n", "50");
        PingpongHarness.assertPaired(out, 1, ':', 4096, 50);
    }

    @Test
    void shouldPingPongSleepingOnCqEventsWithFewReceives() throws Exception {
        List<List<String>> out = PingpongHarness.inProcess(SrdPingpongCommand::new, "-e", "-c", "-s", "8", "-r", "3",
            "-n", "30");
        PingpongHarness.assertPaired(out, 1, ':', 8, 30);
    }

    @Test
    void shouldRefuseAMessageLargerThanThePortMtu() throws Exception {
        int udp = FreePorts.udp(PingpongHarness.SERVER_IP);
        PingpongHarness.Side r = PingpongHarness.execute(new SrdPingpongCommand(), List.of("-s", "4097",
            "--ip", PingpongHarness.SERVER_IP, "--udp-port", Integer.toString(udp), "-p", Integer.toString(FreePorts.tcp())));
        assertThat(r.rc()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("Requested size larger than port MTU (4096)\n");
    }
}
