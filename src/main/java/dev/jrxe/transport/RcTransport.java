package dev.jrxe.transport;

import dev.jrxe.ib.QpState;
import dev.jrxe.net.DropReason;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.RocePacket;

/**
 * Reliable connection: {@link RcRequester}, {@link RcResponder} and {@link RcCompleter}. A packet
 * reaches them only from the QP's connected peer (rxe check_addr: the IPv4 source is the QP's
 * destination), with a P_Key of the QP's partition (check_keys), in a state to take it: requests
 * in RTR, RTS and SQD; responses in RTS and SQD.
 */
final class RcTransport extends Transport {
    RcTransport(Engine engine) {
        super(engine);
    }

    @Override
    int opcodeType() {
        return OpcodeTable.TYPE_RC;
    }

    @Override
    int send(Qp qp) {
        return engine.requester.run(qp);
    }

    /**
     * Timers first, so that what a timer rewinds to (an RNR wait over, an ACK timeout) leaves in
     * this cycle, not in the next one whenever that comes; then requests out, pending READ
     * responses, SQD drain.
     */
    @Override
    int serve(Qp qp) {
        engine.completer.checkTimers(qp);
        int work = engine.requester.run(qp);
        if (qp.resp.pendingReplies > 0) {
            work += engine.responder.serve(qp);
        }
        RcResponder.renewBudget(qp);
        if (qp.sqDraining) {
            engine.requester.checkDrained(qp);
        }
        return work;
    }

    @Override
    void onPacket(Qp qp, RocePacket pkt, int srcAddr, int dstAddr, int ipId) {
        boolean request = OpcodeTable.has(pkt.bth().opcode(), OpcodeTable.REQUEST);
        if (!Admission.connected(engine, qp, pkt, srcAddr, request)) {
            return;
        }
        if (request) {
            engine.responder.onRequest(qp, pkt);
        } else {
            engine.completer.onResponse(qp, pkt);
        }
    }

    @Override
    long nextDeadline(Qp qp) {
        if (qp.resp.pendingReplies > 0) {
            return engine.now; // READ responses to send: no sleeping
        }
        long d = Long.MAX_VALUE;
        if (qp.retransmitDeadline != 0) {
            d = qp.retransmitDeadline;
        }
        if (qp.rnrWaiting) {
            d = Math.min(d, qp.rnrDeadline);
        }
        return d;
    }

    /** The checks a packet of a connected QP (RC, UC) passes before its transport sees it. */
    static final class Admission {
        private Admission() {
        }

        static boolean connected(Engine engine, Qp qp, RocePacket pkt, int srcAddr, boolean request) {
            int s = qp.state;
            if (request ? !(s == QpState.RTR || s == QpState.RTS || s == QpState.SQD)
                : !(s == QpState.RTS || s == QpState.SQD)) {
                engine.link.counters().drop(DropReason.QP_STATE);
                return false;
            }
            if (srcAddr != qp.destAddr) {
                engine.link.counters().drop(DropReason.BAD_SOURCE);
                return false;
            }
            if (!PKeys.match(pkt.bth().pkey(), qp.pkey)) {
                engine.link.counters().drop(DropReason.BAD_PKEY);
                return false;
            }
            engine.counters.inc(TransportCounters.RCVD_PKTS);
            engine.counters.add(TransportCounters.RCVD_BYTES, pkt.length());
            return true;
        }
    }
}
