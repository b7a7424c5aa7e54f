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
 *
 * <p>The defaults are ibv_rc_pingpong's (path MTU 1024, min RNR timer 12, timeout 14, retry and
 * RNR retry 7, port 1, P_Key index 0) except that all remote access is enabled and 16 READ/atomic
 * requests may be outstanding each way (the C tool uses access 0 and 1). Every value goes to
 * {@link QueuePair#modify} as is, so an out-of-range one fails there with EINVAL.
 *
 * <p>Not thread safe while being configured: set it up on one thread. Once set, its connecting
 * calls only read it, so one instance may serve several threads; each call is a sequence of
 * {@link QueuePair#modify} calls, which are thread safe.
 *
 * <pre>{@code
 * RcConnect how = new RcConnect().pathMtu(Mtu.MTU_4096).timeout(10);
 * how.toInit(qp);                                            // RESET -> INIT
 * how.toRts(qp, myPsn, peer.gid(), peer.qpn(), peer.psn());  // INIT -> RTR -> RTS
 * }</pre>
 */
public final class RcConnect {
    /**
     * {@code path_mtu} at RTR: an {@link Mtu} code ({@code IBV_MTU_*}), default MTU_1024; capped at
     * the port's active MTU.
     */
    public int pathMtu = Mtu.MTU_1024;
    /** {@code qp_access_flags} at INIT: what the peer may do to this QP's memory ({@link Access} REMOTE_* bits). */
    public int accessFlags = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
    /** {@code max_rd_atomic} at RTS (RC): READ/atomic requests this QP may have outstanding as initiator, 0 to 128. */
    public int maxRdAtomic = 16;
    /** {@code max_dest_rd_atomic} at RTR (RC): READ/atomic requests of the peer this QP serves at once, 0 to 128. */
    public int maxDestRdAtomic = 16;
    /** {@code min_rnr_timer} at RTR (RC): the IBTA 5-bit RNR NAK timer code, 0 to 31 (12 is 0.64 ms). */
    public int minRnrTimer = 12;
    /**
     * {@code timeout} at RTS (RC): local ACK timeout code, 4.096 µs × 2<sup>timeout</sup> (14 is
     * about 67 ms; 0 none).
     */
    public int timeout = 14;
    /** {@code retry_cnt} at RTS (RC): retransmissions, 0 to 7, before {@code IBV_WC_RETRY_EXC_ERR}. */
    public int retryCnt = 7;
    /**
     * {@code rnr_retry} at RTS (RC): retries after an RNR NAK, 0 to 7 (7: forever), before
     * {@code IBV_WC_RNR_RETRY_EXC_ERR}.
     */
    public int rnrRetry = 7;
    /** {@code ah_attr.grh.sgid_index}: the local GID, 1 ({@link Device#IPV4_GID_INDEX}, the device's IPv4 GID). */
    public int sgidIndex = 1;

    /** The defaults above: ibv_rc_pingpong's, with all remote access and 16 READ/atomic requests. */
    public RcConnect() {
    }

    /**
     * Sets {@link #pathMtu}.
     *
     * @param mtuEnum an {@link Mtu} code, e.g. {@link Mtu#MTU_4096}
     * @return this
     */
    public RcConnect pathMtu(int mtuEnum) {
        this.pathMtu = mtuEnum;
        return this;
    }

    /**
     * Sets {@link #timeout}.
     *
     * @param t the local ACK timeout code, 4.096 µs × 2<sup>t</sup>, 0 to 31
     * @return this
     */
    public RcConnect timeout(int t) {
        this.timeout = t;
        return this;
    }

    /**
     * Sets {@link #retryCnt} and {@link #rnrRetry}.
     *
     * @param retry transport retries, 0 to 7
     * @param rnr   RNR retries, 0 to 7 (7: forever)
     * @return this
     */
    public RcConnect retries(int retry, int rnr) {
        this.retryCnt = retry;
        this.rnrRetry = rnr;
        return this;
    }

    /**
     * Sets {@link #accessFlags}.
     *
     * @param flags {@link Access} bits: LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC,
     *              MW_BIND, FLUSH_GLOBAL, FLUSH_PERSISTENT (others are EINVAL)
     * @return this
     */
    public RcConnect accessFlags(int flags) {
        this.accessFlags = flags;
        return this;
    }

    /**
     * Sets {@link #maxRdAtomic} and {@link #maxDestRdAtomic}.
     *
     * @param initiator READ/atomic requests this QP may have outstanding, 0 to 128
     * @param responder the peer's READ/atomic requests this QP serves at once, 0 to 128
     * @return this
     */
    public RcConnect rdAtomic(int initiator, int responder) {
        this.maxRdAtomic = initiator;
        this.maxDestRdAtomic = responder;
        return this;
    }

    /**
     * Sets {@link #minRnrTimer}.
     *
     * @param code the IBTA 5-bit RNR NAK timer code, 0 to 31
     * @return this
     */
    public RcConnect minRnrTimer(int code) {
        this.minRnrTimer = code;
        return this;
    }

    /**
     * RESET → INIT: {@code ibv_modify_qp} with state, P_Key index 0, port 1 and {@link #accessFlags}.
     *
     * @param qp the QP, in RESET
     * @throws VerbsException EINVAL when {@link QueuePair#modify} refuses (wrong state, bad access flags)
     */
    public void toInit(QueuePair qp) {
        QpAttr a = new QpAttr();
        a.qpState = QpState.INIT;
        a.pkeyIndex = 0;
        a.portNum = 1;
        a.qpAccessFlags = accessFlags;
        qp.modify(a, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
    }

    /**
     * INIT → RTR → RTS toward the remote QP: two {@code ibv_modify_qp} calls with the masks
     * ibv_rc_pingpong uses (ibv_uc_pingpong's for a UC QP). If the second fails the QP stays in RTR.
     *
     * @param qp        the local QP, in INIT
     * @param localPsn  the first PSN this QP sends ({@code sq_psn}, 24 bits)
     * @param remoteGid the peer device's GID (IPv4-mapped)
     * @param remoteQpn the peer QP's number ({@code dest_qp_num})
     * @param remotePsn the first PSN the peer sends ({@code rq_psn})
     * @throws VerbsException EINVAL when {@link QueuePair#modify} refuses (wrong state, a value out of range)
     */
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

    /**
     * Connects two QPs (on the same or different devices of this JVM) to each other with the
     * given start PSNs: both to INIT, then each to RTS toward the other, with no out-of-band
     * exchange.
     *
     * @param a    one QP, in RESET
     * @param psnA the first PSN {@code a} sends
     * @param b    the other QP, in RESET
     * @param psnB the first PSN {@code b} sends
     * @throws VerbsException EINVAL when a {@link QueuePair#modify} refuses
     */
    public void pair(QueuePair a, int psnA, QueuePair b, int psnB) {
        toInit(a);
        toInit(b);
        Gid ga = a.pd().device().queryGid(1, sgidIndex);
        Gid gb = b.pd().device().queryGid(1, sgidIndex);
        toRts(a, psnA, gb, b.qpNum(), psnB);
        toRts(b, psnB, ga, a.qpNum(), psnA);
    }
}
