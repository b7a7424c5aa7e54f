package dev.jrxe.ib;

/**
 * mlx5dv's {@code send_ops_flags} for indirect memory keys ({@code MLX5DV_QP_EX_WITH_*}): which
 * of {@code dev.jrxe.verbs.MkeyEx}'s builders an RC QP accepts.
 */
public final class MkeySendOps {
    public static final int MR_INTERLEAVED = 1;
    public static final int MR_LIST = 1 << 1;
    public static final int MKEY_CONFIGURE = 1 << 2;
    /** All three. */
    public static final int ALL = MR_INTERLEAVED | MR_LIST | MKEY_CONFIGURE;

    private MkeySendOps() {
    }
}
