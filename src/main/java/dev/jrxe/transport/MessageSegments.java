package dev.jrxe.transport;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.wire.Opcodes;
import java.lang.foreign.MemorySegment;

/**
 * The packets of a SEND or RDMA WRITE message on a connected QP (RC, UC): cut at the path MTU
 * into FIRST / MIDDLE / LAST or ONLY, RETH on the first packet of a WRITE, immediate data or the
 * invalidated rkey on the last, the payload gathered through the checked lkeys (or copied from
 * the inline buffer). Who asks for ACKs and when a message completes is each transport's own.
 */
final class MessageSegments {
    /** A UC opcode is the RC opcode of the same operation and position plus this (IBTA 9.2). */
    static final int UC_OFFSET = Opcodes.UC_SEND_FIRST - Opcodes.RC_SEND_FIRST;

    private MessageSegments() {
    }

    /**
     * Smallest payload sent by reference where the link can ({@code Link.sendsByReference}):
     * below it a copy costs less than the hold's two atomic counts and the two extra iovecs.
     */
    static final int BY_REFERENCE_MIN = 1024;

    /**
     * Holds the packet's {@code n} payload bytes for the link to send from where they lie, when
     * they lie in one SGE of memory that qualifies; false (nothing held): copy them.
     */
    private static boolean holdFromOneSge(Engine engine, Qp qp, SendWqe w, int n) {
        long skip = w.offset;
        for (int i = 0; i < w.numSge; i++) {
            long len = Integer.toUnsignedLong(w.sgeLength[i]);
            if (skip < len) {
                if (len - skip < n) {
                    return false; // the payload spans SGEs
                }
                dev.jrxe.memory.MemoryKey k = engine.keys.lookup(w.sgeLkey[i]);
                return k != null && engine.out.holdPayload(k, qp.pdHandle, w.sgeAddr[i] + skip);
            }
            skip -= len;
        }
        return false;
    }

    /** Whether copying from any of {@code w}'s SGEs may wait for a memory lock ({@code MemoryKey.accessMayWait}). */
    private static boolean copyMayWait(Engine engine, SendWqe w) {
        for (int i = 0; i < w.numSge; i++) {
            dev.jrxe.memory.MemoryKey k = engine.keys.lookup(w.sgeLkey[i]);
            if (k == null || k.accessMayWait()) {
                return true;
            }
        }
        return false;
    }

    /** Payload bytes of the next packet of {@code w} at path MTU {@code mtu}. */
    static int nextLength(SendWqe w, int mtu) {
        return (int) Math.min(mtu, w.length - w.offset);
    }

    /**
     * Builds the next packet of {@code w} ({@code n} payload bytes from {@code w.offset}) with
     * {@code opcode} and {@code psn}, ready for {@link PacketOut#commit}. {@code mayReference}:
     * the payload may be sent from where it lies (only where the send completes after the packet
     * left, as RC's on its ACK; a UC send completes at once, and the application may then reuse
     * the buffer before the flush; and only a first transmission, see {@code RcRequester}). Returns
     * {@link MemStatus#OK}, or the status of a local buffer that could not be read (the claimed
     * buffer is then simply not committed).
     */
    static int build(Engine engine, Qp qp, SendWqe w, int opcode, int psn, boolean ackReq, int n,
                     boolean mayReference) {
        boolean first = w.offset == 0;
        boolean last = w.offset + n >= w.length;
        boolean solicited = last && (w.sendFlags & SendFlags.SOLICITED) != 0;
        PacketOut out = engine.out;
        MemorySegment buf = out.begin(qp, opcode, psn, ackReq, solicited, n);
        if (first && WrOpcode.isWrite(w.opcode)) {
            out.reth().va(w.remoteAddr).rkey(w.rkey).dmaLength((int) w.length);
        }
        if (last && (w.opcode == WrOpcode.SEND_WITH_IMM || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM)) {
            out.immDt().immediate(w.immData);
        }
        if (last && w.opcode == WrOpcode.SEND_WITH_INV) {
            out.ieth().rkey(w.invalidateRkey);
        }
        if (n == 0) {
            return MemStatus.OK;
        }
        if (w.inlined) {
            MemorySegment.copy(w.inline, w.offset, buf, out.payloadOffset(), n);
            return MemStatus.OK;
        }
        if (mayReference && n >= BY_REFERENCE_MIN && holdFromOneSge(engine, qp, w, n)) {
            return MemStatus.OK;
        }
        if (engine.out.heldUnsent > 0 && copyMayWait(engine, w)) {
            engine.flushHeldPayloads(); // (a copy from ODP memory may wait for a memory lock)
        }
        return Sgl.gather(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
            w.offset, buf, out.payloadOffset(), n);
    }
}
