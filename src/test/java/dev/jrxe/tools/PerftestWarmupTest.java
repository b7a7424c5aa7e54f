package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.internal.Internals;
import dev.jrxe.transport.TransportCounters;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import org.junit.jupiter.api.Test;

/**
 * perftest's untimed warm-up (issue 15): the test's own loops run between two QP sets of the
 * tool's device, through its own socket, for every test, and leave nothing behind.
 */
class PerftestWarmupTest {
    /** A run of {@code test} as the command would make it (RC, 1 QP, MTU 1024). */
    private static PerftestRun.Params params(PerftestTest test, int size, int iters) {
        int rx = test.verb == PerftestTest.Verb.SEND ? Math.min(test.defaultRxDepth, iters) : 1;
        return new PerftestRun.Params(test, size, iters, Math.min(test.defaultTxDepth, iters), rx, 1, 1, false, 3, 1,
            false, 14, 4096, 64, 1);
    }

    @Test
    void shouldRunEveryTestsLoopsThroughTheDevicesOwnSocketAndLeaveNothingBehind() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            int qpsBefore = dev.liveQps();
            for (PerftestTest t : PerftestTest.values()) {
                long packetsBefore = Internals.link(dev).counters().rxPackets();
                long recvsBefore = Internals.transportCounters(dev).get(TransportCounters.RDMA_RECVS);
                // a budget of one episode: the loop checks it after each
                PerftestWarmup.Result r = PerftestWarmup.run(dev, params(t, t.defaultSize, 300), false, 1);
                assertThat(r.failure()).as("%s", t).isNull();
                assertThat(r.episodes()).as("%s", t).isEqualTo(1);
                assertThat(dev.liveQps()).as("%s", t).isEqualTo(qpsBefore);
                // the messages went out of the device's socket and back in
                assertThat(Internals.link(dev).counters().rxPackets() - packetsBefore).as("%s", t)
                    .isGreaterThanOrEqualTo(300);
                if (t.verb == PerftestTest.Verb.SEND) {
                    assertThat(Internals.transportCounters(dev).get(TransportCounters.RDMA_RECVS) - recvsBefore)
                        .as("%s", t).isGreaterThanOrEqualTo(300);
                }
            }
            // both sides post at once (-b)
            PerftestWarmup.Result b = PerftestWarmup.run(dev, params(PerftestTest.SEND_BW, 4096, 300), true, 1);
            assertThat(b.failure()).isNull();
            assertThat(b.episodes()).isEqualTo(1);
            assertThat(dev.liveQps()).isEqualTo(qpsBefore);
        }
    }

    @Test
    void shouldStopAtItsBudgetOrOnceTheJitIsQuiet() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            long budget = 2_000_000_000L;
            PerftestWarmup.Result r = PerftestWarmup.run(dev, params(PerftestTest.WRITE_BW, 4096, 5000), false, budget);
            assertThat(r.failure()).isNull();
            if (!r.quiet()) {
                assertThat(r.nanos()).isGreaterThanOrEqualTo(budget);
            } else {
                // quiet counts only after enough messages for the JIT's last tier
                assertThat((long) r.episodes() * 2_000).isGreaterThanOrEqualTo(PerftestWarmup.MIN_MESSAGES);
            }
        }
    }

    @Test
    void shouldWarmUpBothSidesBeforeTheExchangeAsAUserRunsTheTool() throws Exception {
        // the server warms up while it listens (the client waits in the backlog), the client
        // before it connects; then the run goes on as without it, every byte checked
        java.util.List<java.util.List<String>> write = PerftestPair.runWithWarmup("perftest write-bw", "-n", "300",
            "--check");
        assertThat(write.get(0)).as("the WRITEs landed in the server's memory").anyMatch(l -> l.startsWith(" data check: "));
        assertThat(PerftestPair.row(write.get(1), " 65536      300 ")).isNotNull();
        java.util.List<java.util.List<String>> send = PerftestPair.runWithWarmup("ib_send_lat", "-n", "300", "--check");
        for (java.util.List<String> side : send) {
            assertThat(side).as("each side received the other's messages").anyMatch(l -> l.startsWith(" data check: "));
        }
    }

    @Test
    void shouldBeSkippedWithNoWarmup() {
        PerftestCommand c = new PerftestCommand(PerftestTest.WRITE_BW);
        new picocli.CommandLine(c).parseArgs("--no-warmup");
        assertThat(c.noWarmup).isTrue();
        PerftestCommand d = new PerftestCommand(PerftestTest.WRITE_BW);
        new picocli.CommandLine(d).parseArgs();
        assertThat(d.noWarmup).as("the warm-up is the default").isFalse();
    }
}
