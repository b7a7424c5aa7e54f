package dev.jrxe.ib;

/**
 * Work-request opcodes: rdma-core's {@code enum ibv_wr_opcode} ({@code IBV_WR_*}) with its values,
 * the {@code opcode} of {@code struct ibv_send_wr} ({@link dev.jrxe.verbs.SendWr#opcode}). Each
 * says which QP types take it: another type is EINVAL at post. A request completes with the
 * opcode {@link WcOpcode#forWr} gives.
 *
 * <p>Thread safety: constants and pure functions, callable from any thread.
 *
 * <pre>{@code
 * wr.opcode = WrOpcode.RDMA_WRITE;
 * }</pre>
 */
public final class WrOpcode {
    /**
     * {@code IBV_WR_RDMA_WRITE}: write the local buffers to the peer's memory at {@code remote_addr}
     * under its {@code rkey} (RC, UC, SRD).
     */
    public static final int RDMA_WRITE = 0;
    /**
     * {@code IBV_WR_RDMA_WRITE_WITH_IMM}: an RDMA WRITE that also completes a receive at the peer
     * ({@link WcOpcode#RECV_RDMA_WITH_IMM}) carrying the 32-bit {@code imm_data} (RC, UC, SRD).
     */
    public static final int RDMA_WRITE_WITH_IMM = 1;
    /** {@code IBV_WR_SEND}: a message into the peer's next receive WQE (every QP type). */
    public static final int SEND = 2;
    /** {@code IBV_WR_SEND_WITH_IMM}: a SEND that also carries the 32-bit {@code imm_data} (every QP type). */
    public static final int SEND_WITH_IMM = 3;
    /** {@code IBV_WR_RDMA_READ}: read the peer's memory into the local buffers, which need LOCAL_WRITE (RC, SRD). */
    public static final int RDMA_READ = 4;
    /**
     * {@code IBV_WR_ATOMIC_CMP_AND_SWP}: 8-byte compare-and-swap at an 8-byte aligned remote address;
     * the original value lands in the 8-byte local buffer (RC; another length: EINVAL).
     */
    public static final int ATOMIC_CMP_AND_SWP = 5;
    /**
     * {@code IBV_WR_ATOMIC_FETCH_AND_ADD}: 8-byte fetch-and-add at an 8-byte aligned remote address;
     * the original value lands in the 8-byte local buffer (RC; another length: EINVAL).
     */
    public static final int ATOMIC_FETCH_AND_ADD = 6;
    /**
     * {@code IBV_WR_LOCAL_INV}: invalidate a local memory window or indirect key, without a packet,
     * in send-queue order; on RC once every earlier request has completed (RC, UC; refused:
     * {@link WcStatus#LOC_QP_OP_ERR}).
     */
    public static final int LOCAL_INV = 7;
    /**
     * {@code IBV_WR_BIND_MW}: bind a memory window to a range of a region, without a packet (RC, UC;
     * refused: {@link WcStatus#MW_BIND_ERR}).
     */
    public static final int BIND_MW = 8;
    /** {@code IBV_WR_SEND_WITH_INV}: a SEND that also invalidates {@code invalidate_rkey} at the peer (RC). */
    public static final int SEND_WITH_INV = 9;
    /** {@code IBV_WR_TSO}: a TCP segmentation offload send (raw packet, UD); no jrxe QP takes it (EINVAL). */
    public static final int TSO = 10;
    /**
     * {@code IBV_WR_DRIVER1}: provider-defined; in jrxe, as in mlx5, the UMR that configures an indirect
     * key ({@link dev.jrxe.verbs.MkeyEx}), executed once every earlier request has completed (RC).
     */
    public static final int DRIVER1 = 11;
    /**
     * {@code IBV_WR_FLUSH}: make earlier writes to a remote range or region visible or persistent
     * ({@link Flush}); no SGEs (RC).
     */
    public static final int FLUSH = 14;
    /** {@code IBV_WR_ATOMIC_WRITE}: write 8 bytes to the remote address in one piece; no SGEs (RC). */
    public static final int ATOMIC_WRITE = 15;

    private WrOpcode() {
    }

    /**
     * {@return whether {@code op} is ATOMIC_CMP_AND_SWP or ATOMIC_FETCH_AND_ADD (not ATOMIC_WRITE)}
     *
     * @param op a work-request opcode
     */
    public static boolean isAtomic(int op) {
        return op == ATOMIC_CMP_AND_SWP || op == ATOMIC_FETCH_AND_ADD;
    }

    /**
     * {@return whether {@code op} is SEND, SEND_WITH_IMM or SEND_WITH_INV}
     *
     * @param op a work-request opcode
     */
    public static boolean isSend(int op) {
        return op == SEND || op == SEND_WITH_IMM || op == SEND_WITH_INV;
    }

    /**
     * {@return whether {@code op} is RDMA_WRITE or RDMA_WRITE_WITH_IMM (not ATOMIC_WRITE)}
     *
     * @param op a work-request opcode
     */
    public static boolean isWrite(int op) {
        return op == RDMA_WRITE || op == RDMA_WRITE_WITH_IMM;
    }

    /**
     * {@return the enumerator's name without its {@code IBV_WR_} prefix, such as "RDMA_READ", or
     * "WR_" and the number for TSO, DRIVER1 and values that are no opcode}
     *
     * @param op a work-request opcode
     */
    public static String name(int op) {
        return switch (op) {
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_WRITE_WITH_IMM -> "RDMA_WRITE_WITH_IMM";
            case SEND -> "SEND";
            case SEND_WITH_IMM -> "SEND_WITH_IMM";
            case RDMA_READ -> "RDMA_READ";
            case ATOMIC_CMP_AND_SWP -> "ATOMIC_CMP_AND_SWP";
            case ATOMIC_FETCH_AND_ADD -> "ATOMIC_FETCH_AND_ADD";
            case LOCAL_INV -> "LOCAL_INV";
            case BIND_MW -> "BIND_MW";
            case SEND_WITH_INV -> "SEND_WITH_INV";
            case FLUSH -> "FLUSH";
            case ATOMIC_WRITE -> "ATOMIC_WRITE";
            default -> "WR_" + op;
        };
    }
}
