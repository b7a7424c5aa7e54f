package dev.jrxe.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.wire.IcrcSealer;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import dev.jrxe.wire.RocePacket;
import dev.jrxe.wire.RxDecoder;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One packet of every opcode in the table, encoded by the wire layer, sealed with the real ICRC,
 * sent from a link on 127.0.0.2 to one on 127.0.0.3 and decoded there field by field. The same
 * packets recorded with the link's pcapng writer, and a tcpdump capture of lo (in a namespace of
 * the test's own, with segmentation before the tap so GSO trains show as the datagrams they
 * become), both pass the independent roce_check.py oracle.
 */
class EveryOpcodeOverLinkTest {
    private static final String A = "127.0.0.2";
    private static final String B = "127.0.0.3";
    private static final int PORT = 4791;
    private static final int TRAIN = 16;

    /** One sent packet: its opcode, and the exact bytes before the ICRC. */
    private record Sent(int opcode, byte[] bytes) {
    }

    private static List<Integer> everyOpcode() {
        List<Integer> ops = new ArrayList<>();
        for (int op = 0; op < 256; op++) {
            if (OpcodeTable.isKnown(op)) {
                ops.add(op);
            }
        }
        return ops;
    }

    /** Writes a packet of {@code op} with distinctive field values; returns its length (ICRC included). */
    private static int encode(PacketWriter w, MemorySegment buf, int op, int i) {
        w.begin(buf, 0, op);
        w.bth().destQp(0x000100 + i).psn(0x00ABC0 + i).ackReq((i & 1) == 1).solicited((i & 2) == 2);
        int f = OpcodeTable.flags(op);
        if ((f & OpcodeTable.HAS_DETH) != 0) {
            w.deth().qkey(0x11111111).srcQp(0x000042 + i);
        }
        if ((f & OpcodeTable.HAS_FETH) != 0) {
            w.feth().placementType(1).selectivityLevel(0);
        }
        if ((f & OpcodeTable.HAS_RETH) != 0) {
            w.reth().va(0x7f0000001000L + i * 64L).rkey(0x1234_5600 + i).dmaLength(100 + i);
        }
        if ((f & OpcodeTable.HAS_ATMETH) != 0) {
            w.atomicEth().va(0x7f0000002000L + 8L * i).rkey(0x4321_0000 + i).swapAdd(-i).compare(i * 3L);
        }
        if ((f & OpcodeTable.HAS_AETH) != 0) {
            w.aeth().syndrome(0x1F).msn(i);
        }
        if ((f & OpcodeTable.HAS_ATMACK) != 0) {
            w.atomicAckEth().originalData(0x0102030405060708L + i);
        }
        if ((f & OpcodeTable.HAS_IMMDT) != 0) {
            w.immDt().immediate(0xCAFE0000 + i);
        }
        if ((f & OpcodeTable.HAS_IETH) != 0) {
            w.ieth().rkey(0xBEEF0000 + i);
        }
        int payload = 0;
        if ((f & OpcodeTable.HAS_PAYLOAD) != 0) {
            payload = op == Opcodes.RC_ATOMIC_WRITE ? 8 : 1 + 37 * (i % 7);
            for (int k = 0; k < payload; k++) {
                buf.set(ValueLayout.JAVA_BYTE, w.payloadOffset() + k, (byte) (i * 13 + k));
            }
        }
        return w.finish(payload);
    }

    private static List<Sent> sendAll(LinkMode mode, Path pcap, int[] accepted, List<byte[]> received)
        throws Exception {
        List<Sent> sent = new ArrayList<>();
        LinkConfig.Builder ca = LinkConfig.builder(A).port(PORT).mode(mode);
        LinkConfig.Builder cb = LinkConfig.builder(B).port(PORT).mode(mode);
        if (pcap != null) {
            ca.pcap(pcap);
            cb.pcap(pcap);
        }
        try (Link a = Links.open(ca.build(), new IcrcSealer()); Link b = Links.open(cb.build(), new IcrcSealer())) {
            RxDecoder decoder = new RxDecoder(b, (RocePacket p, int srcAddr, int srcPort) -> {
                accepted[0]++;
                byte[] copy = new byte[p.length() - 4];
                MemorySegment.copy(p.segment(), ValueLayout.JAVA_BYTE, p.offset(), copy, 0, copy.length);
                received.add(copy);
            });
            PacketWriter w = new PacketWriter();
            List<Integer> ops = everyOpcode();
            for (int i = 0; i < ops.size(); i++) {
                MemorySegment buf = a.claim();
                int len = encode(w, buf, ops.get(i), i);
                byte[] bytes = new byte[len - 4];
                MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, bytes, 0, bytes.length);
                sent.add(new Sent(ops.get(i), bytes));
                a.commit(len, b.localAddress(), PORT, 0xC000 + i);
            }
            // and a train of equal-size packets from one connection: a GSO message in GSO mode
            for (int k = 0; k < TRAIN; k++) {
                MemorySegment buf = a.claim();
                w.begin(buf, 0, Opcodes.RC_SEND_MIDDLE);
                w.bth().destQp(0x000777).psn(0x100000 + k);
                buf.asSlice(w.payloadOffset(), 1024).fill((byte) k);
                int len = w.finish(1024);
                byte[] bytes = new byte[len - 4];
                MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, bytes, 0, bytes.length);
                sent.add(new Sent(Opcodes.RC_SEND_MIDDLE, bytes));
                a.commit(len, b.localAddress(), PORT, 0xD000);
            }
            a.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (accepted[0] + b.counters().totalDrops() < sent.size() && System.nanoTime() < deadline) {
                if (b.poll(decoder, 64) == 0) {
                    b.awaitReadable(1_000_000);
                }
            }
            assertThat(b.counters().totalDrops()).as("drops at the receiver").isZero();
        }
        return sent;
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldCarryEveryOpcodeAndPassTheOracle(LinkMode mode, @TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("link.pcapng");
        Path wire = dir.resolve("lo.pcap");
        int[] accepted = new int[1];
        List<byte[]> received = new ArrayList<>();
        List<Sent> sent;
        try (NetNamespace ns = new NetNamespace()) {
            ns.segmentBeforeTap();
            Process tcpdump = ns.tcpdump(wire, "udp port " + PORT);
            try {
                sent = ns.call(() -> sendAll(mode, pcap, accepted, received));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (Tools.roceCheck(wire).lastLine().startsWith(sent.size() + " passed") == false
                    && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
            } finally {
                tcpdump.destroy();
                tcpdump.waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertThat(sent.size() - TRAIN).as("opcodes in the table").isGreaterThanOrEqualTo(40);
        assertThat(accepted[0]).isEqualTo(sent.size());
        for (int i = 0; i < sent.size(); i++) {
            assertThat(received.get(i)).as("packet %d, %s", i, Opcodes.name(sent.get(i).opcode()))
                .isEqualTo(sent.get(i).bytes());
        }
        assertThat(Files.size(pcap)).isPositive();
        Tools.Result recorded = Tools.roceCheck(pcap);
        assertThat(recorded.lastLine()).isEqualTo(2 * sent.size() + " passed, 0 failed");
        Tools.Result onLo = Tools.roceCheck(wire);
        assertThat(onLo.lastLine()).isEqualTo(sent.size() + " passed, 0 failed");
        List<Integer> ids = new ArrayList<>();
        for (String[] f : Tools.tsharkFields(wire, "infiniband", "ip.id")) {
            ids.add(Integer.decode(f[0]));
        }
        if (mode == LinkMode.GSO) {
            // the train left as one GSO message: its segments carry IDs 0..TRAIN-1 on the wire
            assertThat(ids).contains(1, TRAIN - 1);
        } else {
            assertThat(ids).containsOnly(0);
        }
    }
}
