package dev.jrxe.transport;

import dev.jrxe.Configuration;
import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
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
 * sequence, the QP's access rights, the length and the key, executes SEND / WRITE / READ /
 * ATOMIC, and answers with ACKs (coalesced per receive batch), NAKs, RNR NAKs, READ responses and
 * atomic acknowledgements.
 *
 * <p>READs and atomics become entries of the resource ring; their replies are sent in PSN order,
 * at most {@value #BUDGET} packets per QP and duty cycle, so one huge READ does not stall the
 * device. A SEND or WRITE that arrives while replies are pending is executed at once (a request
 * may pass an earlier READ's data: that is what the requester's fence is for), but its ACK waits
 * until the replies are out, so the wire keeps PSN order. What cannot wait that way (a PSN-sequence
 * NAK, an RNR NAK) is replaced by one PSN-sequence NAK after the replies, and the requester sends
 * again. Every byte a response carries is read through a checked {@link MemoryKey} access,
 * retransmissions and duplicates included. A duplicate READ is answered only inside the range,
 * key and PSNs of the original request (rxe's rule); a duplicate atomic gets the value it returned
 * the first time.
 */
final class RcResponder {
    private static final boolean TRACE = Configuration.trace();
    private static final boolean TRACE_ERRORS = Configuration.traceErrors();
    /** Replies one QP sends per duty cycle (the requester's budget too). */
    static final int BUDGET = RcRequester.BUDGET;
    /** The largest message (IBTA; rxe's check_length): longer READs and WRITEs are invalid requests. */
    static final long MAX_MESSAGE = 1L << 31;
    private final Engine engine;
    private final long[] original = new long[1];

    RcResponder(Engine engine) {
        this.engine = engine;
    }

    void onRequest(Qp qp, RocePacket pkt) {
        ResponderState r = qp.resp;
        int psn = pkt.bth().psn();
        int opcode = pkt.bth().opcode();
        int d = Psn.diff(psn, r.ePsn);
        if (d > 0) {
            engine.counters.inc(TransportCounters.OUT_OF_SEQ_REQUEST);
            if (r.pendingReplies > 0) {
                engine.counters.inc(TransportCounters.BEHIND_REPLIES);
                r.nakAfterReplies = true; // a NAK now would overtake the pending replies
            } else if (!r.seqNakSent) {
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
        if (!sequenceOk(r, opcode) || !allowedOnQp(qp, opcode, pkt)) {
            // rxe check_op_seq / check_op_valid: missing FIRST/LAST, or an operation the QP does
            // not enable (class C, invalid request)
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
        } else if (OpcodeTable.has(opcode, OpcodeTable.ATOMIC_WRITE)) {
            onAtomicWrite(qp, pkt, psn);
        } else if (OpcodeTable.has(opcode, OpcodeTable.FLUSH)) {
            onFlush(qp, pkt, psn);
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

    /**
     * rxe check_op_valid: RDMA READ, WRITE (and ATOMIC_WRITE) and atomics only where the QP's
     * access flags allow them; FLUSH where they allow its placement type (check_qp_attr_access).
     */
    private static boolean allowedOnQp(Qp qp, int opcode, RocePacket pkt) {
        if (OpcodeTable.has(opcode, OpcodeTable.FLUSH)) {
            int type = pkt.feth().placementType();
            int flush = ((type & dev.jrxe.wire.Feth.PLT_GLOBAL_VISIBILITY) != 0 ? Access.FLUSH_GLOBAL : 0)
                | ((type & dev.jrxe.wire.Feth.PLT_PERSISTENCE) != 0 ? Access.FLUSH_PERSISTENT : 0);
            return (qp.accessFlags & flush) == flush;
        }
        int need = OpcodeTable.has(opcode, OpcodeTable.READ) ? Access.REMOTE_READ
            : OpcodeTable.has(opcode, OpcodeTable.WRITE) || OpcodeTable.has(opcode, OpcodeTable.ATOMIC_WRITE)
            ? Access.REMOTE_WRITE
            : OpcodeTable.has(opcode, OpcodeTable.ATOMIC) ? Access.REMOTE_ATOMIC : 0;
        return (qp.accessFlags & need) == need;
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
        if (last && OpcodeTable.has(opcode, OpcodeTable.INVALIDATE) && r.pendingReplies > 0) {
            // the invalidation could pull a window from under an earlier READ still being
            // answered: like an RNR behind replies, dropped, and a PSN-sequence NAK after them
            // (the requester sends it again): before anything of the packet is taken or placed
            engine.counters.inc(TransportCounters.BEHIND_REPLIES);
            r.nakAfterReplies = true;
            return;
        }
        if (first) {
            RecvWqe taken = r.takeRecvWqe(qp);
            if (taken == null) {
                rnr(qp, psn);
                return;
            }
            r.recvWqe = taken;
            r.recvOffset = 0;
            r.inProgress = ResponderState.IN_SEND;
        }
        RecvWqe w = r.recvWqe;
        if (r.recvOffset + len > MAX_MESSAGE) {
            // longer than the largest message (a WC's byte_len could not say it)
            Completions.recv(qp, w, WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, r.recvOffset, 0, 0, 0, true);
            r.recvWqe = null;
            classC(qp, Aeth.NAK_INVALID_REQ, -1, psn, AsyncEventType.QP_REQ_ERR);
            return;
        }
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
        if (last && OpcodeTable.has(opcode, OpcodeTable.INVALIDATE)
            && !invalidate(qp, pkt.ieth().rkey(), psn, pkt.bth().ackReq())) {
            return;
        }
        r.ePsn = Psn.add(psn, 1);
        r.ackablePsn = r.ePsn;
        if (last) {
            boolean imm = OpcodeTable.has(opcode, OpcodeTable.IMMEDIATE);
            boolean inv = OpcodeTable.has(opcode, OpcodeTable.INVALIDATE);
            int immData = imm ? pkt.immDt().immediate() : 0;
            int invRkey = inv ? pkt.ieth().rkey() : 0;
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

    /**
     * SEND_WITH_INV: invalidates the key the sender names, if that key may be invalidated by a
     * peer in this QP's PD. A registered MR may not (only memory windows and keys made for it
     * may): then, as rxe's class J, the message is acknowledged, its receive completes with
     * REM_INV_REQ_ERR, the key stays as it was and the QP goes to the error state. Returns
     * whether the invalidation happened.
     */
    private boolean invalidate(Qp qp, int rkey, int psn, boolean ackReq) {
        MemoryKey k = remoteKey(qp, rkey);
        int st = k == null ? MemStatus.INVALID_KEY : k.invalidateRemotely(qp.pdHandle);
        if (st == MemStatus.OK) {
            return true;
        }
        ResponderState r = qp.resp;
        Completions.recv(qp, r.recvWqe, WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, 0, 0, 0, 0, true);
        r.recvWqe = null;
        r.inProgress = 0;
        if (ackReq) {
            flushAck(qp);
            engine.out.ack(qp, Aeth.ACK, psn, r.msn);
        }
        engine.fail(qp, -1);
        return false;
    }

    /**
     * No receive WQE for {@code psn}: an RNR NAK (class B), or, while READ replies are pending
     * (an RNR NAK would overtake them), a drop and a PSN-sequence NAK after them.
     */
    private void rnr(Qp qp, int psn) {
        ResponderState r = qp.resp;
        if (r.pendingReplies > 0) {
            engine.counters.inc(TransportCounters.BEHIND_REPLIES);
            r.nakAfterReplies = true;
            return;
        }
        engine.counters.inc(TransportCounters.SEND_RNR_ERR);
        flushAck(qp);
        engine.out.ack(qp, Aeth.rnrNak(qp.minRnrTimer), psn, r.msn);
        JfrEvents.nak(qp, true, psn, Aeth.rnrNak(qp.minRnrTimer));
    }

    static boolean payloadSizeOk(Qp qp, boolean last, int len) {
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
                rnr(qp, psn);
                return;
            }
        }
        if (first) {
            Reth reth = pkt.reth();
            long va = reth.va();
            long dmaLen = Integer.toUnsignedLong(reth.dmaLength());
            if (dmaLen > MAX_MESSAGE) {
                classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
                return;
            }
            MemoryKey key = null;
            if (dmaLen > 0) {
                // rxe: a zero-length WRITE needs no key; any other is checked over its whole range
                key = remoteKey(qp, reth.rkey());
                int st = key == null ? MemStatus.INVALID_KEY : key.check(qp.pdHandle, Access.REMOTE_WRITE, va, dmaLen);
                if (st != MemStatus.OK) {
                    keyError(qp, st, psn);
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
            int st = r.writeKey.write(qp.pdHandle, Access.REMOTE_WRITE, r.writeVa + off, pkt.segment(),
                pkt.payloadOffset(), len);
            if (st != MemStatus.OK) {
                keyError(qp, st, psn);
                return;
            }
        }
        r.writeRemaining -= len;
        r.ePsn = Psn.add(psn, 1);
        r.ackablePsn = r.ePsn;
        if (last) {
            r.msn = (r.msn + 1) & 0xFFFFFF;
            r.inProgress = 0;
            r.writeKey = null;
            if (imm) {
                Completions.recv(qp, r.takeRecvWqe(qp), WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, r.writeLength,
                    Completions.recvFlags(true, false), pkt.immDt().immediate(), 0, pkt.bth().solicited());
            }
        }
        if (pkt.bth().ackReq()) {
            deferAck(qp, psn, imm && last);
        }
    }

    // ---------------------------------------------------------------- READ and ATOMIC requests

    private void onRead(Qp qp, RocePacket pkt, int psn) {
        ResponderState r = qp.resp;
        Reth reth = pkt.reth();
        long len = Integer.toUnsignedLong(reth.dmaLength());
        ResponderState.Resource res = len > MAX_MESSAGE ? null : r.newResource();
        if (res == null) {
            // longer than a message, max_dest_rd_atomic 0, or more READs/atomics outstanding than
            // it allows (rxe: ERR_LENGTH, ERR_TOO_MANY_RDMA_ATM_REQ: class C, invalid request)
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
            return;
        }
        int packets = (int) Math.max(1, (len + qp.pathMtu - 1) / qp.pathMtu);
        res.kind = ResponderState.Resource.READ;
        res.firstPsn = psn;
        res.lastPsn = Psn.add(psn, packets - 1);
        res.va = reth.va();
        res.rkey = reth.rkey();
        res.length = len;
        res.cursor(psn, res.va, len);
        // C9-148 counts a READ when it is executed; its responses may go out after later requests
        // have executed, so it takes its MSN now: MSNs stay in PSN order on the wire
        r.msn = (r.msn + 1) & 0xFFFFFF;
        res.msn = r.msn;
        r.ePsn = Psn.add(psn, packets);
        ackBeforeReplies(qp);
        r.enqueue(res);
        serve(qp);
    }

    private void onAtomic(Qp qp, RocePacket pkt, int opcode, int psn) {
        ResponderState r = qp.resp;
        ResponderState.Resource res = newResourceOrFail(qp, psn);
        if (res == null) {
            return;
        }
        AtomicEth a = pkt.atomicEth();
        res.kind = ResponderState.Resource.ATOMIC;
        res.firstPsn = psn;
        res.lastPsn = psn;
        res.opcode = opcode;
        res.va = a.va();
        res.rkey = a.rkey();
        res.compare = a.compare();
        res.swapAdd = a.swapAdd();
        // executed on arrival, in PSN order with the WRITEs and ATOMIC_WRITEs around it (as rxe);
        // only its acknowledgement waits its turn among the replies
        if (!executeAtomic(qp, res)) {
            return;
        }
        r.ePsn = Psn.add(psn, 1);
        r.ackablePsn = r.ePsn;
        ackBeforeReplies(qp);
        r.enqueue(res);
        serve(qp);
    }

    // ---------------------------------------------------------------- ATOMIC_WRITE and FLUSH (IBTA 1.5)

    /**
     * ATOMIC_WRITE: 8 bytes stored at once (rxe_mr_do_atomic_write) under REMOTE_WRITE, 8-byte
     * aligned (else invalid request, as a misaligned atomic). Executed on arrival, in PSN order
     * with the WRITEs around it; the response (an empty READ response) waits its turn among the
     * replies. A duplicate gets the response again, never a second store.
     */
    private void onAtomicWrite(Qp qp, RocePacket pkt, int psn) {
        ResponderState r = qp.resp;
        Reth reth = pkt.reth();
        if (reth.dmaLength() != 8 || pkt.payloadLength() != 8) {
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
            return;
        }
        ResponderState.Resource res = newResourceOrFail(qp, psn);
        if (res == null) {
            return;
        }
        long va = reth.va();
        MemoryKey key = remoteKey(qp, reth.rkey());
        int st = key == null ? MemStatus.INVALID_KEY : key.check(qp.pdHandle, Access.REMOTE_WRITE, va, 8);
        if (st == MemStatus.OK && (va & 7) != 0) {
            st = MemStatus.MISALIGNED;
        }
        if (st == MemStatus.OK) {
            long value = pkt.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, pkt.payloadOffset());
            st = key.atomicWrite(qp.pdHandle, Access.REMOTE_WRITE, va, value);
        }
        if (st != MemStatus.OK) {
            keyError(qp, st, psn);
            return;
        }
        executedEmpty(qp, res, psn, va, reth.rkey());
    }

    /**
     * FLUSH: the placement type names the access the key must grant (FLUSH_GLOBAL,
     * FLUSH_PERSISTENT; missing: remote access error, as rxe); level RANGE flushes the RETH's
     * range, level MR the whole key (rxe checks no range then). Every earlier WRITE, atomic and
     * ATOMIC_WRITE of the QP has been executed when it runs (all execute on arrival, in PSN
     * order), so their data is visible (GLOBAL: a fence) or written back to the file behind the
     * region (PERSISTENT: msync) before the response leaves. (An earlier READ's data may still be
     * on its way out: the FLUSH makes nothing of it.) Nothing is faulted in: a FLUSH of a huge
     * ODP range costs the kernel's walk of its dirty pages at most.
     */
    private void onFlush(Qp qp, RocePacket pkt, int psn) {
        ResponderState r = qp.resp;
        int type = pkt.feth().placementType();
        int level = pkt.feth().selectivityLevel();
        int need = ((type & dev.jrxe.wire.Feth.PLT_GLOBAL_VISIBILITY) != 0 ? Access.FLUSH_GLOBAL : 0)
            | ((type & dev.jrxe.wire.Feth.PLT_PERSISTENCE) != 0 ? Access.FLUSH_PERSISTENT : 0);
        if (need == 0 || (type & ~3) != 0 || level > dev.jrxe.wire.Feth.SEL_MR
            || Integer.toUnsignedLong(pkt.reth().dmaLength()) > MAX_MESSAGE) {
            // unknown placement or level, or longer than a message (rxe's check_length)
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
            return;
        }
        ResponderState.Resource res = newResourceOrFail(qp, psn);
        if (res == null) {
            return;
        }
        Reth reth = pkt.reth();
        long va = reth.va();
        long len = Integer.toUnsignedLong(reth.dmaLength());
        MemoryKey key = remoteKey(qp, reth.rkey());
        int st = key == null ? MemStatus.INVALID_KEY
            : level == dev.jrxe.wire.Feth.SEL_MR ? key.flushRegion(qp.pdHandle, need)
            : key.flush(qp.pdHandle, need, va, len);
        if (st != MemStatus.OK) {
            keyError(qp, st, psn);
            return;
        }
        executedEmpty(qp, res, psn, va, reth.rkey());
    }

    /** An ATOMIC_WRITE or FLUSH was executed: its response joins the replies. */
    private void executedEmpty(Qp qp, ResponderState.Resource res, int psn, long va, int rkey) {
        ResponderState r = qp.resp;
        res.kind = ResponderState.Resource.EMPTY;
        res.firstPsn = psn;
        res.lastPsn = psn;
        res.va = va;
        res.rkey = rkey;
        res.executed = true;
        r.msn = (r.msn + 1) & 0xFFFFFF;
        res.msn = r.msn;
        r.ePsn = Psn.add(psn, 1);
        r.ackablePsn = r.ePsn;
        ackBeforeReplies(qp);
        r.enqueue(res);
        serve(qp);
    }

    /** The response of an ATOMIC_WRITE or FLUSH: RDMA READ RESPONSE ONLY without payload (rxe). */
    private int sendEmptyResponse(Qp qp, ResponderState.Resource res) {
        PacketOut out = engine.out;
        out.begin(qp, Opcodes.RC_RDMA_READ_RESPONSE_ONLY, res.firstPsn, false, false, 0);
        out.aeth().syndrome(Aeth.ACK).msn(res.msn);
        out.commit();
        res.answered = true;
        qp.resp.done(res);
        return 1;
    }

    /**
     * A resource entry for a request that waits for a response, or null after a class C error:
     * max_dest_rd_atomic 0, or more such requests outstanding than it allows (rxe:
     * ERR_TOO_MANY_RDMA_ATM_REQ, an invalid request).
     */
    private ResponderState.Resource newResourceOrFail(Qp qp, int psn) {
        ResponderState.Resource res = qp.resp.newResource();
        if (res == null) {
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
        }
        return res;
    }

    // ---------------------------------------------------------------- replies

    /**
     * A READ or atomic joins the replies: an ACK owed for earlier requests goes first, unless
     * replies are already pending (then it is for a request after them, and waits for them).
     */
    private void ackBeforeReplies(Qp qp) {
        if (qp.resp.pendingReplies == 0) {
            flushAck(qp);
        }
    }

    /**
     * Sends pending replies from what is left of this duty cycle's budget (the engine renews it
     * after each cycle, see {@link #renewBudget}). Returns packets sent.
     */
    int serve(Qp qp) {
        ResponderState r = qp.resp;
        int sent = 0;
        while (r.pendingReplies > 0 && r.replyBudget > 0) {
            ResponderState.Resource res = r.oldestPending();
            int n = switch (res.kind) {
                case ResponderState.Resource.READ -> sendReadResponses(qp, res, r.replyBudget);
                case ResponderState.Resource.EMPTY -> sendEmptyResponse(qp, res);
                default -> answerAtomic(qp, res);
            };
            if (n < 0) {
                return sent; // the QP failed
            }
            sent += n;
            r.replyBudget -= n;
        }
        if (r.pendingReplies == 0 && qp.state != QpState.ERR) {
            // what had to wait for the replies
            flushAck(qp);
            if (r.nakAfterReplies) {
                r.nakAfterReplies = false;
                r.seqNakSent = true;
                engine.out.ack(qp, Aeth.NAK_PSN_SEQ_ERR, r.ePsn, r.msn);
                JfrEvents.nak(qp, true, r.ePsn, Aeth.NAK_PSN_SEQ_ERR);
            }
        }
        return sent;
    }

    /** A new duty cycle: the QP may send {@link #BUDGET} more replies. */
    static void renewBudget(Qp qp) {
        qp.resp.replyBudget = BUDGET;
    }

    /**
     * Sends up to {@code budget} responses of {@code res}'s range, reading each through a checked
     * access of the key. The whole range is checked first (rxe's check_rkey), so a READ beyond its
     * key gets a NAK and no data. Returns responses sent, or -1 when the QP failed.
     */
    private int sendReadResponses(Qp qp, ResponderState.Resource res, int budget) {
        ResponderState r = qp.resp;
        if (!res.checked) {
            // resolved once per pass: a window rebound meanwhile cannot lend this READ its new binding
            MemoryKey key = res.resid > 0 ? remoteKey(qp, res.rkey) : null;
            int st = res.resid == 0 ? MemStatus.OK
                : key == null ? MemStatus.INVALID_KEY : key.check(qp.pdHandle, Access.REMOTE_READ, res.curVa, res.resid);
            if (st != MemStatus.OK) {
                keyError(qp, st, res.curPsn);
                return -1;
            }
            res.key = key;
            res.checked = true;
        }
        MemoryKey key = res.key;
        int mtu = qp.pathMtu;
        PacketOut out = engine.out;
        int sent = 0;
        while (sent < budget) {
            int n = (int) Math.min(mtu, res.resid);
            boolean last = res.resid <= mtu;
            int opcode = res.opening
                ? (last ? Opcodes.RC_RDMA_READ_RESPONSE_ONLY : Opcodes.RC_RDMA_READ_RESPONSE_FIRST)
                : (last ? Opcodes.RC_RDMA_READ_RESPONSE_LAST : Opcodes.RC_RDMA_READ_RESPONSE_MIDDLE);
            MemorySegment buf = out.begin(qp, opcode, res.curPsn, false, false, n);
            if (OpcodeTable.has(opcode, OpcodeTable.HAS_AETH)) {
                out.aeth().syndrome(Aeth.ACK).msn(res.msn);
            }
            if (n > 0) {
                int st = key == null ? MemStatus.INVALID_KEY
                    : key.read(qp.pdHandle, Access.REMOTE_READ, res.curVa, buf, out.payloadOffset(), n);
                if (st != MemStatus.OK) {
                    // deregistered, rereg'd or unmapped under the READ: the claimed buffer is dropped
                    keyError(qp, st, res.curPsn);
                    return -1;
                }
            }
            out.commit();
            sent++;
            res.opening = false;
            res.curVa += n;
            res.resid -= n;
            res.curPsn = Psn.next(res.curPsn);
            if (last) {
                res.answered = true;
                res.key = null;
                r.done(res);
                break;
            }
        }
        return sent;
    }

    /** Executes an atomic once, keeping the original value for its (re)sent acknowledgement. */
    private boolean executeAtomic(Qp qp, ResponderState.Resource res) {
        ResponderState r = qp.resp;
        MemoryKey key = remoteKey(qp, res.rkey);
        int st = key == null ? MemStatus.INVALID_KEY : key.check(qp.pdHandle, Access.REMOTE_ATOMIC, res.va, 8);
        if (st == MemStatus.OK && (res.va & 7) != 0) {
            st = MemStatus.MISALIGNED;
        }
        if (st == MemStatus.OK) {
            st = res.opcode == Opcodes.RC_COMPARE_SWAP
                ? key.compareAndSwap(qp.pdHandle, Access.REMOTE_ATOMIC, res.va, res.compare, res.swapAdd, original)
                : key.fetchAndAdd(qp.pdHandle, Access.REMOTE_ATOMIC, res.va, res.swapAdd, original);
        }
        if (st != MemStatus.OK) {
            keyError(qp, st, res.firstPsn);
            return false;
        }
        res.original = original[0];
        res.executed = true;
        r.msn = (r.msn + 1) & 0xFFFFFF;
        res.msn = r.msn;
        return true;
    }

    /** Sends an executed atomic's acknowledgement. Returns 1. */
    private int answerAtomic(Qp qp, ResponderState.Resource res) {
        ResponderState r = qp.resp;
        PacketOut out = engine.out;
        out.begin(qp, Opcodes.RC_ATOMIC_ACKNOWLEDGE, res.firstPsn, false, false, 0);
        out.aeth().syndrome(Aeth.ACK).msn(res.msn);
        out.atomicAck().originalData(res.original);
        out.commit();
        res.answered = true;
        r.done(res);
        return 1;
    }

    // ---------------------------------------------------------------- duplicates

    private void duplicate(Qp qp, RocePacket pkt, int opcode, int psn) {
        ResponderState r = qp.resp;
        if (OpcodeTable.has(opcode, OpcodeTable.READ)) {
            ResponderState.Resource res = r.find(psn, ResponderState.Resource.READ);
            Reth reth = pkt.reth();
            long va = reth.va();
            long len = Integer.toUnsignedLong(reth.dmaLength());
            if (res == null || !insideOriginal(qp, res, psn, reth.rkey(), va, len)) {
                engine.counters.inc(TransportCounters.DUPLICATE_DROPPED); // class D: dropped
                return;
            }
            res.cursor(psn, va, len);
            replay(qp, res);
            return;
        }
        if (OpcodeTable.has(opcode, OpcodeTable.ATOMIC)) {
            ResponderState.Resource res = r.find(psn, ResponderState.Resource.ATOMIC);
            if (res == null || res.firstPsn != psn) {
                engine.counters.inc(TransportCounters.DUPLICATE_DROPPED);
                return;
            }
            if (res.executed) {
                replay(qp, res);
            }
            return; // not executed yet: its acknowledgement is still to come
        }
        if (OpcodeTable.has(opcode, OpcodeTable.ATOMIC_WRITE) || OpcodeTable.has(opcode, OpcodeTable.FLUSH)) {
            ResponderState.Resource res = r.find(psn, ResponderState.Resource.EMPTY);
            if (res == null || res.firstPsn != psn) {
                engine.counters.inc(TransportCounters.DUPLICATE_DROPPED);
                return;
            }
            replay(qp, res); // the response again, never a second execution
            return;
        }
        // SEND / WRITE already executed: acknowledge again up to the last one (C9-105); with
        // replies pending the ACK waits for them (the engine sends no ACK ahead of replies)
        deferAck(qp, Psn.add(r.ackablePsn, -1), false);
    }

    /**
     * Whether a duplicate READ asks for responses the original request covers: same key, a range
     * inside the original one, responses inside its PSNs (rxe's duplicate_request, with the
     * original range kept as it was, not moved to each duplicate's).
     */
    private static boolean insideOriginal(Qp qp, ResponderState.Resource res, int psn, int rkey, long va, long len) {
        if (rkey != res.rkey) {
            return false;
        }
        long offset = va - res.va;
        if (Long.compareUnsigned(offset, res.length) > 0 || Long.compareUnsigned(len, res.length - offset) > 0) {
            return false;
        }
        int packets = (int) Math.max(1, (len + qp.pathMtu - 1) / qp.pathMtu);
        return Psn.diff(Psn.add(psn, packets - 1), res.lastPsn) <= 0;
    }

    /** Queues the replies of {@code res} again, after the ACK of what came before it. */
    private void replay(Qp qp, ResponderState.Resource res) {
        ResponderState r = qp.resp;
        if (r.pendingReplies == 0 && r.ackPending && Psn.diff(r.ackPsn, res.firstPsn) < 0) {
            flushAck(qp); // an owed ACK for later requests waits until the replies are out
        }
        r.enqueue(res);
        serve(qp);
    }

    /**
     * The key a request of this QP reaches under {@code rkey}: a region, or the current binding of
     * a memory window bound for this QP (null: none).
     */
    private MemoryKey remoteKey(Qp qp, int rkey) {
        MemoryKey k = engine.keys.lookup(rkey);
        return k == null ? null : k.forRemote(qp.token);
    }

    // ---------------------------------------------------------------- ACK / NAK

    /**
     * Owes an ACK for {@code psn}; the engine sends it at the end of the receive batch, one ACK
     * for the batch, unless {@link AckHold} keeps it a little longer. {@code holdable}: the packet
     * completed a receive (any other owed ACK in the same batch makes it go at once).
     */
    private void deferAck(Qp qp, int psn, boolean holdable) {
        if (qp.state == QpState.ERR) {
            return; // failed while executing (a CQ overflow): nothing is acknowledged
        }
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
        r.hold.sent();
        engine.out.ack(qp, Aeth.ACK, r.ackPsn, r.msn);
    }

    private void nak(Qp qp, int syndrome, int psn) {
        flushAck(qp);
        engine.out.ack(qp, syndrome, psn, qp.resp.msn);
        JfrEvents.nak(qp, true, psn, syndrome);
    }

    /**
     * A remote access its key refused: counted under the reason, then a NAK (remote access error;
     * invalid request for a misaligned atomic, as rxe) and the QP to the error state.
     */
    private void keyError(Qp qp, int st, int psn) {
        engine.counters.inc(keyCounter(st));
        if (st == MemStatus.MISALIGNED) {
            classC(qp, Aeth.NAK_INVALID_REQ, WcStatus.REM_INV_REQ_ERR, psn, AsyncEventType.QP_REQ_ERR);
        } else {
            classC(qp, Aeth.NAK_REMOTE_ACCESS, WcStatus.REM_ACCESS_ERR, psn, AsyncEventType.QP_ACCESS_ERR);
        }
    }

    /** The counter of a key refusal with status {@code st} ({@link MemStatus}). */
    static int keyCounter(int st) {
        return switch (st) {
            case MemStatus.PD_MISMATCH -> TransportCounters.RKEY_WRONG_PD;
            case MemStatus.ACCESS_DENIED -> TransportCounters.RKEY_NO_ACCESS;
            case MemStatus.OUT_OF_RANGE -> TransportCounters.RKEY_OUT_OF_RANGE;
            case MemStatus.INVALID_STATE -> TransportCounters.RKEY_INVALID_STATE;
            case MemStatus.FAULT -> TransportCounters.RKEY_FAULT;
            case MemStatus.MISALIGNED -> TransportCounters.MISALIGNED_ATOMIC;
            default -> TransportCounters.RKEY_INVALID;
        };
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
        engine.counters.inc(switch (syndrome) {
            case Aeth.NAK_INVALID_REQ -> TransportCounters.NAK_INVALID_REQUEST_SENT;
            case Aeth.NAK_REMOTE_ACCESS -> TransportCounters.NAK_REMOTE_ACCESS_SENT;
            default -> TransportCounters.NAK_REMOTE_OP_SENT;
        });
        nak(qp, syndrome, psn);
        if (r.recvWqe != null && recvStatus >= 0) {
            Completions.recv(qp, r.recvWqe, recvStatus, WcOpcode.RECV, r.recvOffset, 0, 0, 0, true);
            r.recvWqe = null;
        }
        r.inProgress = 0;
        engine.fail(qp, event);
    }
}
