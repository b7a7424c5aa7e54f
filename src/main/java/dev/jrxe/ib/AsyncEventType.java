package dev.jrxe.ib;

/**
 * Asynchronous event types: rdma-core's {@code enum ibv_event_type} ({@code IBV_EVENT_*}) with
 * its values, the {@link dev.jrxe.verbs.AsyncEvent#type()} that
 * {@link dev.jrxe.verbs.Device#getAsyncEvent} and {@link dev.jrxe.verbs.Device#pollAsyncEvent}
 * return. jrxe raises CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, SQ_DRAINED, PORT_ACTIVE,
 * SRQ_LIMIT_REACHED and QP_LAST_WQE_REACHED; the other types exist for completeness.
 *
 * <p>Thread safety: constants and a pure function, callable from any thread.
 *
 * <pre>{@code
 * AsyncEvent e = dev.getAsyncEvent(1, TimeUnit.SECONDS);
 * if (e != null && e.type() == AsyncEventType.QP_FATAL) {   // e.qp() is in ERR
 * }
 * }</pre>
 */
public final class AsyncEventType {
    /** {@code IBV_EVENT_CQ_ERR}: a CQ overflowed (more completions than its {@code cqe}). */
    public static final int CQ_ERR = 0;
    /**
     * {@code IBV_EVENT_QP_FATAL}: a local work queue catastrophic error moved the QP to ERR (local
     * memory that went bad under a receive or an SRD request, an internal transport failure).
     */
    public static final int QP_FATAL = 1;
    /**
     * {@code IBV_EVENT_QP_REQ_ERR}: the QP's responder received an invalid request (bad opcode
     * sequence or length, an operation its access flags refuse), NAKed it and went to ERR.
     */
    public static final int QP_REQ_ERR = 2;
    /** {@code IBV_EVENT_QP_ACCESS_ERR}: the QP's responder refused a peer's rkey access, NAKed it and went to ERR. */
    public static final int QP_ACCESS_ERR = 3;
    /** {@code IBV_EVENT_COMM_EST}: communication established (first packet in RTR); jrxe does not raise it. */
    public static final int COMM_EST = 4;
    /**
     * {@code IBV_EVENT_SQ_DRAINED}: a QP in SQD has finished every request started before it
     * entered SQD; raised only when the modify to SQD set {@code en_sqd_async_notify}.
     */
    public static final int SQ_DRAINED = 5;
    /** {@code IBV_EVENT_PATH_MIG}: the QP migrated to its alternate path; jrxe has no APM and does not raise it. */
    public static final int PATH_MIG = 6;
    /** {@code IBV_EVENT_PATH_MIG_ERR}: path migration failed; not raised by jrxe. */
    public static final int PATH_MIG_ERR = 7;
    /** {@code IBV_EVENT_DEVICE_FATAL}: the device is unusable; not raised by jrxe. */
    public static final int DEVICE_FATAL = 8;
    /** {@code IBV_EVENT_PORT_ACTIVE}: port 1 is active; queued once when the device opens. */
    public static final int PORT_ACTIVE = 9;
    /** {@code IBV_EVENT_PORT_ERR}: a port left the active state; not raised by jrxe. */
    public static final int PORT_ERR = 10;
    /** {@code IBV_EVENT_LID_CHANGE}: the port's LID changed (InfiniBand only); not raised by jrxe. */
    public static final int LID_CHANGE = 11;
    /** {@code IBV_EVENT_PKEY_CHANGE}: the P_Key table changed; not raised by jrxe. */
    public static final int PKEY_CHANGE = 12;
    /** {@code IBV_EVENT_SM_CHANGE}: the subnet manager changed (InfiniBand only); not raised by jrxe. */
    public static final int SM_CHANGE = 13;
    /** {@code IBV_EVENT_SRQ_ERR}: an SRQ catastrophic error; not raised by jrxe. */
    public static final int SRQ_ERR = 14;
    /**
     * {@code IBV_EVENT_SRQ_LIMIT_REACHED}: fewer WQEs than the armed {@code srq_limit} remain in
     * an SRQ; raised once, then the limit is disarmed.
     */
    public static final int SRQ_LIMIT_REACHED = 15;
    /**
     * {@code IBV_EVENT_QP_LAST_WQE_REACHED}: a QP attached to an SRQ went to ERR and takes no more
     * WQEs from it: the SRQ may now be drained and the QP destroyed.
     */
    public static final int QP_LAST_WQE_REACHED = 16;
    /** {@code IBV_EVENT_CLIENT_REREGISTER}: the SM asks clients to re-register (InfiniBand); not raised by jrxe. */
    public static final int CLIENT_REREGISTER = 17;
    /** {@code IBV_EVENT_GID_CHANGE}: the GID table changed; not raised by jrxe. */
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

    /**
     * {@return the text {@code ibv_event_type_str} gives for {@code type}, such as
     * "send queue drained", or "unknown"}
     *
     * @param type an event type, one of the constants of this class
     */
    public static String str(int type) {
        return type >= 0 && type < NAMES.length ? NAMES[type] : "unknown";
    }
}
