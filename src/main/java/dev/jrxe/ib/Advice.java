package dev.jrxe.ib;

/**
 * {@code ibv_advise_mr} advice values ({@code enum ibv_advise_mr_advice}) and flags
 * ({@code IBV_ADVISE_MR_FLAG_*}), with rdma-core's values; see
 * {@link dev.jrxe.verbs.ProtectionDomain#adviseMr}. Advice applies to ON_DEMAND regions only:
 * another advice value is EOPNOTSUPP, another flag EINVAL, an lkey that is not an ODP region of
 * the PD, or a range outside it, EFAULT.
 *
 * <p>Thread safety: constants only.
 *
 * <pre>{@code
 * pd.adviseMr(Advice.PREFETCH_WRITE, Advice.FLAG_FLUSH, new Sge(addr, length, odpMr.lkey()));
 * }</pre>
 */
public final class Advice {
    /** {@code IBV_ADVISE_MR_ADVICE_PREFETCH}: fault the pages in for reading. */
    public static final int PREFETCH = 0;
    /**
     * {@code IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE}: fault the pages in for writing; the region needs
     * LOCAL_WRITE (else EFAULT).
     */
    public static final int PREFETCH_WRITE = 1;
    /** {@code IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT}: map the pages already present for the CPU, faulting none. */
    public static final int PREFETCH_NO_FAULT = 2;

    /**
     * {@code IBV_ADVISE_MR_FLAG_FLUSH}: synchronous: the pages are mapped when the call returns
     * (errors are thrown); without it the work runs on a background thread, best effort.
     */
    public static final int FLAG_FLUSH = 1;

    private Advice() {
    }
}
