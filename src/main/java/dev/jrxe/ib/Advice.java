package dev.jrxe.ib;

/** {@code ibv_advise_mr} advice values and flags, with rdma-core's values. */
public final class Advice {
    /** Make pages present for reading. */
    public static final int PREFETCH = 0;
    /** Make pages present for reading and writing. */
    public static final int PREFETCH_WRITE = 1;
    /** Make already-present CPU pages present to the device, without faulting. */
    public static final int PREFETCH_NO_FAULT = 2;

    /** Synchronous: the pages are mapped when advise returns. */
    public static final int FLAG_FLUSH = 1;

    private Advice() {
    }
}
