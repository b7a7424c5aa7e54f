package dev.jrxe.transport;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.wire.Psn;

/**
 * UC requester (rxe_req.c for IB_QPT_UC): SEND, SEND_WITH_IMM, RDMA WRITE and WRITE_WITH_IMM cut
 * at the path MTU like RC's, one PSN per packet, AckReq never set (as the captures show), no
 * timer, no retransmission. A message completes as soon as its last packet has been handed to
 * the link: UC has no acknowledgement to wait for, so its send completion says "sent", never
 * "delivered". Local operations (bind, invalidate) execute in send-queue order. In SQD the
 * message under way is finished and no new one starts.
 */
final class UcRequester {
    private final Engine engine;

    UcRequester(Engine engine) {
        this.engine = engine;
    }

    /** Sends what the QP may send now; returns packets sent. */
    int run(Qp qp) {
        if (Completions.flushIfInError(qp)) {
            return 0;
        }
        int state = qp.state;
        boolean draining = state == QpState.SQD;
        if ((state != QpState.RTS && !draining) || qp.requesterHalted) {
            return 0;
        }
        SendQueue sq = qp.sq;
        int sent = 0;
        while (sent < RcRequester.BUDGET && sq.next < sq.producer()) {
            SendWqe w = sq.at(sq.next);
            if (w.state == SendWqe.POSTED) {
                if (draining) {
                    break;
                }
                int status = start(qp, w);
                if (status != WcStatus.SUCCESS) {
                    fail(qp, w, status);
                    break;
                }
                if (LocalOps.isLocal(w.opcode)) {
                    complete(qp, w);
                    continue;
                }
            }
            int n = MessageSegments.nextLength(w, qp.pathMtu);
            boolean last = w.offset + n >= w.length;
            int opcode = RcRequester.opcodeFor(w.opcode, w.offset == 0, last) + MessageSegments.UC_OFFSET;
            if (MessageSegments.build(engine, qp, w, opcode, Psn.of(qp.psn), false, n, false) != MemStatus.OK) {
                fail(qp, w, WcStatus.LOC_PROT_ERR); // local memory went bad mid-message
                break;
            }
            engine.out.commit();
            qp.psn++;
            w.offset += n;
            sent++;
            if (last) {
                engine.counters.inc(TransportCounters.RDMA_SENDS);
                complete(qp, w);
            }
        }
        return sent;
    }

    /** A fresh WQE: local operations execute, messages get their lkeys checked. Returns a status. */
    private int start(Qp qp, SendWqe w) {
        w.offset = 0;
        w.status = WcStatus.SUCCESS;
        w.state = SendWqe.PROCESSING;
        w.firstPsn = qp.psn;
        if (LocalOps.isLocal(w.opcode)) {
            return LocalOps.execute(engine.keys, qp, w);
        }
        if (!w.inlined && Sgl.check(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, 0)
            != MemStatus.OK) {
            return WcStatus.LOC_PROT_ERR;
        }
        return WcStatus.SUCCESS;
    }

    /** The head WQE is done: its completion (when signaled) and its slot back. */
    private void complete(Qp qp, SendWqe w) {
        qp.sq.next++;
        Completions.send(qp, w, WcStatus.SUCCESS);
    }

    /** The head WQE failed locally: it completes with {@code status}, the QP goes to ERR. */
    private void fail(Qp qp, SendWqe w, int status) {
        qp.sq.next++;
        qp.requesterHalted = true;
        Completions.send(qp, w, status);
        engine.fail(qp, -1);
    }

    /** SQD: once the message under way has gone, IBV_EVENT_SQ_DRAINED (when asked for). */
    void checkDrained(Qp qp) {
        SendQueue sq = qp.sq;
        if (qp.state == QpState.SQD && sq.consumer() == sq.next) {
            qp.sqDraining = false;
            if (qp.sqDrainNotify) {
                engine.events.qpEvent(qp, AsyncEventType.SQ_DRAINED);
            }
        }
    }
}
