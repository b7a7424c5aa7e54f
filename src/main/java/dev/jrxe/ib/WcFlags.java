package dev.jrxe.ib;

/**
 * Work-completion flags: rdma-core's {@code enum ibv_wc_flags} ({@code IBV_WC_*}) with its values,
 * the {@code wc_flags} of {@code struct ibv_wc} ({@link dev.jrxe.verbs.WorkCompletion#wcFlags}),
 * plus one jrxe SRD bit above them.
 *
 * <p>Thread safety: constants only.
 *
 * <pre>{@code
 * if ((wc.wcFlags & WcFlags.WITH_IMM) != 0) {
 *     int imm = wc.immData;
 * }
 * }</pre>
 */
public final class WcFlags {
    /**
     * {@code IBV_WC_GRH}: the first 40 bytes of the receive buffer hold the packet's GRH area (for
     * RoCEv2 the IPv4 header in its last 20 bytes); set on every UD receive.
     */
    public static final int GRH = 1;
    /** {@code IBV_WC_WITH_IMM}: {@code imm_data} holds the immediate of a SEND or RDMA WRITE with immediate. */
    public static final int WITH_IMM = 1 << 1;
    /** {@code IBV_WC_IP_CSUM_OK}: the IP checksum was verified by the device; jrxe does not set it. */
    public static final int IP_CSUM_OK = 1 << 2;
    /** {@code IBV_WC_WITH_INV}: a SEND_WITH_INV invalidated the rkey in {@code invalidated_rkey}. */
    public static final int WITH_INV = 1 << 3;
    /**
     * jrxe SRD: a WRITE_WITH_IMM that consumed no receive WQE (the QP was created with
     * {@link dev.jrxe.verbs.SrdDv#UNSOLICITED_WRITE_RECV}); what {@code efadv_wc_is_unsolicited}
     * reports ({@link dev.jrxe.verbs.WorkCompletion#isUnsolicited}). Not an ibv_wc_flags bit:
     * chosen above them.
     */
    public static final int UNSOLICITED = 1 << 16;

    private WcFlags() {
    }
}
