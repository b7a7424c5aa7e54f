package dev.jrxe.sim;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The digest of a run: every datagram sent (when, from, to, its bytes) and every completion the
 * workload saw (when, where, what). Two runs with the same digest did the same thing.
 */
final class Trace {
    private final MessageDigest sha;
    private final byte[] word = new byte[8];
    private final dev.jrxe.wire.RocePacket packet = new dev.jrxe.wire.RocePacket();
    /** Where every event is also printed, readably ({@code jrxe sim --verbose}); null: nowhere. */
    java.io.PrintWriter verbose;
    long events;

    Trace() {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void put(long v) {
        for (int i = 0; i < 8; i++) {
            word[i] = (byte) (v >>> (56 - 8 * i));
        }
        sha.update(word);
    }

    void datagram(long time, long seq, int src, int dst, byte[] bytes) {
        events++;
        if (verbose != null) {
            packet.wrap(java.lang.foreign.MemorySegment.ofArray(bytes), 0, bytes.length);
            int op = packet.bth().opcode();
            int f = dev.jrxe.wire.OpcodeTable.flags(op);
            verbose.printf("%10.3f us  #%-6d %s -> %s  %s psn %d qp 0x%x%s%s payload %d%n", (time % 1_000_000_000L) / 1e3, seq,
                src & 0xFF, dst & 0xFF, dev.jrxe.wire.Opcodes.name(op), packet.bth().psn(), packet.bth().destQp(),
                packet.bth().ackReq() ? " ackreq" : "",
                (f & dev.jrxe.wire.OpcodeTable.HAS_AETH) != 0 ? String.format(" aeth 0x%02x msn %d",
                    packet.aeth().syndrome(), packet.aeth().msn()) : "",
                packet.payloadLength());
        }
        put(time);
        put(seq);
        put((long) src << 32 | (dst & 0xFFFFFFFFL));
        put(bytes.length);
        sha.update(bytes);
    }

    void completion(long time, int device, int qpn, long wrId, int status, int opcode, int byteLen) {
        events++;
        if (verbose != null) {
            verbose.printf("%10.3f us  completion dev %d qp 0x%x wr %d status %d opcode %d len %d%n",
                (time % 1_000_000_000L) / 1e3, device, qpn, wrId, status, opcode, byteLen);
        }
        put(time);
        put((long) device << 32 | qpn);
        put(wrId);
        put((long) status << 40 | (long) opcode << 32 | (byteLen & 0xFFFFFFFFL));
    }

    /** A line of the workload's, when verbose. */
    void note(long time, String text) {
        if (verbose != null) {
            verbose.printf("%10.3f us  %s%n", (time % 1_000_000_000L) / 1e3, text);
        }
    }

    /** The digest so far (hex), without ending the trace. */
    String digest() {
        try {
            return HexFormat.of().formatHex(((MessageDigest) sha.clone()).digest());
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }
}
