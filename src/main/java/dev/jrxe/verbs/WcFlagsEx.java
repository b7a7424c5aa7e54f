package dev.jrxe.verbs;

/**
 * {@code wc_flags} of {@code ibv_cq_init_attr_ex} (rdma-core {@code enum ibv_create_cq_wc_flags}):
 * the fields an extended CQ's completions carry beyond wr_id, status, opcode, vendor_err and
 * wc_flags. Pass an OR of them to {@link Device#createCqEx}; the {@link CqEx} reader of a field
 * the CQ was created without throws {@link IllegalStateException}. Constants only.
 *
 * <pre>{@code
 * CompletionQueue cq = dev.createCqEx(256, null, 0, WcFlagsEx.WITH_BYTE_LEN | WcFlagsEx.WITH_COMPLETION_TIMESTAMP);
 * }</pre>
 */
public final class WcFlagsEx {
    /** {@code IBV_WC_EX_WITH_BYTE_LEN}: {@link CqEx#readByteLen()}. */
    public static final int WITH_BYTE_LEN = 1;
    /** {@code IBV_WC_EX_WITH_IMM}: {@link CqEx#readImmData()} and {@link CqEx#readInvalidatedRkey()}. */
    public static final int WITH_IMM = 1 << 1;
    /** {@code IBV_WC_EX_WITH_QP_NUM}: {@link CqEx#readQpNum()}. */
    public static final int WITH_QP_NUM = 1 << 2;
    /** {@code IBV_WC_EX_WITH_SRC_QP}: {@link CqEx#readSrcQp()}. */
    public static final int WITH_SRC_QP = 1 << 3;
    /** {@code IBV_WC_EX_WITH_SLID}: {@link CqEx#readSlid()} (always 0 over RoCE). */
    public static final int WITH_SLID = 1 << 4;
    /** {@code IBV_WC_EX_WITH_SL}: {@link CqEx#readSl()} (always 0 in jrxe). */
    public static final int WITH_SL = 1 << 5;
    /** {@code IBV_WC_EX_WITH_DLID_PATH_BITS}: {@link CqEx#readDlidPathBits()} (always 0 over RoCE). */
    public static final int WITH_DLID_PATH_BITS = 1 << 6;
    /** {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}: {@link CqEx#readCompletionTs()}, in nanoseconds. */
    public static final int WITH_COMPLETION_TIMESTAMP = 1 << 7;
    /** rdma-core's IBV_WC_STANDARD_FLAGS. */
    public static final int STANDARD = WITH_BYTE_LEN | WITH_IMM | WITH_QP_NUM | WITH_SRC_QP | WITH_SLID | WITH_SL
        | WITH_DLID_PATH_BITS;
    /** Every flag jrxe supports; CVLAN, FLOW_TAG, TM_INFO and the wallclock timestamp are not. */
    public static final int SUPPORTED = STANDARD | WITH_COMPLETION_TIMESTAMP;

    private WcFlagsEx() {
    }
}
