package dev.jrxe.ib;

/** Asynchronous event types ({@code enum ibv_event_type}). */
public final class AsyncEventType {
    public static final int CQ_ERR = 0;
    public static final int QP_FATAL = 1;
    public static final int QP_REQ_ERR = 2;
    public static final int QP_ACCESS_ERR = 3;
    public static final int COMM_EST = 4;
    public static final int SQ_DRAINED = 5;
    public static final int PATH_MIG = 6;
    public static final int PATH_MIG_ERR = 7;
    public static final int DEVICE_FATAL = 8;
    public static final int PORT_ACTIVE = 9;
    public static final int PORT_ERR = 10;
    public static final int LID_CHANGE = 11;
    public static final int PKEY_CHANGE = 12;
    public static final int SM_CHANGE = 13;
    public static final int SRQ_ERR = 14;
    public static final int SRQ_LIMIT_REACHED = 15;
    public static final int QP_LAST_WQE_REACHED = 16;
    public static final int CLIENT_REREGISTER = 17;
    public static final int GID_CHANGE = 18;

    private static final String[] NAMES = {
        "CQ error", "local work queue catastrophic error", "invalid request local work queue error",
        "local access violation work queue error", "communication established", "send queue drained",
        "path migrated", "path migration request error", "local catastrophic error", "port active",
        "port error", "LID change", "P_Key change", "SM change", "SRQ catastrophic error",
        "SRQ limit reached", "last WQE reached", "client reregistration", "GID table change",
    };

    private AsyncEventType() {
    }

    /** The text {@code ibv_event_type_str} gives. */
    public static String str(int type) {
        return type >= 0 && type < NAMES.length ? NAMES[type] : "unknown";
    }
}
