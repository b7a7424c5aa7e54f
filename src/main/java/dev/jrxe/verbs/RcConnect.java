package dev.jrxe.verbs;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.Access;

/**
 * Walks connected queue pairs (RC, and UC) RESET → INIT → RTR → RTS with the attributes rdma-core's
 * examples use, given the other side's GID, QPN and PSN; {@link #pair} connects two local QPs to
 * each other. A UC QP gets the masks ibv_uc_pingpong uses: no READ/atomic resources, no RNR timer,
 * no retries (UC has none of them).
 */
public final class RcConnect {
    /** Attribute values; defaults as ibv_rc_pingpong but with all remote access enabled. */
    public int pathMtu = Mtu.MTU_1024;
    public int accessFlags = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
    public int maxRdAtomic = 16;
    public int maxDestRdAtomic = 16;
    public int minRnrTimer = 12;
    public int timeout = 14;
    public int retryCnt = 7;
    public int rnrRetry = 7;
    public int sgidIndex = 1;

    public RcConnect pathMtu(int mtuEnum) {
        this.pathMtu = mtuEnum;
        return this;
    }

    public RcConnect timeout(int t) {
        this.timeout = t;
        return this;
    }

    public RcConnect retries(int retry, int rnr) {
        this.retryCnt = retry;
        this.rnrRetry = rnr;
        return this;
    }

    public RcConnect accessFlags(int flags) {
        this.accessFlags = flags;
        return this;
    }

    public RcConnect rdAtomic(int initiator, int responder) {
        this.maxRdAtomic = initiator;
        this.maxDestRdAtomic = responder;
        return this;
    }

    public RcConnect minRnrTimer(int code) {
        this.minRnrTimer = code;
        return this;
    }

    /** RESET → INIT. */
    public void toInit(QueuePair qp) {
        QpAttr a = new QpAttr();
        a.qpState = QpState.INIT;
        a.pkeyIndex = 0;
        a.portNum = 1;
        a.qpAccessFlags = accessFlags;
        qp.modify(a, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
    }

    /** INIT → RTR → RTS toward the remote QP. */
    public void toRts(QueuePair qp, int localPsn, Gid remoteGid, int remoteQpn, int remotePsn) {
        if (qp.qpType() == dev.jrxe.ib.QpType.UC) {
            QpAttr a = new QpAttr();
            a.qpState = QpState.RTR;
            a.pathMtu = pathMtu;
            a.destQpNum = remoteQpn;
            a.rqPsn = remotePsn;
            a.ahAttr = new AhAttr(remoteGid, sgidIndex);
            qp.modify(a, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
                | QpAttrMask.RQ_PSN);
            QpAttr r = new QpAttr();
            r.qpState = QpState.RTS;
            r.sqPsn = localPsn;
            qp.modify(r, QpAttrMask.STATE | QpAttrMask.SQ_PSN);
            return;
        }
        QpAttr a = new QpAttr();
        a.qpState = QpState.RTR;
        a.pathMtu = pathMtu;
        a.destQpNum = remoteQpn;
        a.rqPsn = remotePsn;
        a.maxDestRdAtomic = maxDestRdAtomic;
        a.minRnrTimer = minRnrTimer;
        a.ahAttr = new AhAttr(remoteGid, sgidIndex);
        qp.modify(a, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
            | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        QpAttr r = new QpAttr();
        r.qpState = QpState.RTS;
        r.timeout = timeout;
        r.retryCnt = retryCnt;
        r.rnrRetry = rnrRetry;
        r.sqPsn = localPsn;
        r.maxRdAtomic = maxRdAtomic;
        qp.modify(r, QpAttrMask.STATE | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
            | QpAttrMask.SQ_PSN | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    /** Connects two QPs (on the same or different devices) to each other with the given start PSNs. */
    public void pair(QueuePair a, int psnA, QueuePair b, int psnB) {
        toInit(a);
        toInit(b);
        Gid ga = a.pd().device().queryGid(1, sgidIndex);
        Gid gb = b.pd().device().queryGid(1, sgidIndex);
        toRts(a, psnA, gb, b.qpNum(), psnB);
        toRts(b, psnB, ga, a.qpNum(), psnA);
    }
}
