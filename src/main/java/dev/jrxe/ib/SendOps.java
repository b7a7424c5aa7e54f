package dev.jrxe.ib;

/**
 * The {@code send_ops_flags} of {@code struct ibv_qp_init_attr_ex}: rdma-core's
 * {@code enum ibv_qp_create_send_ops_flags} ({@code IBV_QP_EX_WITH_*}) with its values, which
 * say which extended-API builders of {@link dev.jrxe.verbs.QpEx} a QP accepts. They go in
 * {@link dev.jrxe.verbs.QpInitAttr#sendOpsFlags}; a bit the QP type does not support
 * ({@link #supported}) is EOPNOTSUPP at creation, and a builder whose bit the QP was not created
 * with latches EOPNOTSUPP for its batch. {@code ibv_post_send} needs none of them.
 *
 * <p>Thread safety: constants and a pure function, callable from any thread.
 *
 * <pre>{@code
 * init.sendOpsFlags = SendOps.RDMA_WRITE | SendOps.SEND;
 * QpEx x = pd.createQp(init).ex();
 * }</pre>
 */
public final class SendOps {
    /** {@code IBV_QP_EX_WITH_RDMA_WRITE}: {@link dev.jrxe.verbs.QpEx#rdmaWrite} ({@code ibv_wr_rdma_write}). */
    public static final int RDMA_WRITE = 1;
    /** {@code IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM}: {@link dev.jrxe.verbs.QpEx#rdmaWriteImm}. */
    public static final int RDMA_WRITE_WITH_IMM = 1 << 1;
    /** {@code IBV_QP_EX_WITH_SEND}: {@link dev.jrxe.verbs.QpEx#send} ({@code ibv_wr_send}). */
    public static final int SEND = 1 << 2;
    /** {@code IBV_QP_EX_WITH_SEND_WITH_IMM}: {@link dev.jrxe.verbs.QpEx#sendImm}. */
    public static final int SEND_WITH_IMM = 1 << 3;
    /** {@code IBV_QP_EX_WITH_RDMA_READ}: {@link dev.jrxe.verbs.QpEx#rdmaRead} ({@code ibv_wr_rdma_read}). */
    public static final int RDMA_READ = 1 << 4;
    /** {@code IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP}: {@link dev.jrxe.verbs.QpEx#atomicCmpSwp}. */
    public static final int ATOMIC_CMP_AND_SWP = 1 << 5;
    /** {@code IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD}: {@link dev.jrxe.verbs.QpEx#atomicFetchAdd}. */
    public static final int ATOMIC_FETCH_AND_ADD = 1 << 6;
    /** {@code IBV_QP_EX_WITH_LOCAL_INV}: {@link dev.jrxe.verbs.QpEx#localInv} ({@code ibv_wr_local_inv}). */
    public static final int LOCAL_INV = 1 << 7;
    /** {@code IBV_QP_EX_WITH_BIND_MW}: {@link dev.jrxe.verbs.QpEx#bindMw} ({@code ibv_wr_bind_mw}). */
    public static final int BIND_MW = 1 << 8;
    /** {@code IBV_QP_EX_WITH_SEND_WITH_INV}: {@link dev.jrxe.verbs.QpEx#sendInv} ({@code ibv_wr_send_inv}). */
    public static final int SEND_WITH_INV = 1 << 9;
    /** {@code IBV_QP_EX_WITH_TSO}: {@code ibv_wr_send_tso}; jrxe has no such builder and no QP type takes the bit. */
    public static final int TSO = 1 << 10;
    /** {@code IBV_QP_EX_WITH_FLUSH}: {@link dev.jrxe.verbs.QpEx#flush} ({@code ibv_wr_flush}). */
    public static final int FLUSH = 1 << 11;
    /** {@code IBV_QP_EX_WITH_ATOMIC_WRITE}: {@link dev.jrxe.verbs.QpEx#atomicWrite} ({@code ibv_wr_atomic_write}). */
    public static final int ATOMIC_WRITE = 1 << 12;

    /** Everything jrxe's RC QPs accept (all but TSO, a raw-packet/UD operation). */
    public static final int RC_SUPPORTED = RDMA_WRITE | RDMA_WRITE_WITH_IMM | SEND | SEND_WITH_IMM | RDMA_READ
        | ATOMIC_CMP_AND_SWP | ATOMIC_FETCH_AND_ADD | LOCAL_INV | BIND_MW | SEND_WITH_INV | FLUSH | ATOMIC_WRITE;
    /** What a UC QP supports: sends, writes and the local operations. */
    public static final int UC_SUPPORTED = RDMA_WRITE | RDMA_WRITE_WITH_IMM | SEND | SEND_WITH_IMM | LOCAL_INV | BIND_MW;
    /** What a UD QP supports: sends. */
    public static final int UD_SUPPORTED = SEND | SEND_WITH_IMM;

    /** What a jrxe SRD QP ({@link QpType#DRIVER}) supports: sends, writes and reads. */
    public static final int SRD_SUPPORTED = SEND | SEND_WITH_IMM | RDMA_WRITE | RDMA_WRITE_WITH_IMM | RDMA_READ;

    /**
     * {@return the {@code send_ops_flags} a QP of {@code qpType} may be created with, or 0 for a
     * type jrxe does not create}
     *
     * @param qpType a {@link QpType}: RC, UC, UD or DRIVER (SRD)
     */
    public static int supported(int qpType) {
        return switch (qpType) {
            case QpType.RC -> RC_SUPPORTED;
            case QpType.UC -> UC_SUPPORTED;
            case QpType.UD -> UD_SUPPORTED;
            case QpType.DRIVER -> SRD_SUPPORTED;
            default -> 0;
        };
    }

    private SendOps() {
    }
}
