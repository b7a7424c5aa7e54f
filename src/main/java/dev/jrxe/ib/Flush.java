package dev.jrxe.ib;

/**
 * FLUSH work-request parameters (rdma-core {@code IBV_FLUSH_*}): the placement type, which says
 * how far the data must get, and the selectivity level, which says what is flushed.
 */
public final class Flush {
    /** Placement: visible to the responder's CPU (global visibility). */
    public static final int GLOBAL = 1;
    /** Placement: durable (written back to the file behind a file-backed region). */
    public static final int PERSISTENT = 2;
    /** Level: the range the work request names. */
    public static final int RANGE = 0;
    /** Level: the whole memory region of the rkey. */
    public static final int MR = 1;

    private Flush() {
    }
}
