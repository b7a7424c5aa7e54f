package dev.jrxe.ib;

/** Work-request opcodes ({@code enum ibv_wr_opcode}). */
public final class WrOpcode {
    public static final int RDMA_WRITE = 0;
    public static final int RDMA_WRITE_WITH_IMM = 1;
    public static final int SEND = 2;
    public static final int SEND_WITH_IMM = 3;
    public static final int RDMA_READ = 4;
    public static final int ATOMIC_CMP_AND_SWP = 5;
    public static final int ATOMIC_FETCH_AND_ADD = 6;
    public static final int LOCAL_INV = 7;
    public static final int BIND_MW = 8;
    public static final int SEND_WITH_INV = 9;
    public static final int TSO = 10;
    public static final int DRIVER1 = 11;
    public static final int FLUSH = 14;
    public static final int ATOMIC_WRITE = 15;

    private WrOpcode() {
    }

    public static boolean isAtomic(int op) {
        return op == ATOMIC_CMP_AND_SWP || op == ATOMIC_FETCH_AND_ADD;
    }

    public static boolean isSend(int op) {
        return op == SEND || op == SEND_WITH_IMM || op == SEND_WITH_INV;
    }

    public static boolean isWrite(int op) {
        return op == RDMA_WRITE || op == RDMA_WRITE_WITH_IMM;
    }

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
