package dev.jrxe.ib;

/**
 * Completion opcodes: rdma-core's {@code enum ibv_wc_opcode} ({@code IBV_WC_*}) with its values,
 * the {@code opcode} of {@code struct ibv_wc} ({@link dev.jrxe.verbs.WorkCompletion#opcode}): what
 * the completed work request did. Values below {@link #RECV} are send-queue completions
 * ({@link #forWr}), RECV and above receive completions. jrxe sets the opcode of error
 * completions too (RECV for a failed or flushed receive), which rdma-core leaves undefined.
 *
 * <p>Thread safety: constants and a pure function, callable from any thread.
 *
 * <pre>{@code
 * if (wc.opcode == WcOpcode.RECV_RDMA_WITH_IMM) {   // a peer's WRITE_WITH_IMM landed
 * }
 * }</pre>
 */
public final class WcOpcode {
    /** {@code IBV_WC_SEND}: a SEND, SEND_WITH_IMM or SEND_WITH_INV of the send queue. */
    public static final int SEND = 0;
    /** {@code IBV_WC_RDMA_WRITE}: an RDMA WRITE, with or without immediate, of the send queue. */
    public static final int RDMA_WRITE = 1;
    /** {@code IBV_WC_RDMA_READ}: an RDMA READ; its data is in the local buffers. */
    public static final int RDMA_READ = 2;
    /** {@code IBV_WC_COMP_SWAP}: an atomic compare-and-swap; the original 8 bytes are in the local buffer. */
    public static final int COMP_SWAP = 3;
    /** {@code IBV_WC_FETCH_ADD}: an atomic fetch-and-add; the original 8 bytes are in the local buffer. */
    public static final int FETCH_ADD = 4;
    /** {@code IBV_WC_BIND_MW}: a memory window bind ({@code ibv_bind_mw} or a BIND_MW work request). */
    public static final int BIND_MW = 5;
    /** {@code IBV_WC_LOCAL_INV}: a LOCAL_INV work request. */
    public static final int LOCAL_INV = 6;
    /** {@code IBV_WC_TSO}: a TCP segmentation offload send; jrxe never produces it. */
    public static final int TSO = 7;
    /** {@code IBV_WC_FLUSH}: a FLUSH work request. */
    public static final int FLUSH = 8;
    /** {@code IBV_WC_ATOMIC_WRITE}: an ATOMIC_WRITE work request. */
    public static final int ATOMIC_WRITE = 9;
    /** {@code IBV_WC_RECV}: a receive WQE, consumed by an incoming SEND (or flushed, or failed). */
    public static final int RECV = 128;
    /**
     * {@code IBV_WC_RECV_RDMA_WITH_IMM}: an incoming RDMA WRITE with immediate; {@code byte_len} is the
     * write's length. It consumes a receive WQE, except on an SRD QP with unsolicited write receive.
     */
    public static final int RECV_RDMA_WITH_IMM = 129;
    /**
     * {@code IBV_WC_DRIVER1}, mlx5dv's {@code MLX5DV_WC_UMR}: an indirect key configuration
     * ({@link WrOpcode#DRIVER1}, built by {@link dev.jrxe.verbs.MkeyEx}).
     */
    public static final int DRIVER1 = 135;

    private WcOpcode() {
    }

    /**
     * {@return the completion opcode a send-queue work request of {@code wrOpcode} completes with:
     * SEND for the three sends, RDMA_WRITE for both writes, and so on; {@link #DRIVER1} for
     * {@link WrOpcode#DRIVER1} and any opcode without its own}
     *
     * @param wrOpcode a {@link WrOpcode}
     */
    public static int forWr(int wrOpcode) {
        return switch (wrOpcode) {
            case WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM -> RDMA_WRITE;
            case WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.SEND_WITH_INV -> SEND;
            case WrOpcode.RDMA_READ -> RDMA_READ;
            case WrOpcode.ATOMIC_CMP_AND_SWP -> COMP_SWAP;
            case WrOpcode.ATOMIC_FETCH_AND_ADD -> FETCH_ADD;
            case WrOpcode.LOCAL_INV -> LOCAL_INV;
            case WrOpcode.BIND_MW -> BIND_MW;
            case WrOpcode.FLUSH -> FLUSH;
            case WrOpcode.ATOMIC_WRITE -> ATOMIC_WRITE;
            default -> DRIVER1;
        };
    }
}
