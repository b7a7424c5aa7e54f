package dev.jrxe.wire;

import static dev.jrxe.wire.OpcodeTable.*;

import dev.jrxe.net.DropReason;
import dev.jrxe.net.LinkCounters;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Drives an {@link RxDecoder} with arbitrary datagrams for the fuzz and randomized tests. The sink
 * touches every header and payload byte the opcode promises; {@link #checkAccounting()} checks
 * that every datagram was either accepted or counted as a drop, and that none hit the catch-all.
 */
final class DecoderHarness {
    static final int SRC = 0x0A580001;
    static final int DST = 0x0A580002;
    static final int SPORT = 0xCAC2;
    static final int PORT = 4791;
    private static final int MAX = 65507;

    final LinkCounters counters = new LinkCounters();
    final RxDecoder decoder = new RxDecoder(counters, PORT, 4096, this::inspect);
    private final Icrc icrc = new Icrc();
    private final MemorySegment buf = MemorySegment.ofArray(new byte[MAX + 64]);
    long checksum; // keeps the payload reads observable

    /**
     * Offers {@code packet} as one datagram at a small offset; when {@code seal}, first gives it a
     * valid ICRC for {@code ipId} so that it reaches the structural checks.
     */
    int offer(byte[] packet, int length, boolean seal, int ipId) {
        int len = Math.min(length, Math.min(packet.length, MAX));
        long at = ipId & 7;
        MemorySegment.copy(packet, 0, buf, ValueLayout.JAVA_BYTE, at, len);
        if (seal && len >= BTH_LENGTH + ICRC_LENGTH) {
            icrc.seal(buf, at, len, SRC, DST, SPORT, PORT, ipId & 0xFFFF);
        }
        int id = decoder.onDatagram(buf, at, len, SRC, SPORT, DST);
        if (seal && len >= BTH_LENGTH + ICRC_LENGTH && id != (ipId & 0xFFFF)) {
            throw new AssertionError("sealed with ID " + (ipId & 0xFFFF) + " but solved " + id);
        }
        return id;
    }

    private void inspect(RocePacket p, int src, int sport) {
        int op = p.opcode();
        if (!isKnown(op) || p.bth().tver() != 0) {
            throw new AssertionError("accepted " + Opcodes.name(op));
        }
        long end = p.payloadOffset() + p.payloadLength() + p.padCount() + ICRC_LENGTH;
        if (end != p.offset() + p.length() || p.payloadLength() < 0 || p.payloadLength() > 4096) {
            throw new AssertionError("length arithmetic: " + p.length() + " " + p.payloadLength());
        }
        long sum = p.bth().psn() + p.bth().destQp() + p.bth().pkey();
        if (has(op, HAS_RDETH)) {
            sum += p.rdeth().eeContext();
        }
        if (has(op, HAS_DETH)) {
            sum += p.deth().qkey() + p.deth().srcQp();
        }
        if (has(op, HAS_FETH)) {
            sum += p.feth().bits();
        }
        if (has(op, HAS_RETH)) {
            sum += p.reth().va() + p.reth().rkey() + p.reth().dmaLength();
        }
        if (has(op, HAS_ATMETH)) {
            sum += p.atomicEth().va() + p.atomicEth().rkey() + p.atomicEth().swapAdd() + p.atomicEth().compare();
        }
        if (has(op, HAS_AETH)) {
            sum += p.aeth().syndrome() + p.aeth().msn();
        }
        if (has(op, HAS_ATMACK)) {
            sum += p.atomicAckEth().originalData();
        }
        if (has(op, HAS_IMMDT)) {
            sum += p.immDt().immediate();
        }
        if (has(op, HAS_IETH)) {
            sum += p.ieth().rkey();
        }
        if (p.payloadLength() > 0) {
            sum += p.segment().get(ValueLayout.JAVA_BYTE, p.payloadOffset());
            sum += p.segment().get(ValueLayout.JAVA_BYTE, p.payloadOffset() + p.payloadLength() - 1);
        }
        checksum += sum;
    }

    void checkAccounting() {
        long accounted = decoder.accepted() + counters.totalDrops();
        if (accounted != decoder.offered()) {
            throw new AssertionError("offered " + decoder.offered() + " but accepted " + decoder.accepted()
                + " + dropped " + counters.totalDrops());
        }
        if (counters.drops(DropReason.OTHER) != 0) {
            throw new AssertionError("a datagram hit the catch-all");
        }
    }
}
