package dev.jrxe.transport;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.Psn;
import java.lang.foreign.MemorySegment;

/**
 * UD requester (rxe_req.c for IB_QPT_UD): each SEND or SEND_WITH_IMM is one SEND_ONLY packet with
 * a DETH (the Q_Key, the sending QPN) to the address, QPN and Q_Key its work request names. A
 * Q_Key with the high bit set means "the QP's own Q_Key" (IBTA 10.2.5). AckReq is never set,
 * except on QP1 (GSI), where rxe sets it (the captures show it; receivers ignore it). A message
 * longer than the port MTU completes with a local length error, sends nothing and leaves the QP
 * running (rxe reports success without sending, as C10-93.1.1 allows; an error tells the
 * application why nothing arrived). Any other local error (an lkey refused) completes with it and
 * moves the QP to ERR. A send completes when its packet has been handed to the link.
 */
final class UdRequester {
    /** The well-known Q_Key of QP1 (IBTA 13.4.6.2): what GSI MADs carry. */
    static final int GSI_QKEY = 0x80010000;
    private final Engine engine;

    UdRequester(Engine engine) {
        this.engine = engine;
    }

    /** Sends what the QP may send now; returns packets sent. */
    int run(Qp qp) {
        if (Completions.flushIfInError(qp)) {
            return 0;
        }
        int state = qp.state;
        if (state != QpState.RTS || qp.requesterHalted) {
            return 0; // in SQD nothing is under way: a datagram is sent whole or not started
        }
        SendQueue sq = qp.sq;
        int sent = 0;
        while (sent < RcRequester.BUDGET && sq.next < sq.producer()) {
            SendWqe w = sq.at(sq.next);
            int status = send(qp, w);
            qp.sq.next++;
            Completions.send(qp, w, status);
            if (status == WcStatus.LOC_LEN_ERR) {
                continue; // nothing was sent; the QP goes on (its other peers keep their service)
            }
            if (status != WcStatus.SUCCESS) {
                qp.requesterHalted = true;
                engine.fail(qp, -1);
                break;
            }
            sent++;
        }
        return sent;
    }

    /** Builds and queues the one packet of {@code w}; returns its completion status. */
    private int send(Qp qp, SendWqe w) {
        w.state = SendWqe.PROCESSING;
        if (w.length > qp.pathMtu) {
            return WcStatus.LOC_LEN_ERR;
        }
        int n = (int) w.length;
        if (!w.inlined && Sgl.check(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, 0)
            != MemStatus.OK) {
            return WcStatus.LOC_PROT_ERR;
        }
        boolean imm = w.opcode == WrOpcode.SEND_WITH_IMM;
        boolean gsi = qp.qpn == 1;
        PacketOut out = engine.out;
        MemorySegment buf = out.beginDatagram(qp, imm ? Opcodes.UD_SEND_ONLY_WITH_IMMEDIATE : Opcodes.UD_SEND_ONLY,
            w.udDestQpn, Psn.of(qp.psn), gsi, (w.sendFlags & SendFlags.SOLICITED) != 0, n);
        int qkey = gsi ? GSI_QKEY : w.udQkey < 0 ? qp.qkey : w.udQkey;
        out.deth().qkey(qkey).srcQp(qp.qpn);
        if (imm) {
            out.immDt().immediate(w.immData);
        }
        if (n > 0) {
            if (w.inlined) {
                MemorySegment.copy(w.inline, 0, buf, out.payloadOffset(), n);
            } else if (Sgl.gather(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, 0, buf,
                out.payloadOffset(), n) != MemStatus.OK) {
                return WcStatus.LOC_PROT_ERR; // the claimed buffer is simply not committed
            }
        }
        out.commitTo(w.udDestAddr, qp.destPort);
        qp.psn++;
        engine.counters.inc(TransportCounters.RDMA_SENDS);
        return WcStatus.SUCCESS;
    }

    /** SQD on UD: nothing is ever half sent, so the queue is drained at once. */
    void checkDrained(Qp qp) {
        if (qp.state == QpState.SQD) {
            qp.sqDraining = false;
            if (qp.sqDrainNotify) {
                engine.events.qpEvent(qp, AsyncEventType.SQ_DRAINED);
            }
        }
    }
}
