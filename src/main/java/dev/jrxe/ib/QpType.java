package dev.jrxe.ib;

/**
 * QP transport types: rdma-core's {@code enum ibv_qp_type} ({@code IBV_QPT_*}) with its values, the
 * {@code qp_type} of {@code struct ibv_qp_init_attr} ({@link dev.jrxe.verbs.QpInitAttr#qpType}).
 * {@link dev.jrxe.verbs.ProtectionDomain#createQp} makes RC, UC and UD QPs;
 * {@link dev.jrxe.verbs.SrdDv#createQp} makes jrxe's SRD QPs, whose type is {@link #DRIVER} (as
 * EFA's). Any other type is EOPNOTSUPP at creation.
 *
 * <p>Thread safety: constants and a pure function, callable from any thread.
 *
 * <pre>{@code
 * QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 16, 1, 1, 0)));
 * }</pre>
 */
public final class QpType {
    /** {@code IBV_QPT_RC}: reliable connected: acknowledged, retransmitted, in order; every operation. */
    public static final int RC = 2;
    /** {@code IBV_QPT_UC}: unreliable connected: SENDs and RDMA WRITEs, no acknowledgements or retries. */
    public static final int UC = 3;
    /** {@code IBV_QPT_UD}: unreliable datagram: single-packet SENDs to any UD QP, with a GRH area in each receive. */
    public static final int UD = 4;
    /** {@code IBV_QPT_RAW_PACKET}: raw Ethernet packets; not supported by jrxe. */
    public static final int RAW_PACKET = 8;
    /** {@code IBV_QPT_XRC_SEND}: XRC initiator; not supported by jrxe. */
    public static final int XRC_SEND = 9;
    /** {@code IBV_QPT_XRC_RECV}: XRC target; not supported by jrxe. */
    public static final int XRC_RECV = 10;
    /**
     * {@code IBV_QPT_DRIVER}: a provider-defined type; in jrxe an SRD QP (scalable reliable
     * datagram, after EFA): reliable, unordered datagrams with SEND, RDMA WRITE and READ.
     */
    public static final int DRIVER = 0xff;

    private QpType() {
    }

    /**
     * {@return the enumerator's name without its {@code IBV_QPT_} prefix ("RC", "UC", "UD",
     * "RAW_PACKET", "DRIVER"), or "QPT_" and the number for another value}
     *
     * @param t a QP type
     */
    public static String name(int t) {
        return switch (t) {
            case RC -> "RC";
            case UC -> "UC";
            case UD -> "UD";
            case RAW_PACKET -> "RAW_PACKET";
            case DRIVER -> "DRIVER";
            default -> "QPT_" + t;
        };
    }
}
