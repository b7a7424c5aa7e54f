package dev.jrxe.ib;

/** Completion opcodes ({@code enum ibv_wc_opcode}). */
public final class WcOpcode {
    public static final int SEND = 0;
    public static final int RDMA_WRITE = 1;
    public static final int RDMA_READ = 2;
    public static final int COMP_SWAP = 3;
    public static final int FETCH_ADD = 4;
    public static final int BIND_MW = 5;
    public static final int LOCAL_INV = 6;
    public static final int TSO = 7;
    public static final int FLUSH = 8;
    public static final int ATOMIC_WRITE = 9;
    public static final int RECV = 128;
    public static final int RECV_RDMA_WITH_IMM = 129;
    public static final int DRIVER1 = 135;

    private WcOpcode() {
    }

    /** Completion opcode for a send-queue work request opcode. */
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
