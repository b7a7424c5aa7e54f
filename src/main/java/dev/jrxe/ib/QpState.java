package dev.jrxe.ib;

/**
 * QP states: rdma-core's {@code enum ibv_qp_state} ({@code IBV_QPS_*}) with its values, the
 * {@code qp_state} of {@code struct ibv_qp_attr} and what {@link dev.jrxe.verbs.QueuePair#state}
 * returns. A QP is created in RESET and moved by {@link dev.jrxe.verbs.QueuePair#modify} along the
 * IBTA state machine (RESET, INIT, RTR, RTS; any state to RESET or ERR); the device itself moves
 * it to ERR on a fatal error. Receives may be posted in every state but RESET, sends in RTS, SQD,
 * SQE and ERR (elsewhere EINVAL); incoming requests are served in RTR, RTS and SQD.
 *
 * <p>Thread safety: constants and a pure function, callable from any thread.
 *
 * <pre>{@code
 * if (qp.state() == QpState.ERR) {   // modify to RESET, then INIT, to use it again
 * }
 * }</pre>
 */
public final class QpState {
    /** {@code IBV_QPS_RESET}: just created or reset: queues emptied, nothing sent or received. */
    public static final int RESET = 0;
    /** {@code IBV_QPS_INIT}: initialized (port, P_Key, access or Q_Key set); receives may be posted. */
    public static final int INIT = 1;
    /** {@code IBV_QPS_RTR}: ready to receive: the responder serves incoming requests; nothing is sent. */
    public static final int RTR = 2;
    /** {@code IBV_QPS_RTS}: ready to send: the requester executes posted send requests. */
    public static final int RTS = 3;
    /**
     * {@code IBV_QPS_SQD}: send queue drain: requests under way finish, new ones wait; until the
     * drain ends (then IBV_EVENT_SQ_DRAINED, when asked for) any modify but to ERR is EINVAL.
     */
    public static final int SQD = 4;
    /** {@code IBV_QPS_SQE}: send queue error (UD, UC); jrxe never enters it: its errors move a QP to ERR. */
    public static final int SQE = 5;
    /**
     * {@code IBV_QPS_ERR}: error: nothing is sent or received; outstanding work requests, and those
     * posted while in ERR, complete with {@link WcStatus#WR_FLUSH_ERR}.
     */
    public static final int ERR = 6;
    /** The number of states (RESET .. ERR); the value of {@code IBV_QPS_UNKNOWN}, which is no state. */
    public static final int COUNT = 7;

    private QpState() {
    }

    /**
     * {@return the enumerator's name without its {@code IBV_QPS_} prefix, such as "RTS", or
     * "STATE_" and the number for another value}
     *
     * @param s a QP state
     */
    public static String name(int s) {
        return switch (s) {
            case RESET -> "RESET";
            case INIT -> "INIT";
            case RTR -> "RTR";
            case RTS -> "RTS";
            case SQD -> "SQD";
            case SQE -> "SQE";
            case ERR -> "ERR";
            default -> "STATE_" + s;
        };
    }
}
