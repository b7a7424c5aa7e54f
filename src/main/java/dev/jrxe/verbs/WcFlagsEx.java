package dev.jrxe.verbs;

/**
 * {@code wc_flags} of {@code ibv_cq_init_attr_ex} (rdma-core {@code enum ibv_create_cq_wc_flags}):
 * the fields an extended CQ's completions carry beyond wr_id, status, opcode, vendor_err and
 * wc_flags.
 */
public final class WcFlagsEx {
    public static final int WITH_BYTE_LEN = 1;
    public static final int WITH_IMM = 1 << 1;
    public static final int WITH_QP_NUM = 1 << 2;
    public static final int WITH_SRC_QP = 1 << 3;
    public static final int WITH_SLID = 1 << 4;
    public static final int WITH_SL = 1 << 5;
    public static final int WITH_DLID_PATH_BITS = 1 << 6;
    public static final int WITH_COMPLETION_TIMESTAMP = 1 << 7;
    /** rdma-core's IBV_WC_STANDARD_FLAGS. */
    public static final int STANDARD = WITH_BYTE_LEN | WITH_IMM | WITH_QP_NUM | WITH_SRC_QP | WITH_SLID | WITH_SL
        | WITH_DLID_PATH_BITS;
    /** Every flag jrxe supports; CVLAN, FLOW_TAG, TM_INFO and the wallclock timestamp are not. */
    public static final int SUPPORTED = STANDARD | WITH_COMPLETION_TIMESTAMP;

    private WcFlagsEx() {
    }
}
