package dev.jrxe.net;

import org.junit.jupiter.api.Test;
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
 * Real RoCE traffic between two links on port 4791, captured by tcpdump and by the links' own
 * pcapng, both checked by roce_check.py, in every mode.
 * Runs in network namespaces the test creates, so it can use port 4791 and change lo's offloads
 * without touching the host. Needs root, ip, ethtool, tcpdump, tshark and python3-scapy.
 */
class GsoCaptureTest {
    private static final int PORT = 4791;
    private static final String A = "127.0.0.2";
    private static final String B = "127.0.0.3";

    /** One datagram to send: from which link, source port, payload size. */
    record Send(boolean fromA, int srcPort, int payload) {
    }

    /** The traffic: GSO trains (longer than one GSO message, with shorter tails), odd sizes, both directions. */
    private static List<Send> traffic() {
        List<Send> plan = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            plan.add(new Send(true, 0xC001, 4096));
        }
        plan.add(new Send(true, 0xC001, 1000));
        for (int i = 0; i < 3; i++) {
            plan.add(new Send(true, 0xC001, 1024));
        }
        for (int i = 0; i < 5; i++) {
            plan.add(new Send(true, 0xC002, 4096));
        }
        for (int i = 0; i < 10; i++) {
            plan.add(new Send(false, 0xC003, 64));
        }
        for (int i = 0; i < 4; i++) {
            plan.add(new Send(true, 0, 4096));
        }
        for (int i = 0; i < 16; i++) {
            plan.add(new Send(true, 0xC001, 4096));
        }
        return plan;
    }

    /** IPv4 ID the sealer was given, by PSN. */
    private static Map<Integer, Integer> sendAndReceive(LinkMode mode, Path pcap, List<Send> plan) throws Exception {
        Map<Integer, Integer> sealedId = new HashMap<>();
        DatagramSealer recording = (b, o, l, s, d, sp, dp, id) -> {
            sealedId.put(TestRoce.psn(b, o), id);
            TestRoce.SEALER.seal(b, o, l, s, d, sp, dp, id);
        };
        try (Link a = Links.open(LinkConfig.builder(A).port(PORT).mode(mode).pcap(pcap).build(), recording);
             Link b = Links.open(LinkConfig.builder(B).port(PORT).mode(mode).pcap(pcap).build(), recording)) {
            int psn = 0;
            int toA = 0;
            int toB = 0;
            for (Send s : plan) {
                Link from = s.fromA() ? a : b;
                Link to = s.fromA() ? b : a;
                MemorySegment buf = from.claim();
                int len = TestRoce.writeSendOnly(buf, 0x000321, psn++, s.payload());
                from.commit(len, to.localAddress(), PORT, s.srcPort());
                if (s.fromA()) {
                    toB++;
                } else {
                    toA++;
                }
            }
            a.flush();
            b.flush();
            Collector atA = SolvingCollector.create(PORT).receive(a, toA);
            Collector atB = SolvingCollector.create(PORT).receive(b, toB);
            assertThat(atA.size()).isEqualTo(toA);
            assertThat(atB.size()).isEqualTo(toB);
        }
        return sealedId;
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldPutTheSealedIpIdOnEveryDatagramAsTcpdumpSeesIt(LinkMode mode, @TempDir Path dir) throws Exception {
        List<Send> plan = traffic();
        Path wire = dir.resolve("tcpdump.pcap");
        Path recorded = dir.resolve("link.pcapng");
        Map<Integer, Integer> sealedId;
        try (NetNamespace ns = new NetNamespace()) {
            ns.segmentBeforeTap();
            Process tcpdump = ns.tcpdump(wire, "udp port " + PORT);
            try {
                sealedId = ns.call(() -> sendAndReceive(mode, recorded, plan));
                waitForFrames(wire, plan);
            } finally {
                tcpdump.destroy();
                tcpdump.waitFor(10, TimeUnit.SECONDS);
            }
        }

        Tools.Result onWire = Tools.roceCheck(wire);
        assertThat(onWire.lastLine()).isEqualTo(plan.size() + " passed, 0 failed");
        assertThat(onWire.exit()).isZero();

        Map<Integer, Integer> wireId = new HashMap<>();
        for (String[] f : Tools.tsharkFields(wire, "infiniband", "infiniband.bth.psn", "ip.id", "ip.flags.df", "ip.ttl",
                "udp.checksum")) {
            wireId.put(Integer.parseInt(f[0]), Integer.decode(f[1]));
            assertThat(f[2]).isIn("1", "True");
            assertThat(f[3]).isEqualTo("64");
            if (mode == LinkMode.MMSG) {
                assertThat(Integer.decode(f[4])).as("UDP checksum, as rxe sends it").isZero();
            }
        }
        assertThat(wireId).isEqualTo(sealedId);
        if (mode == LinkMode.GSO) {
            // the trains really went as GSO: IDs beyond 0 prove segments of one message
            assertThat(sealedId.values()).contains(14, 9);
        } else {
            assertThat(sealedId.values()).containsOnly(0);
        }

        Tools.Result inFile = Tools.roceCheck(recorded);
        assertThat(inFile.lastLine()).isEqualTo(2 * plan.size() + " passed, 0 failed");
        Map<Integer, Integer> recordedId = new HashMap<>();
        for (String[] f : Tools.tsharkFields(recorded, "frame.interface_id == 0 && ip.src == " + A
                + " || frame.interface_id == 1 && ip.src == " + B, "infiniband.bth.psn", "ip.id")) {
            recordedId.put(Integer.parseInt(f[0]), Integer.decode(f[1]));
        }
        assertThat(recordedId).isEqualTo(wireId);
    }

    @Test
    void shouldPassGsoTrainsThroughLoUnsegmentedWhenLoOffloadsSegmentation(@TempDir Path dir) throws Exception {
        // three trains of ten 4 KiB datagrams, each flushed alone: three GSO messages
        int trains = 3;
        int perTrain = 10;
        Path wire = dir.resolve("lo-offload.pcap");
        try (NetNamespace ns = new NetNamespace()) {
            Process tcpdump = ns.tcpdumpCounting(wire, "udp port " + PORT, trains);
            try {
                ns.call(() -> {
                    try (Link a = Links.open(LinkConfig.builder(A).port(PORT).mode(LinkMode.GSO).build(), TestRoce.SEALER);
                         Link b = Links.open(LinkConfig.builder(B).port(PORT).mode(LinkMode.GSO).build(), TestRoce.SEALER)) {
                        int psn = 0;
                        for (int t = 0; t < trains; t++) {
                            for (int i = 0; i < perTrain; i++) {
                                MemorySegment buf = a.claim();
                                a.commit(TestRoce.writeSendOnly(buf, 0x21, psn++, 4096), b.localAddress(), PORT, 0xC005);
                            }
                            a.flush();
                        }
                        Collector got = new Collector().receive(b, trains * perTrain);
                        assertThat(got.size()).isEqualTo(trains * perTrain);
                        // GRO hands the super-datagrams to the socket whole: fewer receive calls than datagrams
                        assertThat(b.counters().rxCalls()).isLessThan(trains * perTrain);
                    }
                    return null;
                });
                assertThat(tcpdump.waitFor(30, TimeUnit.SECONDS)).as("tcpdump saw %d frames", trains).isTrue();
            } finally {
                tcpdump.destroy();
            }
        }
        List<String[]> frames = Tools.tsharkFields(wire, null, "udp.length", "ip.id");
        assertThat(frames).hasSize(trains).allSatisfy(f -> {
            assertThat(Integer.parseInt(f[0])).isEqualTo(8 + perTrain * TestRoce.DATAGRAM_4K);
            assertThat(Integer.decode(f[1])).isZero();
        });
    }

    /**
     * Datagrams whose payloads the link sends from where they lie ({@link Link#commitByReference}),
     * in GSO trains and alone, mixed with whole ones: every one on the wire passes the ICRC oracle.
     */
    @Test
    void shouldPutPayloadsSentByReferenceOnTheWireWithAValidIcrc(@TempDir Path dir) throws Exception {
        Path wire = dir.resolve("by-reference.pcap");
        List<Send> plan = new ArrayList<>();
        try (NetNamespace ns = new NetNamespace()) {
            ns.segmentBeforeTap();
            Process tcpdump = ns.tcpdump(wire, "udp port " + PORT);
            try {
                ns.call(() -> {
                    // the wire layer's sealer, as a device has: its ICRC in three parts, checked by the oracle
                    try (Link a = Links.open(LinkConfig.builder(A).port(PORT).mode(LinkMode.GSO).build(), new dev.jrxe.wire.IcrcSealer());
                         Link b = Links.open(LinkConfig.builder(B).port(PORT).mode(LinkMode.GSO).build(), new dev.jrxe.wire.IcrcSealer());
                         java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                        MemorySegment payload = arena.allocate(1 << 20);
                        int[] sizes = {4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096,
                            4096, 4096, 4096, 4096, 1021, 1024, 64, 4096, 4096, 2047};
                        long at = 0;
                        int psn = 0;
                        for (int n : sizes) {
                            if (n < 1000) {
                                ByReferenceLinkTest.commitWhole(a, b, 0xC007, psn++, n);
                            } else {
                                ByReferenceLinkTest.commitByRef(a, b, 0xC007, psn++, payload, at, n, () -> { });
                                at += n;
                            }
                            plan.add(new Send(true, 0xC007, n));
                        }
                        a.flush();
                        assertThat(a.counters().txByReference()).isEqualTo(sizes.length - 1);
                        assertThat(new Collector().receive(b, sizes.length).size()).isEqualTo(sizes.length);
                    }
                    return null;
                });
                waitForFrames(wire, plan);
            } finally {
                tcpdump.destroy();
                tcpdump.waitFor(10, TimeUnit.SECONDS);
            }
        }
        Tools.Result onWire = Tools.roceCheck(wire);
        assertThat(onWire.lastLine()).as(onWire.out()).isEqualTo(plan.size() + " passed, 0 failed");
        assertThat(onWire.exit()).isZero();
    }

    /** Waits until tcpdump wrote every datagram of the plan (pcap: 24-byte header, 16 + frame per packet). */
    private static void waitForFrames(Path file, List<Send> plan) throws Exception {
        long expected = 24;
        for (Send s : plan) {
            expected += 16 + 14 + 20 + 8 + TestRoce.datagramLength(s.payload());
        }
        for (int i = 0; i < 200 && (!java.nio.file.Files.exists(file) || java.nio.file.Files.size(file) < expected); i++) {
            Thread.sleep(50);
        }
    }

    /**
     * docs/CAPTURE.md's second way: {@code jrxe demo --no-gso} captured by tcpdump on a lo whose
     * offloads stay at their defaults (segmentation on): every packet passes the ICRC oracle.
     */
    @Test
    void shouldCaptureTheDemoWithNoGsoOnALoWithDefaultOffloads(@TempDir Path dir) throws Exception {
        Path wire = dir.resolve("demo-no-gso.pcap");
        try (NetNamespace ns = new NetNamespace()) {
            Process tcpdump = ns.tcpdump(wire, "udp port 4791");
            int rc;
            try {
                rc = ns.call(() -> new picocli.CommandLine(new dev.jrxe.tools.Main()).setOut(
                    new java.io.PrintWriter(java.io.Writer.nullWriter())).execute("demo", "--no-gso", "-n", "50"));
                Thread.sleep(500); // tcpdump writes what it saw
            } finally {
                tcpdump.destroy();
                tcpdump.waitFor(10, TimeUnit.SECONDS);
            }
            assertThat(rc).isZero();
        }
        Tools.Result check = Tools.roceCheck(wire);
        assertThat(check.exit()).as(check.out()).isZero();
        assertThat(check.lastLine()).endsWith(" 0 failed").doesNotStartWith("0 passed");
    }
}
