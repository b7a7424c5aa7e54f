package dev.jrxe.net;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A QP source port's send socket connects to its first destination and seals the IDs the kernel
 * then numbers its datagrams with ({@link ConnectedIds}): checked on the wire by tcpdump and the
 * ICRC oracle, with sends to another destination through the same socket, and after a send the
 * kernel refused. In a network namespace the test creates (needs root, ip, tcpdump, tshark and
 * python3-scapy).
 */
class ConnectedSourcePortTest {
    private static final int PORT = 4791;
    private static final int SOURCE = 0xC001;

    /** IPv4 ID the sealer was given, by PSN. */
    private final Map<Integer, Integer> sealedId = new HashMap<>();
    private final DatagramSealer recording = (b, o, l, s, d, sp, dp, id) -> {
        synchronized (sealedId) {
            sealedId.put(TestRoce.psn(b, o), id);
        }
        TestRoce.SEALER.seal(b, o, l, s, d, sp, dp, id);
    };

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"MMSG", "GSO"})
    void shouldNumberOneCounterWhateverTheDestination(LinkMode mode, @TempDir Path dir) throws Exception {
        Path wire = dir.resolve("two-destinations.pcap");
        int sent = 18;
        try (NetNamespace ns = new NetNamespace()) {
            ns.segmentBeforeTap();
            Process tcpdump = ns.tcpdumpCounting(wire, "udp port " + PORT, sent);
            try {
                ns.call(() -> {
                    try (Link a = open("127.0.0.2", mode); Link b = open("127.0.0.3", mode); Link c = open("127.0.0.4", mode)) {
                        int psn = 0;
                        // connects to B; then C (named sends through the connected socket), then B again;
                        // some flushes hold one message, some several (a GSO train in GSO mode)
                        for (int round = 0; round < 3; round++) {
                            for (Link to : List.of(b, c)) {
                                for (int i = 0; i < 3; i++) {
                                    psn = send(a, to, psn, 1024);
                                    if (round == 1) {
                                        a.flush();
                                    }
                                }
                                a.flush();
                            }
                        }
                        assertThat(new Collector().receive(b, sent / 2).size()).isEqualTo(sent / 2);
                        assertThat(new Collector().receive(c, sent / 2).size()).isEqualTo(sent / 2);
                    }
                    return null;
                });
                assertThat(tcpdump.waitFor(30, TimeUnit.SECONDS)).as("tcpdump saw %d frames", sent).isTrue();
            } finally {
                tcpdump.destroy();
            }
        }
        Map<Integer, Integer> wireId = assertOnTheWireAsSealed(wire, sent);
        if (mode == LinkMode.MMSG) {
            // every datagram its own message, to B or to C: one count, one more each
            for (int p = 1; p < sent; p++) {
                assertThat(wireId.get(p)).as("PSN %d of %s", p, wireId).isEqualTo((wireId.get(p - 1) + 1) & 0xFFFF);
            }
        } else {
            // unconnected, the trains would carry segment indexes 0, 1, 2 only
            assertThat(new java.util.HashSet<>(wireId.values())).as("%s", wireId).hasSizeGreaterThan(3);
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"MMSG", "GSO"})
    void shouldKeepTheCountAfterTheKernelRefusedASend(LinkMode mode, @TempDir Path dir) throws Exception {
        Path wire = dir.resolve("refused.pcap");
        List<Integer> delivered = new ArrayList<>();
        long[] failed = new long[1];
        long[] sentBefore = new long[1];
        try (NetNamespace ns = new NetNamespace()) {
            ns.segmentBeforeTap();
            Process tcpdump = ns.tcpdump(wire, "udp port " + PORT);
            try {
                ns.call(() -> {
                    try (Link a = open("127.0.0.2", mode)) {
                        int psn = 0;
                        try (Link b = open("127.0.0.3", mode)) {
                            psn = send(a, b, psn, 256);
                            a.flush();
                            assertThat(new Collector().receive(b, 1).size()).isEqualTo(1);
                        }
                        // B is gone: the next datagram draws an ICMP port unreachable, which the
                        // connected socket reports by refusing the next send (ECONNREFUSED) before
                        // numbering it; the link's retry of the call then sends it
                        psn = send(a, null, psn, 256);
                        a.flush();
                        Thread.sleep(100);
                        psn = send(a, null, psn, 256);
                        a.flush();
                        failed[0] = a.counters().drops(DropReason.SEND_FAILED);
                        sentBefore[0] = a.counters().txPackets();
                        try (Link b = open("127.0.0.3", mode)) {
                            int first = psn;
                            for (int i = 0; i < 4; i++) {
                                psn = send(a, b, psn, 256);
                            }
                            a.flush();
                            assertThat(new Collector().receive(b, 4).size()).isEqualTo(4);
                            for (int p = first; p < psn; p++) {
                                delivered.add(p);
                            }
                        }
                    }
                    return null;
                });
                Thread.sleep(500); // tcpdump writes what it saw
            } finally {
                tcpdump.destroy();
                tcpdump.waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertThat(failed[0]).as("nothing lost to the refusal").isZero();
        assertThat(sentBefore[0]).isEqualTo(3);
        Tools.Result check = Tools.roceCheck(wire);
        assertThat(check.lastLine()).as(check.out()).isEqualTo("7 passed, 0 failed");
        Map<Integer, Integer> wireId = wireIds(wire);
        assertThat(wireId).isEqualTo(sealedId).containsKeys(delivered.toArray(Integer[]::new));
    }

    @org.junit.jupiter.api.Test
    void shouldLearnTheCountAgainWhenTheKernelNumberedAMessageItThenRefused(@TempDir Path dir) throws Exception {
        // a GSO message on a socket without UDP checksums: the kernel numbers it, then refuses it
        // (EINVAL); the link sends the train again datagram by datagram, which needs the count again
        Path wire = dir.resolve("numbered-refused.pcap");
        int sent = 1 + 5;
        try (NetNamespace ns = new NetNamespace()) {
            ns.segmentBeforeTap();
            Process tcpdump = ns.tcpdumpCounting(wire, "udp port " + PORT, sent);
            try {
                ns.call(() -> {
                    try (Link a = open("127.0.0.2", LinkMode.GSO); Link b = open("127.0.0.3", LinkMode.GSO)) {
                        int psn = send(a, b, 0, 1024);
                        a.flush(); // connects
                        assertThat(((NativeLink) a).setPortOption(SOURCE, dev.jrxe.sys.Sockets.SOL_SOCKET,
                            dev.jrxe.sys.Sockets.SO_NO_CHECK, 1)).isZero();
                        for (int i = 0; i < 5; i++) {
                            psn = send(a, b, psn, 1024);
                        }
                        assertThat(a.flush()).isEqualTo(5);
                        assertThat(((NativeLink) a).gsoActive()).isFalse();
                        assertThat(new Collector().receive(b, sent).size()).isEqualTo(sent);
                    }
                    return null;
                });
                assertThat(tcpdump.waitFor(30, TimeUnit.SECONDS)).as("tcpdump saw %d frames", sent).isTrue();
            } finally {
                tcpdump.destroy();
            }
        }
        assertOnTheWireAsSealed(wire, sent);
    }

    private Link open(String address, LinkMode mode) throws java.io.IOException {
        return Links.open(LinkConfig.builder(address).port(PORT).mode(mode).build(), recording);
    }

    /** Commits one SEND of {@code payload} bytes from {@link #SOURCE} to {@code to} (null: 127.0.0.3, gone); the next PSN. */
    private static int send(Link from, Link to, int psn, int payload) {
        MemorySegment buf = from.claim();
        int len = TestRoce.writeSendOnly(buf, 0x000321, psn, payload);
        from.commit(len, to != null ? to.localAddress() : 0x7F000003, PORT, SOURCE);
        return psn + 1;
    }

    private Map<Integer, Integer> assertOnTheWireAsSealed(Path wire, int sent) throws Exception {
        Tools.Result check = Tools.roceCheck(wire);
        assertThat(check.lastLine()).as(check.out()).isEqualTo(sent + " passed, 0 failed");
        Map<Integer, Integer> wireId = wireIds(wire);
        assertThat(wireId).hasSize(sent).isEqualTo(sealedId);
        return wireId;
    }

    private static Map<Integer, Integer> wireIds(Path wire) throws Exception {
        Map<Integer, Integer> ids = new HashMap<>();
        for (String[] f : Tools.tsharkFields(wire, "infiniband", "infiniband.bth.psn", "ip.id")) {
            ids.put(Integer.parseInt(f[0]), Integer.decode(f[1]));
        }
        return ids;
    }
}
