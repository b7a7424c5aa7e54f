package dev.jrxe.cm;

import dev.jrxe.internal.Internals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The CM under the link's fault injection (MADs lost and duplicated both ways) still connects and
 * disconnects cleanly, by retransmission and idempotent answers to duplicates; and 1,000
 * connect/transfer/disconnect cycles leave no QP, region, thread or native memory behind.
 */
class CmFaultsTest {
    private static final AtomicInteger PORTS = new AtomicInteger(32000 + (int) (ProcessHandle.current().pid() % 500) * 20);

    @Test
    void shouldConnectAndDisconnectThroughLossAndDuplicates() throws Exception {
        int udp = PORTS.getAndIncrement();
        try (Device a = Device.open(DeviceConfig.of("cmf-a", "127.0.0.2").udpPort(udp).faults(0.10, 0.10, 0, 3));
             Device b = Device.open(DeviceConfig.of("cmf-b", "127.0.0.3").udpPort(udp).faults(0.10, 0.10, 0, 4));
             RdmaServer server = RdmaServer.bind(a, 7480)) {
            // short per-try timeouts (the endpoint API takes them from the connect timeout)
            EndpointOptions o = EndpointOptions.DEFAULT.withConnectTimeout(Duration.ofSeconds(8));
            for (int i = 0; i < 12; i++) {
                try (RdmaEndpoint c = RdmaClient.connect(b, a.address(), 7480, o);
                     RdmaEndpoint s = server.accept(Duration.ofSeconds(8))) {
                    assertThat(s).as("connection %d", i).isNotNull();
                }
            }
            long retransmitted = Internals.link(a).counters().drops(dev.jrxe.net.DropReason.INJECTED)
                + Internals.link(b).counters().drops(dev.jrxe.net.DropReason.INJECTED);
            assertThat(retransmitted).as("the faults really happened").isPositive();
        }
    }

    private static long openFds() throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> s = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    private static String fdTargets() throws java.io.IOException {
        java.util.Map<String, Long> kinds = new java.util.TreeMap<>();
        try (java.util.stream.Stream<java.nio.file.Path> s = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            for (java.nio.file.Path p : s.toList()) {
                String t;
                try {
                    t = java.nio.file.Files.readSymbolicLink(p).toString().replaceAll("[0-9]+", "N");
                } catch (java.io.IOException e) {
                    t = "?";
                }
                kinds.merge(t, 1L, Long::sum);
            }
        }
        return kinds.toString();
    }

    @Test
    void shouldLeaveNothingBehindAfterAThousandCycles() throws Exception {
        int udp = PORTS.getAndIncrement();
        long threadsBefore = Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith("jrxe-cm")).count();
        try (Device a = Device.open(DeviceConfig.of("cmc-a", "127.0.0.2").udpPort(udp));
             Device b = Device.open(DeviceConfig.of("cmc-b", "127.0.0.3").udpPort(udp))) {
            long fdsBefore = openFds();
            try (RdmaServer server = RdmaServer.bind(a, 7481)) {
                java.lang.foreign.MemorySegment buf = java.lang.foreign.Arena.global().allocate(64, 64);
                for (int i = 0; i < 1000; i++) {
                    try (RdmaEndpoint c = RdmaClient.connect(b, a.address(), 7481);
                         RdmaEndpoint s = server.accept(Duration.ofSeconds(5))) {
                        dev.jrxe.verbs.MemoryRegion mr = c.register(buf, dev.jrxe.ib.Access.LOCAL_WRITE);
                        dev.jrxe.verbs.MemoryRegion smr = s.register(buf, dev.jrxe.ib.Access.LOCAL_WRITE);
                        s.qp().postRecv(new dev.jrxe.verbs.RecvWr(1).sge(buf.address(), 64, smr.lkey()));
                        dev.jrxe.verbs.SendWr w = new dev.jrxe.verbs.SendWr(1).sge(buf.address(), 64, mr.lkey());
                        c.qp().postSend(w);
                        CmConnectTest.poll(s.cq());
                    }
                }
            }
            assertThat(a.liveQps()).as("QPs left on the server's device").isZero();
            assertThat(b.liveQps()).as("QPs left on the client's device").isZero();
            assertThat(Internals.keys(a).size() + Internals.keys(b).size()).as("regions left").isZero();
            assertThat(openFds()).as("file descriptors: %s", fdTargets()).isEqualTo(fdsBefore);
        }
        long threadsAfter = Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith("jrxe-cm") && t.isAlive()).count();
        assertThat(threadsAfter).as("CM threads left").isLessThanOrEqualTo(threadsBefore);
    }
}
