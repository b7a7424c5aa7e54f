package dev.jrxe.cm;

/** {@code enum rdma_cm_event_type}, with librdmacm's values. */
public final class CmEventType {
    public static final int ADDR_RESOLVED = 0;
    public static final int ADDR_ERROR = 1;
    public static final int ROUTE_RESOLVED = 2;
    public static final int ROUTE_ERROR = 3;
    public static final int CONNECT_REQUEST = 4;
    public static final int CONNECT_RESPONSE = 5;
    public static final int CONNECT_ERROR = 6;
    public static final int UNREACHABLE = 7;
    public static final int REJECTED = 8;
    public static final int ESTABLISHED = 9;
    public static final int DISCONNECTED = 10;
    public static final int DEVICE_REMOVAL = 11;
    public static final int TIMEWAIT_EXIT = 15;
    public static final int ADDRINFO_RESOLVED = 16;
    public static final int ADDRINFO_ERROR = 17;

    private CmEventType() {
    }

    /** {@code rdma_event_str}. */
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
