package dev.jrxe.verbs;

import dev.jrxe.ib.QpType;

/**
 * What {@link ProtectionDomain#createQp} builds a queue pair from ({@code struct ibv_qp_init_attr},
 * with {@code ibv_qp_init_attr_ex.send_ops_flags}): its transport type, its CQs, its capabilities,
 * an optional SRQ and the send operations of the extended API.
 *
 * <p>Not thread safe: a plain mutable holder, one per thread. Creation reads it (and writes the
 * granted SGE counts back into {@link #cap}); the QP keeps no reference to it.
 *
 * <pre>{@code
 * QpInitAttr init = new QpInitAttr(QpType.RC, cq, cq, new QpCap(64, 64, 1, 1, 0));
 * init.sendOpsFlags = SendOps.RDMA_WRITE | SendOps.SEND;   // for qp.ex()
 * QueuePair qp = pd.createQp(init);                        // in RESET
 * }</pre>
 */
public final class QpInitAttr {
    /**
     * {@code qp_type}: {@link QpType#RC} (the default), {@code UC} or {@code UD}; {@code DRIVER}
     * (SRD) only through {@link SrdDv#createQp}. Any other type fails creation with EOPNOTSUPP.
     */
    public int qpType = QpType.RC;
    /** {@code send_cq}: where send work requests complete; required (null is EINVAL). */
    public CompletionQueue sendCq;
    /**
     * {@code recv_cq}: where receives complete (also with an SRQ); required (null is EINVAL), may
     * be {@link #sendCq}.
     */
    public CompletionQueue recvCq;
    /** {@code cap}: the queue sizes asked for; creation writes the granted SGE counts back into it. */
    public QpCap cap = new QpCap();
    /**
     * {@code srq}: the shared receive queue the QP takes its receive WQEs from, or null for its
     * own receive queue. Must be of the same device (else EINVAL) and not destroyed; an SRD QP
     * takes none (EOPNOTSUPP).
     */
    public SharedReceiveQueue srq;
    /** {@code sq_sig_all}: every send work request completes signaled, whatever its {@code IBV_SEND_SIGNALED} flag. */
    public boolean sqSigAll;
    /**
     * {@code ibv_qp_init_attr_ex.send_ops_flags} ({@link dev.jrxe.ib.SendOps}): the extended-API
     * builders the QP accepts ({@link QueuePair#ex()}); 0 for the classic API only. A bit the
     * QP type does not support fails creation with EOPNOTSUPP.
     */
    public int sendOpsFlags;
    /**
     * {@link dev.jrxe.ib.MkeySendOps} (mlx5dv's {@code send_ops_flags}): the indirect-key builders
     * of {@link MkeyEx} the QP accepts (RC only; any bit on another type is EOPNOTSUPP).
     */
    public int mkeySendOpsFlags;

    /** An RC QP with default capabilities ({@link QpCap#QpCap()}) and no CQs yet. */
    public QpInitAttr() {
    }

    /**
     * The usual attributes: type, CQs and capabilities; no SRQ, no extended send operations.
     *
     * @param qpType a {@link QpType} ({@code RC}, {@code UC} or {@code UD})
     * @param sendCq the CQ of send completions
     * @param recvCq the CQ of receive completions (may be {@code sendCq})
     * @param cap    the capabilities to ask for (granted SGE counts are written back into it)
     */
    public QpInitAttr(int qpType, CompletionQueue sendCq, CompletionQueue recvCq, QpCap cap) {
        this.qpType = qpType;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.cap = cap;
    }
}
