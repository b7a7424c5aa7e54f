package dev.jrxe.ib;

/**
 * {@code send_ops_flags} of {@code ibv_qp_init_attr_ex} (rdma-core
 * {@code enum ibv_qp_create_send_ops_flags}): which extended-API builders a QP accepts.
 */
public final class SendOps {
    public static final int RDMA_WRITE = 1;
    public static final int RDMA_WRITE_WITH_IMM = 1 << 1;
    public static final int SEND = 1 << 2;
    public static final int SEND_WITH_IMM = 1 << 3;
    public static final int RDMA_READ = 1 << 4;
    public static final int ATOMIC_CMP_AND_SWP = 1 << 5;
    public static final int ATOMIC_FETCH_AND_ADD = 1 << 6;
    public static final int LOCAL_INV = 1 << 7;
    public static final int BIND_MW = 1 << 8;
    public static final int SEND_WITH_INV = 1 << 9;
    public static final int TSO = 1 << 10;
    public static final int FLUSH = 1 << 11;
    public static final int ATOMIC_WRITE = 1 << 12;

    /** Everything jrxe's RC QPs accept (all but TSO, a raw-packet/UD operation). */
    public static final int RC_SUPPORTED = RDMA_WRITE | RDMA_WRITE_WITH_IMM | SEND | SEND_WITH_IMM | RDMA_READ
        | ATOMIC_CMP_AND_SWP | ATOMIC_FETCH_AND_ADD | LOCAL_INV | BIND_MW | SEND_WITH_INV | FLUSH | ATOMIC_WRITE;
    /** What a UC QP supports: sends, writes and the local operations. */
    public static final int UC_SUPPORTED = RDMA_WRITE | RDMA_WRITE_WITH_IMM | SEND | SEND_WITH_IMM | LOCAL_INV | BIND_MW;
    /** What a UD QP supports: sends. */
    public static final int UD_SUPPORTED = SEND | SEND_WITH_IMM;

    /** What a jrxe SRD QP ({@link QpType#DRIVER}) supports: sends, writes and reads. */
    public static final int SRD_SUPPORTED = SEND | SEND_WITH_IMM | RDMA_WRITE | RDMA_WRITE_WITH_IMM | RDMA_READ;

    /** The send_ops_flags a QP of {@code qpType} ({@link QpType}) may be created with. */
    public static int supported(int qpType) {
        return switch (qpType) {
            case QpType.RC -> RC_SUPPORTED;
            case QpType.UC -> UC_SUPPORTED;
            case QpType.UD -> UD_SUPPORTED;
            case QpType.DRIVER -> SRD_SUPPORTED;
            default -> 0;
        };
    }

    private SendOps() {
    }
}
