package dev.jrxe.ib;

/** {@code ibv_rereg_mr} flags, with rdma-core's values. */
public final class Rereg {
    public static final int CHANGE_TRANSLATION = 1;
    public static final int CHANGE_PD = 1 << 1;
    public static final int CHANGE_ACCESS = 1 << 2;
    public static final int SUPPORTED = CHANGE_TRANSLATION | CHANGE_PD | CHANGE_ACCESS;

    private Rereg() {
    }
}
