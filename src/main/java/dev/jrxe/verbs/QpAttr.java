package dev.jrxe.verbs;

import dev.jrxe.ib.Mtu;

/**
 * Queue pair attributes ({@code struct ibv_qp_attr}): what {@link QueuePair#modify(QpAttr, int)}
 * ({@code ibv_modify_qp}) reads, for the fields the mask names ({@link dev.jrxe.ib.QpAttrMask}),
 * and what {@link QueuePair#query()} ({@code ibv_query_qp}) fills, all fields. A transition that
 * the IBTA state table does not allow for the QP's type, or a mask missing a required bit or
 * holding one the transition does not take, fails with EINVAL and changes nothing. There are no
 * alternate path fields: RoCEv2 has no path migration.
 *
 * <p>Not thread safe: a plain holder for one thread; {@code modify} reads it during the call and
 * keeps nothing of it (the address vector's fields are copied).
 *
 * <pre>{@code
 * QpAttr a = new QpAttr().state(QpState.RTR);
 * a.ahAttr = new AhAttr(Gid.ofIpv4(peerAddr), Device.IPV4_GID_INDEX);
 * a.destQpNum = peerQpn; a.rqPsn = peerPsn; a.maxDestRdAtomic = 16; a.minRnrTimer = 12;
 * qp.modify(a, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
 *     | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
 * }</pre>
 */
public final class QpAttr {
    /**
     * {@code qp_state} ({@code STATE}): the state to move to, a {@link dev.jrxe.ib.QpState}; query:
     * the current one.
     */
    public int qpState;
    /**
     * {@code cur_qp_state} ({@code CUR_STATE}): the state the caller believes the QP is in, only
     * from RTR, RTS, SQD or SQE; EINVAL when it is not the QP's state.
     */
    public int curQpState;
    /**
     * {@code path_mtu} ({@code PATH_MTU}): a {@link Mtu} enum, 256..4096 bytes (else EINVAL),
     * capped at the port's active MTU; required on an RC or UC QP's INIT to RTR.
     */
    public int pathMtu = Mtu.MTU_1024;
    /**
     * {@code qkey} ({@code QKEY}): the UD / SRD QP's Q_Key. One with the high bit set (a
     * controlled Q_Key) is EPERM unless {@link DeviceConfig#privilegedQkey(boolean)} allows it.
     */
    public int qkey;
    /** {@code rq_psn} ({@code RQ_PSN}): the first PSN the responder expects; the low 24 bits are kept. */
    public int rqPsn;
    /** {@code sq_psn} ({@code SQ_PSN}): the first PSN the requester sends; the low 24 bits are kept. */
    public int sqPsn;
    /** {@code dest_qp_num} ({@code DEST_QPN}): the RC / UC peer's QP number; the low 24 bits are kept. */
    public int destQpNum;
    /**
     * {@code qp_access_flags} ({@code ACCESS_FLAGS}): which remote operations the responder allows,
     * {@link dev.jrxe.ib.Access} {@code REMOTE_WRITE}, {@code REMOTE_READ}, {@code REMOTE_ATOMIC},
     * {@code FLUSH_GLOBAL}, {@code FLUSH_PERSISTENT} (also {@code LOCAL_WRITE}, {@code MW_BIND});
     * any other bit is EINVAL.
     */
    public int qpAccessFlags;
    /** {@code cap}: query only, the QP's granted capabilities; the {@code CAP} mask is EINVAL (no resizing). */
    public QpCap cap = new QpCap();
    /**
     * {@code ah_attr} ({@code AV}): the RC / UC peer's address vector; it must be global with an
     * IPv4-mapped destination GID and a valid source GID index (else EINVAL).
     */
    public AhAttr ahAttr = new AhAttr();
    /** {@code pkey_index} ({@code PKEY_INDEX}): 0, the one P_Key (0xFFFF); any other index is EINVAL. */
    public int pkeyIndex;
    /**
     * {@code en_sqd_async_notify} ({@code EN_SQD_ASYNC_NOTIFY}): on RTS to SQD, raise
     * {@code IBV_EVENT_SQ_DRAINED} once the send queue has drained.
     */
    public boolean sqDrainNotify;
    /** {@code sq_draining}, query only: the QP is in SQD and still has work requests in progress. */
    public boolean sqDraining;
    /**
     * {@code max_rd_atomic} ({@code MAX_QP_RD_ATOMIC}): READ / atomic requests this QP keeps
     * outstanding, 0..128 (else EINVAL).
     */
    public int maxRdAtomic;
    /**
     * {@code max_dest_rd_atomic} ({@code MAX_DEST_RD_ATOMIC}): READ / atomic requests this QP's
     * responder accepts outstanding, 0..128; EINVAL beyond, or while READ responses are still
     * being sent.
     */
    public int maxDestRdAtomic;
    /**
     * {@code min_rnr_timer} ({@code MIN_RNR_TIMER}): the IBTA 5-bit RNR timer code (0..31) the
     * responder's RNR NAKs carry.
     */
    public int minRnrTimer;
    /** {@code port_num} ({@code PORT}): 1, the device's only port; any other is EINVAL. */
    public int portNum;
    /**
     * {@code timeout} ({@code TIMEOUT}): local ACK timeout, IBTA encoded 4.096 µs × 2^timeout, 0..31;
     * 0: no retransmit timer.
     */
    public int timeout;
    /**
     * {@code retry_cnt} ({@code RETRY_CNT}): retransmissions after a timeout or a sequence error,
     * 0..7, then {@code IBV_WC_RETRY_EXC_ERR}.
     */
    public int retryCnt;
    /**
     * {@code rnr_retry} ({@code RNR_RETRY}): retries after an RNR NAK, 0..7 (7: for ever), then
     * {@code IBV_WC_RNR_RETRY_EXC_ERR}.
     */
    public int rnrRetry;

    /**
     * Creates attributes with every field 0 but {@link #pathMtu} ({@code IBV_MTU_1024}) and an empty
     * address vector.
     */
    public QpAttr() {
    }

    /**
     * Sets {@link #qpState}, for chaining.
     *
     * @param s the state to move to, a {@link dev.jrxe.ib.QpState} value
     * @return this object
     */
    public QpAttr state(int s) {
        this.qpState = s;
        return this;
    }
}
