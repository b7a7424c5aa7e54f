package dev.jrxe.transport;

import dev.jrxe.ib.QpState;

/**
 * What the transport does when the verbs layer moves a QP to a new state (after validating the
 * transition and the attributes). Call holding the engine ({@link Engine#withEngine}).
 */
public final class QpControl {
    private QpControl() {
    }

    /** Applies {@code newState}; the QP's attribute fields are already updated. */
    public static void enter(Qp qp, int newState, boolean sqPsnChanged) {
        int old = qp.state;
        switch (newState) {
            case QpState.RESET -> reset(qp);
            case QpState.RTR -> {
                if (old != QpState.RTR) {
                    qp.resp.reset(qp.rqPsn, qp.maxDestRdAtomic);
                    if (qp.type != dev.jrxe.ib.QpType.UD && qp.type != dev.jrxe.ib.QpType.DRIVER) {
                        // UD's and SRD's are per QP, set at creation
                        qp.srcPort = udpSourcePort(qp.qpn, qp.destQpn, qp.flowLabel);
                        qp.engine.holdSourcePort(qp, qp.srcPort);
                    }
                }
            }
            case QpState.RTS -> {
                if (old == QpState.RTR || sqPsnChanged) {
                    qp.psn = qp.sqPsn;
                    qp.psnHigh = qp.sqPsn;
                    qp.compPsn = qp.sqPsn;
                }
                qp.sqDraining = false;
                qp.retryLeft = qp.retryCnt;
                qp.rnrRetryLeft = qp.rnrRetry;
            }
            case QpState.SQD -> {
                if (old == QpState.RTS) {
                    // finish what is under way, start nothing new; the requester says when drained
                    qp.sqDraining = true;
                }
            }
            case QpState.ERR -> {
                qp.engine.enterError(qp);
                return;
            }
            default -> {
            }
        }
        qp.state = newState;
        JfrEvents.qpState(qp, old, newState);
    }

    /**
     * An SRD QP at creation: datagrams at the port's MTU to the device UDP port of whoever a work
     * request names, from its paths' source ports (all held on the link from now on).
     */
    public static void srdSetup(Qp qp, int mtuBytes, int udpPort, boolean unsolicitedWriteRecv) {
        SrdState s = qp.srd;
        qp.pathMtu = mtuBytes;
        qp.destPort = udpPort;
        qp.srcPort = s.pathPort(0);
        qp.rnrRetry = 7; // EFA's default: retry RNR for ever
        s.unsolicitedWriteRecv = unsolicitedWriteRecv;
        qp.engine.holdSourcePort(qp, qp.srcPort);
        for (int p = 1; p < s.paths(); p++) {
            qp.engine.link.retainSourcePort(s.pathPort(p));
        }
    }

    private static void reset(Qp qp) {
        qp.engine.sendOwedAck(qp); // the messages they acknowledge were delivered
        if (qp.srd != null) {
            qp.srd.reset();
        }
        qp.sq.reset();
        if (qp.rq != null) {
            qp.rq.reset();
        }
        qp.resp.reset(0, 0);
        qp.sqDraining = false;
        qp.psn = 0;
        qp.psnHigh = 0;
        qp.compPsn = 0;
        qp.noAckPackets = 0;
        qp.rdAtomicInFlight = 0;
        qp.retransmitDeadline = 0;
        qp.rnrWaiting = false;
        qp.retryStarted = false;
        qp.requesterHalted = false;
    }

    /** A new max_dest_rd_atomic on a QP past INIT: the READ/atomic resources start over (rxe). */
    public static void resizeResponderResources(Qp qp) {
        if (qp.state != QpState.RESET && qp.state != QpState.INIT) {
            qp.resp.resetResources(qp.maxDestRdAtomic);
        }
    }

    /**
     * UDP source port as rxe chooses it for an RC/UC QP: the flow label (given, or computed from
     * both QPNs as rdma_calc_flow_label does) folded into 14 bits under 0xC000.
     */
    public static int udpSourcePort(int lqpn, int rqpn, int flowLabel) {
        long fl = flowLabel & 0xFFFFF;
        if (fl == 0) {
            long v = (long) lqpn * (long) rqpn;
            v ^= v >>> 20;
            v ^= v >>> 40;
            fl = v & 0xFFFFF;
        }
        return 0xC000 | (int) ((fl & 0x3FFF) ^ (fl >>> 14));
    }

    /** UD / GSI source port as rxe picks it: 0xC000 + hash_32(qpn, 14). */
    public static int udSourcePort(int qpn) {
        return 0xC000 + ((qpn * 0x61C88647) >>> 18);
    }
}
