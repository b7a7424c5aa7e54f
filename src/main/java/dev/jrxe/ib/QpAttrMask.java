package dev.jrxe.ib;

/**
 * Attribute mask bits of {@code ibv_modify_qp}: rdma-core's {@code enum ibv_qp_attr_mask}
 * ({@code IBV_QP_*}) with its values, each naming the {@code struct ibv_qp_attr} field
 * ({@link dev.jrxe.verbs.QpAttr}) that {@link dev.jrxe.verbs.QueuePair#modify} takes. Every
 * transition has its required and optional bits per QP type, as the kernel's
 * {@code ib_modify_qp_is_ok} table has them: a missing required bit, or a bit the transition does
 * not allow, is EINVAL, and nothing changes.
 *
 * <p>Thread safety: constants only.
 *
 * <pre>{@code
 * QpAttr attr = new QpAttr();
 * attr.qpState = QpState.ERR;
 * qp.modify(attr, QpAttrMask.STATE);
 * }</pre>
 */
public final class QpAttrMask {
    /** {@code IBV_QP_STATE}: {@code qp_state}, the state to move to ({@link QpState}). */
    public static final int STATE = 1;
    /**
     * {@code IBV_QP_CUR_STATE}: {@code cur_qp_state}, which must equal the QP's state (else
     * EINVAL); allowed from RTR, RTS, SQD and SQE only.
     */
    public static final int CUR_STATE = 1 << 1;
    /** {@code IBV_QP_EN_SQD_ASYNC_NOTIFY}: {@code en_sqd_async_notify}: raise SQ_DRAINED once the SQD drain ends. */
    public static final int EN_SQD_ASYNC_NOTIFY = 1 << 2;
    /** {@code IBV_QP_ACCESS_FLAGS}: {@code qp_access_flags} ({@link Access}): what remote operations it takes. */
    public static final int ACCESS_FLAGS = 1 << 3;
    /** {@code IBV_QP_PKEY_INDEX}: {@code pkey_index}; the table has one entry, so only 0 (else EINVAL). */
    public static final int PKEY_INDEX = 1 << 4;
    /** {@code IBV_QP_PORT}: {@code port_num}; only port 1 (else EINVAL). */
    public static final int PORT = 1 << 5;
    /**
     * {@code IBV_QP_QKEY}: {@code qkey} of a UD or SRD QP; one with the high bit set is privileged
     * (EPERM unless the device's config allows it).
     */
    public static final int QKEY = 1 << 6;
    /**
     * {@code IBV_QP_AV}: {@code ah_attr}, the peer's address: RoCEv2 needs a GRH with an
     * IPv4-mapped destination GID and a valid {@code sgid_index} (else EINVAL).
     */
    public static final int AV = 1 << 7;
    /** {@code IBV_QP_PATH_MTU}: {@code path_mtu} ({@link Mtu}), lowered to the device's active MTU. */
    public static final int PATH_MTU = 1 << 8;
    /** {@code IBV_QP_TIMEOUT}: {@code timeout}, 5-bit local ACK timeout code: 4.096 µs × 2^timeout, 0 = none. */
    public static final int TIMEOUT = 1 << 9;
    /** {@code IBV_QP_RETRY_CNT}: {@code retry_cnt}, retransmissions (0..7) before RETRY_EXC_ERR. */
    public static final int RETRY_CNT = 1 << 10;
    /** {@code IBV_QP_RNR_RETRY}: {@code rnr_retry}, RNR NAK retries (0..7, 7 = forever) before RNR_RETRY_EXC_ERR. */
    public static final int RNR_RETRY = 1 << 11;
    /** {@code IBV_QP_RQ_PSN}: {@code rq_psn}, the first PSN the responder expects (24 bits). */
    public static final int RQ_PSN = 1 << 12;
    /** {@code IBV_QP_MAX_QP_RD_ATOMIC}: {@code max_rd_atomic}, the READs and atomics in flight at most. */
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    /** {@code IBV_QP_ALT_PATH}: the alternate path; accepted where the table allows it, ignored (no APM). */
    public static final int ALT_PATH = 1 << 14;
    /** {@code IBV_QP_MIN_RNR_TIMER}: {@code min_rnr_timer}, the 5-bit RNR timer code its RNR NAKs carry. */
    public static final int MIN_RNR_TIMER = 1 << 15;
    /** {@code IBV_QP_SQ_PSN}: {@code sq_psn}, the first PSN the requester sends (24 bits). */
    public static final int SQ_PSN = 1 << 16;
    /**
     * {@code IBV_QP_MAX_DEST_RD_ATOMIC}: {@code max_dest_rd_atomic}, the READs and atomics the
     * responder holds for its peer; not while READ responses are still pending (EINVAL).
     */
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    /** {@code IBV_QP_PATH_MIG_STATE}: {@code path_mig_state}; accepted where the table allows it, ignored. */
    public static final int PATH_MIG_STATE = 1 << 18;
    /** {@code IBV_QP_CAP}: {@code cap}; a QP's capabilities cannot be modified (EINVAL). */
    public static final int CAP = 1 << 19;
    /** {@code IBV_QP_DEST_QPN}: {@code dest_qp_num}, the peer's QP number (RC, UC). */
    public static final int DEST_QPN = 1 << 20;
    /** {@code IBV_QP_RATE_LIMIT}: {@code rate_limit}; in no transition's mask, so EINVAL. */
    public static final int RATE_LIMIT = 1 << 25;
    /** Every bit above. */
    public static final int ALL = (1 << 21) - 1 | RATE_LIMIT;

    private QpAttrMask() {
    }
}
