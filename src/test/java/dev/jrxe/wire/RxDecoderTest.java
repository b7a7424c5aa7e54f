package dev.jrxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.net.DropReason;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.wire.PcapReader.Datagram;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RxDecoderTest {
    private static final int SRC = 0x7F000002;
    private static final int DST = 0x7F000003;
    private static final int SPORT = 0xC123;
    private static final int PORT = 4791;

    private final LinkCounters counters = new LinkCounters();
    private final List<String> seen = new ArrayList<>();
    private final RxDecoder decoder = new RxDecoder(counters, PORT, 4096,
        (p, src, sport) -> seen.add(Opcodes.name(p.opcode()) + " psn=" + p.bth().psn() + " len=" + p.payloadLength()
            + " from=" + Integer.toHexString(src) + ":" + Integer.toHexString(sport)));
    private final MemorySegment buf = MemorySegment.ofArray(new byte[8192]);
    private final PacketWriter writer = new PacketWriter();
    private final Icrc icrc = new Icrc();

    private int sealed(int opcode, int payload, int ipId) {
        writer.begin(buf, 16, opcode).bth().psn(77);
        int len = writer.finish(payload);
        icrc.seal(buf, 16, len, SRC, DST, SPORT, PORT, ipId);
        return len;
    }

    private int offer(int len) {
        return decoder.onDatagram(buf, 16, len, SRC, SPORT, DST);
    }

    @Test
    void shouldDeliverVerifiedPacketsAndReturnTheirIpId() {
        int len = sealed(Opcodes.RC_SEND_ONLY, 10, 0x4321);
        assertThat(offer(len)).isEqualTo(0x4321);
        assertThat(seen).containsExactly("RC Send Only psn=77 len=10 from=7f000002:c123");
        assertThat(decoder.accepted()).isEqualTo(1);
        assertThat(counters.totalDrops()).isZero();
    }

    @Test
    void shouldDeliverEveryPacketOfARealCapture() throws Exception {
        List<Datagram> capture = PcapReader.read(Goldens.CAPTURES.resolve("14_rping.pcap"));
        for (Datagram d : capture) {
            RxDecoder rx = new RxDecoder(counters, d.dstPort(), 4096, (p, src, sport) -> seen.add("ok"));
            assertThat(rx.onDatagram(MemorySegment.ofArray(d.payload()), 0, d.payload().length, d.srcAddr(),
                d.srcPort(), d.dstAddr())).isEqualTo(d.ipId());
        }
        assertThat(seen).hasSize(capture.size());
        assertThat(counters.totalDrops()).isZero();
    }

    @Test
    void shouldCountEachDropByItsReason() {
        assertThat(offer(15)).isEqualTo(-1);
        assertThat(counters.drops(DropReason.TRUNCATED)).isEqualTo(1);

        int len = sealed(Opcodes.RC_SEND_ONLY, 10, 5);
        buf.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 16 + 12, (byte) 0x55); // payload changed after sealing
        assertThat(offer(len)).isEqualTo(-1);
        assertThat(counters.drops(DropReason.BAD_ICRC)).isEqualTo(1);

        writer.begin(buf, 16, Opcodes.RC_SEND_ONLY).bth().opcode(0x15);
        icrc.seal(buf, 16, writer.finish(0), SRC, DST, SPORT, PORT, 6);
        assertThat(offer(16)).as("ID still solved for a dropped packet").isEqualTo(6);
        assertThat(counters.drops(DropReason.UNKNOWN_OPCODE)).isEqualTo(1);

        writer.begin(buf, 16, Opcodes.RC_ACKNOWLEDGE).bth().tver(3);
        icrc.seal(buf, 16, writer.finish(0), SRC, DST, SPORT, PORT, 7);
        assertThat(offer(20)).isEqualTo(7);
        assertThat(counters.drops(DropReason.BAD_VERSION)).isEqualTo(1);

        len = sealed(Opcodes.RC_RDMA_WRITE_MIDDLE, 4100, 8);
        assertThat(offer(len)).isEqualTo(8);
        assertThat(counters.drops(DropReason.OVERSIZED)).isEqualTo(1);

        writer.begin(buf, 16, Opcodes.RC_RDMA_WRITE_FIRST);
        icrc.seal(buf, 16, 20, SRC, DST, SPORT, PORT, 9); // cut inside the RETH
        assertThat(offer(20)).isEqualTo(9);
        assertThat(counters.drops(DropReason.TRUNCATED)).isEqualTo(2);

        assertThat(seen).isEmpty();
        assertThat(decoder.accepted()).isZero();
        assertThat(decoder.offered()).isEqualTo(6).isEqualTo(counters.totalDrops());
    }

    @Test
    void shouldNotAllocatePerDatagram() {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported());
        long[] payloadBytes = new long[1];
        RxDecoder rx = new RxDecoder(counters, PORT, 4096, (p, src, sport) -> payloadBytes[0] += p.payloadLength());
        int good = sealed(Opcodes.RC_SEND_MIDDLE, 4096, 0x1234);
        MemorySegment bad = MemorySegment.ofArray(new byte[64]); // all zeros: BAD_ICRC
        PacketWriter w = new PacketWriter();
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        int n = 100_000;
        long allocated = 0;
        for (int round = 0; round < 3; round++) { // the first rounds warm up (interpreter, JIT)
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < n; i++) {
                rx.onDatagram(buf, 16, good, SRC, SPORT, DST);
                rx.onDatagram(bad, 0, 64, SRC, SPORT, DST);
                w.begin(out, 0, Opcodes.RC_RDMA_WRITE_ONLY).reth().va(i);
                w.finish(8);
            }
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertThat(rx.accepted()).isEqualTo(3L * n);
        assertThat(payloadBytes[0]).isEqualTo(3L * n * 4096);
        assertThat(counters.drops(DropReason.BAD_ICRC)).isEqualTo(3L * n);
        assertThat(allocated).as("bytes allocated for %d datagrams", 2 * n).isLessThan(n / 10);
    }

    @Test
    void shouldCountAFailingSinkAsOtherInsteadOfThrowing() {
        RxDecoder rx = new RxDecoder(counters, PORT, 4096, (p, src, sport) -> p.reth()); // no RETH in an ACK
        int len = sealed(Opcodes.RC_ACKNOWLEDGE, 0, 1);
        assertThat(rx.onDatagram(buf, 16, len, SRC, SPORT, DST)).isEqualTo(-1);
        assertThat(counters.drops(DropReason.OTHER)).isEqualTo(1);
        assertThat(rx.accepted()).isZero();
        assertThat(rx.offered()).isEqualTo(1);
        assertThat(rx.onDatagram(buf, 8190, 16, SRC, SPORT, DST)).as("range outside the buffer").isEqualTo(-1);
        assertThat(counters.drops(DropReason.OTHER)).isEqualTo(2);
    }
}
