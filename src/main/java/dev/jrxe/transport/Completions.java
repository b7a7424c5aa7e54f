package dev.jrxe.transport;

import dev.jrxe.ib.WcFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;

/** Posts work completions to a QP's completion rings. Engine thread only. */
final class Completions {
    private Completions() {
    }

    /**
     * Completes the oldest send WQE (which must be {@code wqe}) and frees its slot. Successful
     * unsignaled WQEs produce no entry; errors always do.
     */
    static void send(Qp qp, SendWqe wqe, int status) {
        wqe.state = SendWqe.DONE;
        if (status != WcStatus.SUCCESS || wqe.signaled(qp.sqSigAll)) {
            Cqe e = qp.sendCq.claim();
            if (e != null) {
                e.wrId = wqe.wrId;
                e.status = status;
                e.opcode = WcOpcode.forWr(wqe.opcode);
                e.qpNum = qp.qpn;
                e.timestamp = qp.engine.now;
                if (status == WcStatus.SUCCESS && wqe.opcode == dev.jrxe.ib.WrOpcode.RDMA_READ) {
                    e.byteLen = (int) wqe.length;
                } else if (status == WcStatus.SUCCESS && (dev.jrxe.ib.WrOpcode.isAtomic(wqe.opcode)
                    || wqe.opcode == dev.jrxe.ib.WrOpcode.ATOMIC_WRITE)) {
                    e.byteLen = 8;
                } else if (status == WcStatus.SUCCESS && wqe.opcode == dev.jrxe.ib.WrOpcode.FLUSH) {
                    e.byteLen = (int) wqe.length; // rxe: the flush length
                }
                // free the slot before the completion becomes visible: an application that sees
                // it may post again at once and must find room (rxe frees, then posts)
                qp.sq.retire();
                qp.sendCq.commit(status != WcStatus.SUCCESS);
                return;
            }
            if (qp.state != dev.jrxe.ib.QpState.ERR) {
                qp.sq.retire();
                qp.engine.fatal(qp);
                return;
            }
        }
        qp.sq.retire();
    }

    /**
     * Completes a send WQE that need not be the oldest (SRD resolves requests in any order): its
     * entry is posted now; slots are freed in ring order, each once it and all older ones are done.
     */
    static void sendUnordered(Qp qp, SendWqe wqe, int status) {
        wqe.state = SendWqe.DONE;
        Cqe e = null;
        if (status != WcStatus.SUCCESS || wqe.signaled(qp.sqSigAll)) {
            e = qp.sendCq.claim();
            if (e == null) {
                retireDone(qp.sq);
                if (qp.state != dev.jrxe.ib.QpState.ERR) {
                    qp.engine.fatal(qp);
                }
                return;
            }
            e.wrId = wqe.wrId;
            e.status = status;
            e.opcode = WcOpcode.forWr(wqe.opcode);
            e.qpNum = qp.qpn;
            e.timestamp = qp.engine.now;
            e.byteLen = status == WcStatus.SUCCESS && wqe.opcode == dev.jrxe.ib.WrOpcode.RDMA_READ ? (int) wqe.length : 0;
        }
        retireDone(qp.sq);
        if (e != null) {
            qp.sendCq.commit(status != WcStatus.SUCCESS);
        }
    }

    private static void retireDone(SendQueue sq) {
        while (sq.consumer() < sq.producer() && sq.at(sq.consumer()).state == SendWqe.DONE) {
            sq.retire();
        }
    }

    /** Completes a receive WQE that the responder has taken off its queue. */
    static void recv(Qp qp, RecvWqe wqe, int status, int opcode, long byteLen, int flags, int imm, int invRkey,
                     boolean solicited) {
        post(qp, wqe, status, opcode, byteLen, flags, imm, invRkey, qp.destQpn, solicited);
    }

    /**
     * Completes a datagram QP's receive WQE (UD, SRD; null for an unsolicited SRD WRITE_WITH_IMM):
     * {@code srcQp} is the sender's QPN from the DETH (a datagram QP has no connected peer); a UD
     * {@code byteLen} counts the 40-byte GRH area, an SRD one has none.
     */
    static void recvDatagram(Qp qp, RecvWqe wqe, int status, int opcode, long byteLen, int flags, int imm, int srcQp,
                             boolean solicited) {
        post(qp, wqe, status, opcode, byteLen, flags, imm, 0, srcQp, solicited);
    }

    private static void post(Qp qp, RecvWqe wqe, int status, int opcode, long byteLen, int flags, int imm,
                             int invRkey, int srcQp, boolean solicited) {
        Cqe e = qp.recvCq.claim();
        if (e == null) {
            if (qp.state != dev.jrxe.ib.QpState.ERR) {
                qp.engine.fatal(qp);
            }
            return;
        }
        e.wrId = wqe == null ? 0 : wqe.wrId; // null: an unsolicited SRD WRITE_WITH_IMM
        e.status = status;
        e.opcode = opcode;
        e.qpNum = qp.qpn;
        e.timestamp = qp.engine.now;
        e.srcQp = srcQp;
        e.byteLen = (int) byteLen;
        e.wcFlags = flags;
        e.immData = imm;
        e.invalidatedRkey = invRkey;
        qp.recvCq.commit(solicited || status != WcStatus.SUCCESS);
    }

    /**
     * A requester's first step: in ERR, whatever was posted since (work requests are accepted in
     * ERR, to be flushed) completes with WR_FLUSH_ERR. Returns whether the QP is in ERR.
     */
    static boolean flushIfInError(Qp qp) {
        if (qp.state != dev.jrxe.ib.QpState.ERR) {
            return false;
        }
        if (qp.sq.outstanding() > 0 || (qp.rq != null && qp.rq.depth() > 0)) {
            flushAll(qp);
        }
        return true;
    }

    /** QP went to ERR: every outstanding send and own-receive WQE completes with WR_FLUSH_ERR. */
    static void flushAll(Qp qp) {
        SendQueue sq = qp.sq;
        while (sq.consumer() < sq.producer()) {
            SendWqe w = sq.at(sq.consumer());
            if (w.state == SendWqe.DONE) {
                sq.retire(); // completed out of order (SRD) before the flush
                continue;
            }
            send(qp, w, WcStatus.WR_FLUSH_ERR);
        }
        if (qp.srd != null) {
            qp.srd.reset();
        }
        sq.next = sq.consumer();
        qp.rdAtomicInFlight = 0;
        qp.retransmitDeadline = 0;
        qp.rnrWaiting = false;
        ResponderState r = qp.resp;
        if (r.recvWqe != null) {
            // taken off its queue when the message began; it completes like the rest
            recv(qp, r.recvWqe, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, true);
            r.recvWqe = null;
            r.inProgress = 0;
        }
        if (qp.rq != null) {
            RecvQueue rq = qp.rq;
            RecvWqe w;
            while ((w = rq.peek()) != null) {
                recv(qp, w, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, true);
                rq.pop();
            }
        }
    }

    static int recvFlags(boolean imm, boolean inv) {
        return (imm ? WcFlags.WITH_IMM : 0) | (inv ? WcFlags.WITH_INV : 0);
    }
}
