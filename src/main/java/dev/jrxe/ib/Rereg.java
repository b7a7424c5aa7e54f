package dev.jrxe.ib;

/**
 * {@code ibv_rereg_mr} flags: rdma-core's {@code enum ibv_rereg_mr_flags}
 * ({@code IBV_REREG_MR_*}) with its values, the {@code flags} of
 * {@link dev.jrxe.verbs.MemoryRegion#rereg}. An OR of the CHANGE_* bits, not 0; 0 or any other bit
 * is EINVAL, and while memory windows or indirect keys use the region it is EBUSY. Everything is
 * checked first: on error nothing has changed. The lkey keeps its value.
 *
 * <p>Thread safety: constants only.
 *
 * <pre>{@code
 * mr.rereg(Rereg.CHANGE_ACCESS, null, null, Access.LOCAL_WRITE);
 * }</pre>
 */
public final class Rereg {
    /** {@code IBV_REREG_MR_CHANGE_TRANSLATION}: new memory (address, length, iova), checked as registration is. */
    public static final int CHANGE_TRANSLATION = 1;
    /** {@code IBV_REREG_MR_CHANGE_PD}: move the region to another PD of the same device. */
    public static final int CHANGE_PD = 1 << 1;
    /**
     * {@code IBV_REREG_MR_CHANGE_ACCESS}: new {@link Access} flags, checked as at registration;
     * adding or removing ON_DEMAND needs CHANGE_TRANSLATION too (else EINVAL).
     */
    public static final int CHANGE_ACCESS = 1 << 2;
    /** {@code IBV_REREG_MR_FLAGS_SUPPORTED}: all three bits. */
    public static final int SUPPORTED = CHANGE_TRANSLATION | CHANGE_PD | CHANGE_ACCESS;

    private Rereg() {
    }
}
