package dev.jrxe.ib;

/**
 * mlx5dv's {@code send_ops_flags} for indirect memory keys ({@code MLX5DV_QP_EX_WITH_*}, the
 * {@code send_ops_flags} of {@code struct mlx5dv_qp_init_attr}), with its values: which of
 * {@link dev.jrxe.verbs.MkeyEx}'s builders a QP accepts. They go in
 * {@link dev.jrxe.verbs.QpInitAttr#mkeySendOpsFlags}; only an RC QP takes them (any bit on another
 * type, or an unknown bit: EOPNOTSUPP at creation), and a builder whose bit the QP lacks fails its
 * batch with EOPNOTSUPP.
 *
 * <p>Thread safety: constants only.
 *
 * <pre>{@code
 * init.mkeySendOpsFlags = MkeySendOps.MR_INTERLEAVED | MkeySendOps.MR_LIST;
 * }</pre>
 */
public final class MkeySendOps {
    /**
     * {@code MLX5DV_QP_EX_WITH_MR_INTERLEAVED}: {@link dev.jrxe.verbs.MkeyEx#mrInterleaved}
     * ({@code mlx5dv_wr_mr_interleaved}).
     */
    public static final int MR_INTERLEAVED = 1;
    /** {@code MLX5DV_QP_EX_WITH_MR_LIST}: {@link dev.jrxe.verbs.MkeyEx#mrList} ({@code mlx5dv_wr_mr_list}). */
    public static final int MR_LIST = 1 << 1;
    /**
     * {@code MLX5DV_QP_EX_WITH_MKEY_CONFIGURE}: {@link dev.jrxe.verbs.MkeyEx#mkeyConfigure}
     * ({@code mlx5dv_wr_mkey_configure}) and its setters.
     */
    public static final int MKEY_CONFIGURE = 1 << 2;
    /** All three: what an RC QP may be created with. */
    public static final int ALL = MR_INTERLEAVED | MR_LIST | MKEY_CONFIGURE;

    private MkeySendOps() {
    }
}
