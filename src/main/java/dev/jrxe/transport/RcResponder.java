package dev.jrxe.transport;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.memory.Access;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.memory.MemoryKey;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.AtomicEth;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.Psn;
import dev.jrxe.wire.Reth;
import dev.jrxe.wire.RocePacket;
import java.lang.foreign.MemorySegment;

/**
 * RC responder (rxe_resp.c): checks the PSN (in order, duplicate, or out of sequence), the opcode
 * sequence, keys and access, executes SEND / WRITE / READ / ATOMIC, and answers with ACKs
 * (coalesced per receive batch), NAKs, RNR NAKs, READ responses and atomic acknowledgements.
 * Duplicates are answered without executing again: READ responses are replayed from the
 * resource ring, atomics answered with the value they returned the first time.
 */
final class RcResponder {
    private static final boolean TRACE = Boolean.getBoolean("jrxe.trace");
    private static final boolean TRACE_ERRORS = TRACE || Boolean.getBoolean("jrxe.traceErrors");
    private final Engine engine;

    RcResponder(Engine engine) {
        this.engine = engine;
    }

    void onRequest(Qp qp, RocePacket pkt) {
        int s = qp.state;
        if (s != QpState.RTR && s != QpState.RTS && s != QpState.SQD && s != QpState.SQE) {
            return;
        }
        ResponderState r = qp.resp;
        int psn = pkt.bth().psn();
        int opcode = pkt.bth().opcode();
        int d = Psn.diff(psn, r.ePsn);
        if (d > 0) {
            engine.counters.inc(TransportCounters.OUT_OF_SEQ_REQUEST);
            if (!r.seqNakSent) {
                r.seqNakSent = true;
                nak(qp, Aeth.NAK_PSN_SEQ_ERR, r.ePsn);
            }
            return;
        }
        if (d < 0) {
            if (TRACE) {
                System.err.println("jrxe: duplicate psn " + psn + " op " + opcode + " " + qp.debugState());
            }
            engine.counters.inc(TransportCounters.DUPLICATE_REQUEST);
            duplicate(qp, pkt, opcode, psn);
            return;
        }
        r.seqNakSent = false;
        if (!sequenceOk(r, opcode)) {
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
            return;
        }
        if (OpcodeTable.has(opcode, OpcodeTable.SEND)) {
            onSend(qp, pkt, opcode, psn);
        } else if (OpcodeTable.has(opcode, OpcodeTable.WRITE)) {
            onWrite(qp, pkt, opcode, psn);
        } else if (OpcodeTable.has(opcode, OpcodeTable.READ)) {
            onRead(qp, pkt, psn);
        } else if (OpcodeTable.has(opcode, OpcodeTable.ATOMIC)) {
            onAtomic(qp, pkt, opcode, psn);
        } else {
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
        }
    }

    /** FIRST/ONLY only between messages, MIDDLE/LAST only inside one of the same kind. */
    private static boolean sequenceOk(ResponderState r, int opcode) {
        boolean first = OpcodeTable.has(opcode, OpcodeTable.FIRST);
        boolean send = OpcodeTable.has(opcode, OpcodeTable.SEND);
        boolean write = OpcodeTable.has(opcode, OpcodeTable.WRITE);
        if (r.inProgress == 0) {
            return first || !(send || write);
        }
        if (first || !(send || write)) {
            return false;
        }
        return r.inProgress == (send ? ResponderState.IN_SEND : ResponderState.IN_WRITE);
    }

    // ---------------------------------------------------------------- SEND

    private void onSend(Qp qp, RocePacket pkt, int opcode, int psn) {
        ResponderState r = qp.resp;
        boolean first = OpcodeTable.has(opcode, OpcodeTable.FIRST);
        boolean last = OpcodeTable.has(opcode, OpcodeTable.LAST);
        int len = pkt.payloadLength();
        if (!payloadSizeOk(qp, last, len)) {
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
            return;
        }
        if (first) {
            RecvQueue q = qp.recvQueue();
            RecvWqe head = q == null ? null : q.peek();
            if (head == null) {
                engine.counters.inc(TransportCounters.SEND_RNR_ERR);
                flushAck(qp);
                qp.engine.out.ack(qp, Aeth.rnrNak(qp.minRnrTimer), psn, r.msn);
                return;
            }
            copyWqe(head, r.taken);
            q.pop();
            r.recvWqe = r.taken;
            r.recvOffset = 0;
            r.inProgress = ResponderState.IN_SEND;
        }
        RecvWqe w = r.recvWqe;
        if (r.recvOffset + len > w.length) {
            // the message does not fit the receive buffer
            Completions.recv(qp, w, WcStatus.LOC_LEN_ERR, WcOpcode.RECV, r.recvOffset, 0, 0, 0, true);
            r.recvWqe = null;
            classC(qp, Aeth.NAK_INVALID_REQ, -1, psn, AsyncEventType.QP_REQ_ERR);
            return;
        }
        if (len > 0) {
            int st = Sgl.scatter(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
                r.recvOffset, pkt.segment(), pkt.payloadOffset(), len);
            if (st != MemStatus.OK) {
                Completions.recv(qp, w, WcStatus.LOC_PROT_ERR, WcOpcode.RECV, r.recvOffset, 0, 0, 0, true);
                r.recvWqe = null;
                classC(qp, Aeth.NAK_REMOTE_OP, -1, psn, AsyncEventType.QP_FATAL);
                return;
            }
        }
        r.recvOffset += len;
        r.ePsn = Psn.add(psn, 1);
        if (last) {
            boolean imm = OpcodeTable.has(opcode, OpcodeTable.IMMEDIATE);
            boolean inv = OpcodeTable.has(opcode, OpcodeTable.INVALIDATE);
            int immData = imm ? pkt.immDt().immediate() : 0;
            int invRkey = inv ? pkt.ieth().rkey() : 0;
            if (inv && invalidate(qp, invRkey) != MemStatus.OK) {
                // class J: the key could not be invalidated
                classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
                return;
            }
            r.msn = (r.msn + 1) & 0xFFFFFF;
            r.inProgress = 0;
            r.recvWqe = null;
            engine.counters.inc(TransportCounters.RDMA_RECVS);
            Completions.recv(qp, w, WcStatus.SUCCESS, WcOpcode.RECV, r.recvOffset,
                Completions.recvFlags(imm, inv), immData, invRkey, pkt.bth().solicited());
        }
        if (pkt.bth().ackReq()) {
            // a completed receive: the application is likely to answer, and the ACK may go with it
            deferAck(qp, psn, last);
        }
    }

    /** SEND_WITH_INV: invalidates the memory key the sender names, in this QP's PD. */
    private int invalidate(Qp qp, int rkey) {
        MemoryKey k = engine.keys.lookup(rkey);
        if (k instanceof dev.jrxe.memory.Region region) {
            return region.invalidate(qp.pdHandle);
        }
        return MemStatus.INVALID_KEY;
    }

    private static void copyWqe(RecvWqe from, RecvWqe to) {
        to.wrId = from.wrId;
        to.numSge = from.numSge;
        to.length = from.length;
        System.arraycopy(from.sgeAddr, 0, to.sgeAddr, 0, from.numSge);
        System.arraycopy(from.sgeLength, 0, to.sgeLength, 0, from.numSge);
        System.arraycopy(from.sgeLkey, 0, to.sgeLkey, 0, from.numSge);
    }

    private static boolean payloadSizeOk(Qp qp, boolean last, int len) {
        return last ? len <= qp.pathMtu : len == qp.pathMtu;
    }

    // ---------------------------------------------------------------- WRITE

    private void onWrite(Qp qp, RocePacket pkt, int opcode, int psn) {
        ResponderState r = qp.resp;
        boolean first = OpcodeTable.has(opcode, OpcodeTable.FIRST);
        boolean last = OpcodeTable.has(opcode, OpcodeTable.LAST);
        boolean imm = OpcodeTable.has(opcode, OpcodeTable.IMMEDIATE);
        int len = pkt.payloadLength();
        if (!payloadSizeOk(qp, last, len)) {
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
            return;
        }
        if (imm && last) {
            // WRITE with immediate consumes a receive WQE: without one, RNR before touching memory
            RecvQueue q = qp.recvQueue();
            if ((first || r.recvWqe == null) && (q == null || q.peek() == null)) {
                engine.counters.inc(TransportCounters.SEND_RNR_ERR);
                flushAck(qp);
                engine.out.ack(qp, Aeth.rnrNak(qp.minRnrTimer), psn, r.msn);
                return;
            }
        }
        if (first) {
            Reth reth = pkt.reth();
            long va = reth.va();
            long dmaLen = Integer.toUnsignedLong(reth.dmaLength());
            MemoryKey key = null;
            if (dmaLen > 0) {
                key = engine.keys.lookup(reth.rkey());
                int st = (qp.accessFlags & Access.REMOTE_WRITE) == 0 ? MemStatus.ACCESS_DENIED
                    : key == null ? MemStatus.INVALID_KEY
                    : key.check(qp.pdHandle, Access.REMOTE_WRITE, va, dmaLen);
                if (st != MemStatus.OK) {
                    classC(qp, Aeth.NAK_REMOTE_ACCESS, WcStatus.REM_ACCESS_ERR, psn, AsyncEventType.QP_ACCESS_ERR);
                    return;
                }
            }
            r.writeKey = key;
            r.writeVa = va;
            r.writeLength = dmaLen;
            r.writeRemaining = dmaLen;
            r.inProgress = ResponderState.IN_WRITE;
        }
        if (len > r.writeRemaining || (last && len != r.writeRemaining)) {
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
            return;
        }
        if (len > 0) {
            long off = r.writeLength - r.writeRemaining;
            int st = r.writeKey.write(r.writeVa + off, pkt.segment(), pkt.payloadOffset(), len);
            if (st != MemStatus.OK) {
                classC(qp, Aeth.NAK_REMOTE_ACCESS, WcStatus.REM_ACCESS_ERR, psn, AsyncEventType.QP_ACCESS_ERR);
                return;
            }
        }
        r.writeRemaining -= len;
        r.ePsn = Psn.add(psn, 1);
        if (last) {
            r.msn = (r.msn + 1) & 0xFFFFFF;
            r.inProgress = 0;
            r.writeKey = null;
            if (imm) {
                RecvQueue q = qp.recvQueue();
                RecvWqe head = q.peek();
                copyWqe(head, r.taken);
                q.pop();
                Completions.recv(qp, r.taken, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, r.writeLength,
                    Completions.recvFlags(true, false), pkt.immDt().immediate(), 0, pkt.bth().solicited());
            }
        }
        if (pkt.bth().ackReq()) {
            deferAck(qp, psn, imm && last);
        }
    }

    // ---------------------------------------------------------------- READ

    private void onRead(Qp qp, RocePacket pkt, int psn) {
        ResponderState r = qp.resp;
        Reth reth = pkt.reth();
        long va = reth.va();
        long len = Integer.toUnsignedLong(reth.dmaLength());
        if (len > 0) {
            MemoryKey key = engine.keys.lookup(reth.rkey());
            int st = (qp.accessFlags & Access.REMOTE_READ) == 0 ? MemStatus.ACCESS_DENIED
                : key == null ? MemStatus.INVALID_KEY
                : key.check(qp.pdHandle, Access.REMOTE_READ, va, len);
            if (st != MemStatus.OK) {
                classC(qp, Aeth.NAK_REMOTE_ACCESS, WcStatus.REM_ACCESS_ERR, psn, AsyncEventType.QP_ACCESS_ERR);
                return;
            }
        }
        int packets = (int) Math.max(1, (len + qp.pathMtu - 1) / qp.pathMtu);
        r.msn = (r.msn + 1) & 0xFFFFFF;
        ResponderState.Resource res = newResource(qp);
        res.kind = ResponderState.Resource.READ;
        res.firstPsn = psn;
        res.lastPsn = Psn.add(psn, packets - 1);
        res.va = va;
        res.rkey = reth.rkey();
        res.length = len;
        res.msn = r.msn;
        r.ePsn = Psn.add(psn, packets);
        flushAck(qp);
        sendReadResponses(qp, res, 0, va, len);
    }

    /**
     * Next entry of the READ/atomic resource ring (max_dest_rd_atomic entries, up to 128):
     * the oldest is reused. The requester never has more than max_rd_atomic of them outstanding,
     * so an entry is only overwritten once its request has been answered in order.
     */
    private static ResponderState.Resource newResource(Qp qp) {
        ResponderState r = qp.resp;
        int cap = Math.min(r.resources.length, Math.max(1, qp.maxDestRdAtomic));
        ResponderState.Resource res = r.resources[r.resourceHead];
        r.resourceHead = (r.resourceHead + 1) % cap;
        r.resourceCount = Math.min(cap, r.resourceCount + 1);
        return res;
    }

    /**
     * Sends READ responses starting at response index {@code from} of {@code res}, reading
     * {@code len} bytes at {@code va} (which is where response {@code from} begins).
     */
    private void sendReadResponses(Qp qp, ResponderState.Resource res, int from, long va, long len) {
        int mtu = qp.pathMtu;
        int total = (int) Math.max(1, (res.length + mtu - 1) / mtu);
        MemoryKey key = len > 0 ? engine.keys.lookup(res.rkey) : null;
        long sent = 0;
        PacketOut out = engine.out;
        for (int i = from; i < total; i++) {
            int n = (int) Math.min(mtu, len - sent);
            if (n < 0) {
                n = 0;
            }
            int opcode;
            if (total == 1) {
                opcode = Opcodes.RC_RDMA_READ_RESPONSE_ONLY;
            } else if (i == 0) {
                opcode = Opcodes.RC_RDMA_READ_RESPONSE_FIRST;
            } else if (i == total - 1) {
                opcode = Opcodes.RC_RDMA_READ_RESPONSE_LAST;
            } else {
                opcode = Opcodes.RC_RDMA_READ_RESPONSE_MIDDLE;
            }
            MemorySegment buf = out.begin(qp, opcode, Psn.add(res.firstPsn, i), false, false, n);
            if (OpcodeTable.has(opcode, OpcodeTable.HAS_AETH)) {
                out.aeth().syndrome(Aeth.ACK).msn(res.msn);
            }
            if (n > 0) {
                int st = key == null ? MemStatus.INVALID_KEY : key.read(va + sent, buf, out.payloadOffset(), n);
                if (st != MemStatus.OK) {
                    // memory vanished under the READ (e.g. unmapped): the claimed buffer is dropped
                    classC(qp, Aeth.NAK_REMOTE_ACCESS, WcStatus.REM_ACCESS_ERR, Psn.add(res.firstPsn, i),
                        AsyncEventType.QP_ACCESS_ERR);
                    return;
                }
            }
            out.commit();
            sent += n;
        }
    }

    // ---------------------------------------------------------------- ATOMIC

    private final long[] original = new long[1];

    private void onAtomic(Qp qp, RocePacket pkt, int opcode, int psn) {
        ResponderState r = qp.resp;
        AtomicEth a = pkt.atomicEth();
        long va = a.va();
        MemoryKey key = engine.keys.lookup(a.rkey());
        int st = (qp.accessFlags & Access.REMOTE_ATOMIC) == 0 ? MemStatus.ACCESS_DENIED
            : key == null ? MemStatus.INVALID_KEY
            : key.check(qp.pdHandle, Access.REMOTE_ATOMIC, va, 8);
        if (st != MemStatus.OK) {
            classC(qp, Aeth.NAK_REMOTE_ACCESS, WcStatus.REM_ACCESS_ERR, psn, AsyncEventType.QP_ACCESS_ERR);
            return;
        }
        if ((va & 7) != 0) {
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
            return;
        }
        st = opcode == Opcodes.RC_COMPARE_SWAP
            ? key.compareAndSwap(va, a.compare(), a.swapAdd(), original)
            : key.fetchAndAdd(va, a.swapAdd(), original);
        if (st != MemStatus.OK) {
            int syn = st == MemStatus.MISALIGNED ? Aeth.NAK_INVALID_REQ : Aeth.NAK_REMOTE_ACCESS;
            classC(qp, syn, st == MemStatus.MISALIGNED ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_ACCESS_ERR, psn,
                AsyncEventType.QP_ACCESS_ERR);
            return;
        }
        r.msn = (r.msn + 1) & 0xFFFFFF;
        ResponderState.Resource res = newResource(qp);
        res.kind = ResponderState.Resource.ATOMIC;
        res.firstPsn = psn;
        res.lastPsn = psn;
        res.original = original[0];
        res.msn = r.msn;
        r.ePsn = Psn.add(psn, 1);
        flushAck(qp);
        sendAtomicAck(qp, res);
    }

    private void sendAtomicAck(Qp qp, ResponderState.Resource res) {
        PacketOut out = engine.out;
        out.begin(qp, Opcodes.RC_ATOMIC_ACKNOWLEDGE, res.firstPsn, false, false, 0);
        out.aeth().syndrome(Aeth.ACK).msn(res.msn);
        out.atomicAck().originalData(res.original);
        out.commit();
    }

    // ---------------------------------------------------------------- duplicates

    private void duplicate(Qp qp, RocePacket pkt, int opcode, int psn) {
        ResponderState r = qp.resp;
        if (OpcodeTable.has(opcode, OpcodeTable.READ)) {
            ResponderState.Resource res = findResource(qp, psn, ResponderState.Resource.READ);
            if (res != null) {
                flushAck(qp);
                int from = Psn.diff(psn, res.firstPsn);
                long va = pkt.reth().va();
                long len = Integer.toUnsignedLong(pkt.reth().dmaLength());
                sendReadResponses(qp, res, from, va, len);
            }
            return;
        }
        if (OpcodeTable.has(opcode, OpcodeTable.ATOMIC)) {
            ResponderState.Resource res = findResource(qp, psn, ResponderState.Resource.ATOMIC);
            if (res != null && res.firstPsn == psn) {
                flushAck(qp);
                sendAtomicAck(qp, res);
            }
            return;
        }
        // SEND / WRITE already executed: acknowledge everything up to ePSN - 1 again
        deferAck(qp, Psn.add(r.ePsn, -1), false);
    }

    private static ResponderState.Resource findResource(Qp qp, int psn, int kind) {
        ResponderState r = qp.resp;
        for (int i = 0; i < r.resourceCount; i++) {
            ResponderState.Resource res = r.resources[i];
            if (res.kind == kind && Psn.diff(psn, res.firstPsn) >= 0 && Psn.diff(psn, res.lastPsn) <= 0) {
                return res;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- ACK / NAK

    /**
     * Owes an ACK for {@code psn}; the engine sends it at the end of the receive batch, one ACK
     * for the batch, unless {@link AckHold} keeps it a little longer. {@code holdable}: the packet
     * completed a receive (any other owed ACK in the same batch makes it go at once).
     */
    private void deferAck(Qp qp, int psn, boolean holdable) {
        ResponderState r = qp.resp;
        boolean wasOwed = r.ackPending;
        if (wasOwed) {
            engine.counters.inc(TransportCounters.ACK_DEFERRED);
        }
        r.ackPending = true;
        r.ackPsn = psn;
        r.hold.owe(holdable, wasOwed, engine.now, psn);
    }

    /** Sends the owed ACK now, so that what follows keeps PSN order on the wire. */
    private void flushAck(Qp qp) {
        if (qp.resp.ackPending) {
            sendPendingAck(qp);
        }
    }

    void sendPendingAck(Qp qp) {
        ResponderState r = qp.resp;
        r.ackPending = false;
        engine.out.ack(qp, Aeth.ACK, r.ackPsn, r.msn);
    }

    private void nak(Qp qp, int syndrome, int psn) {
        flushAck(qp);
        engine.out.ack(qp, syndrome, psn, qp.resp.msn);
    }

    /**
     * Class C/A error: NAK with {@code syndrome}, complete the receive WQE in use (if any) with
     * {@code recvStatus}, and move the QP to the error state.
     */
    private void classC(Qp qp, int syndrome, int recvStatus, int psn, int event) {
        ResponderState r = qp.resp;
        if (TRACE_ERRORS) {
            System.err.println("jrxe: responder error syndrome 0x" + Integer.toHexString(syndrome) + " psn " + psn + " "
                + qp.debugState());
            Thread.dumpStack();
        }
        nak(qp, syndrome, psn);
        if (r.recvWqe != null && recvStatus >= 0) {
            Completions.recv(qp, r.recvWqe, recvStatus, WcOpcode.RECV, r.recvOffset, 0, 0, 0, true);
            r.recvWqe = null;
        }
        r.inProgress = 0;
        engine.fail(qp, event);
    }
}
