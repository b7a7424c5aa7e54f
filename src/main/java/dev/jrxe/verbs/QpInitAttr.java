package dev.jrxe.verbs;

import dev.jrxe.ib.QpType;

/** {@code struct ibv_qp_init_attr}. */
public final class QpInitAttr {
    public int qpType = QpType.RC;
    public CompletionQueue sendCq;
    public CompletionQueue recvCq;
    public QpCap cap = new QpCap();
    /** The shared receive queue the QP takes its receive WQEs from, or null for its own. */
    public SharedReceiveQueue srq;
    /** Every send WR completes signaled. */
    public boolean sqSigAll;
    /**
     * {@code ibv_qp_init_attr_ex.send_ops_flags} ({@link dev.jrxe.ib.SendOps}): the extended-API
     * builders the QP accepts ({@link QueuePair#ex()}); 0 for the classic API only. A bit the
     * device does not support fails creation with EOPNOTSUPP.
     */
    public int sendOpsFlags;
    /**
     * {@link dev.jrxe.ib.MkeySendOps} (mlx5dv's {@code send_ops_flags}): the indirect-key builders
     * of {@link MkeyEx} the QP accepts (RC only).
     */
    public int mkeySendOpsFlags;

    public QpInitAttr() {
    }

    public QpInitAttr(int qpType, CompletionQueue sendCq, CompletionQueue recvCq, QpCap cap) {
        this.qpType = qpType;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.cap = cap;
    }
}
