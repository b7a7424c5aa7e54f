package dev.jrxe.ib;

/**
 * FLUSH work-request parameters, with rdma-core's values: the placement type
 * ({@code enum ibv_placement_type}, {@code IBV_FLUSH_GLOBAL} / {@code IBV_FLUSH_PERSISTENT}), which
 * says how far the data must get, and the selectivity level ({@code enum ibv_selectivity_level},
 * {@code IBV_FLUSH_RANGE} / {@code IBV_FLUSH_MR}), which says what is flushed. They go in
 * {@link dev.jrxe.verbs.SendWr#flushType} and {@link dev.jrxe.verbs.SendWr#flushLevel}, or to
 * {@link dev.jrxe.verbs.QpEx#flush}. A type that is 0 or has other bits, another level, or SGEs on
 * the request: EINVAL at post. The responder's rkey must allow each placement asked for
 * ({@link Access#FLUSH_GLOBAL}, {@link Access#FLUSH_PERSISTENT}), and its QP's access flags too.
 *
 * <p>Thread safety: constants only.
 *
 * <pre>{@code
 * wr.reset().remote(peerBuffer);
 * wr.opcode = WrOpcode.FLUSH;
 * wr.flushType = Flush.GLOBAL;
 * wr.flushLevel = Flush.RANGE;
 * wr.flushLength = peerBuffer.length();
 * }</pre>
 */
public final class Flush {
    /** {@code IBV_FLUSH_GLOBAL}: placement type global visibility: earlier writes are visible to the responder. */
    public static final int GLOBAL = 1;
    /**
     * {@code IBV_FLUSH_PERSISTENT}: placement type persistence: earlier writes are durable (jrxe:
     * written back with {@code msync} to the file behind the region); may be ORed with GLOBAL.
     */
    public static final int PERSISTENT = 2;
    /** {@code IBV_FLUSH_RANGE}: selectivity level: the range the work request names. */
    public static final int RANGE = 0;
    /** {@code IBV_FLUSH_MR}: selectivity level: the whole memory region (or window) the rkey names. */
    public static final int MR = 1;

    private Flush() {
    }
}
