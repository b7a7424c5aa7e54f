package dev.jrxe.cm;

/**
 * {@code enum rdma_cm_event_type}, with librdmacm's values: the {@link CmEvent#type()} of an
 * event on an {@link EventChannel}. Constants only (and a pure function): safe from any thread.
 *
 * <pre>{@code
 * CmEvent e = channel.getEvent();
 * if (e.type() == CmEventType.ESTABLISHED) {   // the connection is up
 * }
 * }</pre>
 */
public final class CmEventType {
    /** RDMA_CM_EVENT_ADDR_RESOLVED: {@link CmId#resolveAddr} is done (at once: no ARP). */
    public static final int ADDR_RESOLVED = 0;
    /**
     * RDMA_CM_EVENT_ADDR_ERROR: for a UD id, a SIDR_REP with a Q_Key other than
     * {@link ServiceIds#UDP_QKEY} (status -EINVAL).
     */
    public static final int ADDR_ERROR = 1;
    /** RDMA_CM_EVENT_ROUTE_RESOLVED: {@link CmId#resolveRoute} is done (at once: no path query). */
    public static final int ROUTE_RESOLVED = 2;
    /** RDMA_CM_EVENT_ROUTE_ERROR: librdmacm's value; jrxe never reports it. */
    public static final int ROUTE_ERROR = 3;
    /** RDMA_CM_EVENT_CONNECT_REQUEST: a REQ (or SIDR_REQ) came to a listener; the event's id is the new passive id. */
    public static final int CONNECT_REQUEST = 4;
    /** RDMA_CM_EVENT_CONNECT_RESPONSE: librdmacm's value (ids without a QP); jrxe never reports it. */
    public static final int CONNECT_RESPONSE = 5;
    /**
     * RDMA_CM_EVENT_CONNECT_ERROR: the active side could not move its QP to RTR/RTS on the REP (status
     * -errno; a REJ went to the peer).
     */
    public static final int CONNECT_ERROR = 6;
    /**
     * RDMA_CM_EVENT_UNREACHABLE: the REQ or REP went unanswered through all its retries (status
     * -ETIMEDOUT), or a SIDR_REP refused (status the SIDR status).
     */
    public static final int UNREACHABLE = 7;
    /** RDMA_CM_EVENT_REJECTED: the peer sent a REJ; status is the {@link CmMessages.RejReason}. */
    public static final int REJECTED = 8;
    /**
     * RDMA_CM_EVENT_ESTABLISHED: the connection is up (active: REP taken, RTU sent; passive: RTU
     * taken; UD: SIDR_REP taken).
     */
    public static final int ESTABLISHED = 9;
    /** RDMA_CM_EVENT_DISCONNECTED: the peer's DREQ came, our DREQ was answered, or its last retry went unanswered. */
    public static final int DISCONNECTED = 10;
    /** RDMA_CM_EVENT_DEVICE_REMOVAL: librdmacm's value; jrxe never reports it. */
    public static final int DEVICE_REMOVAL = 11;
    /** RDMA_CM_EVENT_TIMEWAIT_EXIT: librdmacm's value; jrxe never reports it. */
    public static final int TIMEWAIT_EXIT = 15;
    /** RDMA_CM_EVENT_ADDRINFO_RESOLVED: {@link CmId#resolveAddrinfo} found an address ({@link CmId#queryAddrinfo}). */
    public static final int ADDRINFO_RESOLVED = 16;
    /** RDMA_CM_EVENT_ADDRINFO_ERROR: {@link CmId#resolveAddrinfo} failed (status -EINVAL or -ENOENT). */
    public static final int ADDRINFO_ERROR = 17;

    private CmEventType() {
    }

    /**
     * {@code rdma_event_str}.
     *
     * @param type an event type, one of these constants
     * @return its librdmacm name, such as {@code "RDMA_CM_EVENT_ESTABLISHED"}, or
     *     {@code "UNKNOWN EVENT n"}
     */
    public static String str(int type) {
        return switch (type) {
            case ADDR_RESOLVED -> "RDMA_CM_EVENT_ADDR_RESOLVED";
            case ADDR_ERROR -> "RDMA_CM_EVENT_ADDR_ERROR";
            case ROUTE_RESOLVED -> "RDMA_CM_EVENT_ROUTE_RESOLVED";
            case ROUTE_ERROR -> "RDMA_CM_EVENT_ROUTE_ERROR";
            case CONNECT_REQUEST -> "RDMA_CM_EVENT_CONNECT_REQUEST";
            case CONNECT_RESPONSE -> "RDMA_CM_EVENT_CONNECT_RESPONSE";
            case CONNECT_ERROR -> "RDMA_CM_EVENT_CONNECT_ERROR";
            case UNREACHABLE -> "RDMA_CM_EVENT_UNREACHABLE";
            case REJECTED -> "RDMA_CM_EVENT_REJECTED";
            case ESTABLISHED -> "RDMA_CM_EVENT_ESTABLISHED";
            case DISCONNECTED -> "RDMA_CM_EVENT_DISCONNECTED";
            case DEVICE_REMOVAL -> "RDMA_CM_EVENT_DEVICE_REMOVAL";
            case TIMEWAIT_EXIT -> "RDMA_CM_EVENT_TIMEWAIT_EXIT";
            case ADDRINFO_RESOLVED -> "RDMA_CM_EVENT_ADDRINFO_RESOLVED";
            case ADDRINFO_ERROR -> "RDMA_CM_EVENT_ADDRINFO_ERROR";
            default -> "UNKNOWN EVENT " + type;
        };
    }
}
