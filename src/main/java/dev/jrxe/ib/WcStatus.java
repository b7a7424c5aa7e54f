package dev.jrxe.ib;

/**
 * Completion statuses: rdma-core's {@code enum ibv_wc_status} ({@code IBV_WC_*}) with its values,
 * the {@code status} of {@code struct ibv_wc} ({@link dev.jrxe.verbs.WorkCompletion#status}), and
 * their {@code ibv_wc_status_str} texts. A request that fails completes even when it was not
 * signaled; after most errors the QP goes to ERR and the rest of its requests complete with
 * {@link #WR_FLUSH_ERR} (an SRD QP goes on after remote errors and peer timeouts). Each constant
 * says when jrxe reports it.
 *
 * <p>Thread safety: constants and pure functions, callable from any thread.
 *
 * <pre>{@code
 * if (wc.status != WcStatus.SUCCESS) {
 *     System.err.println(WcStatus.str(wc.status));   // e.g. "remote access error"
 * }
 * }</pre>
 */
public final class WcStatus {
    /** {@code IBV_WC_SUCCESS}: the work request completed; every field of the completion is valid. */
    public static final int SUCCESS = 0;
    /**
     * {@code IBV_WC_LOC_LEN_ERR}: local length error: an incoming SEND does not fit the receive
     * buffer (RC: the QP goes to ERR and the sender gets REM_INV_REQ_ERR; UC, UD, SRD: the QP goes
     * on), or a UD send is longer than the path MTU (the QP goes on).
     */
    public static final int LOC_LEN_ERR = 1;
    /**
     * {@code IBV_WC_LOC_QP_OP_ERR}: local QP operation error: a LOCAL_INV refused: the key is a
     * registered MR, a type 1 window, names nothing, or is a window or indirect key not valid for
     * it (not bound, another PD or key value).
     */
    public static final int LOC_QP_OP_ERR = 2;
    /** {@code IBV_WC_LOC_EEC_OP_ERR}: local EE context operation error (RD only); jrxe never reports it. */
    public static final int LOC_EEC_OP_ERR = 3;
    /**
     * {@code IBV_WC_LOC_PROT_ERR}: local protection error: a local SGE's lkey is invalid, of another
     * PD, lacks the access needed (LOCAL_WRITE to be written) or its range lies outside the region,
     * or local memory went bad (unmapped) during the transfer; the QP goes to ERR.
     */
    public static final int LOC_PROT_ERR = 4;
    /**
     * {@code IBV_WC_WR_FLUSH_ERR}: flushed: the QP is in ERR; every outstanding send WQE and WQE
     * of its own receive queue (not an SRQ's), and every one posted while in ERR, completes so.
     */
    public static final int WR_FLUSH_ERR = 5;
    /**
     * {@code IBV_WC_MW_BIND_ERR} (memory management operation error): a memory window bind rxe's
     * rules refuse (wrong window key or PD, a type 2 window not free, a region without MW_BIND, a
     * range outside it, ...), or an indirect key configuration ({@link WrOpcode#DRIVER1}) refused.
     */
    public static final int MW_BIND_ERR = 6;
    /**
     * {@code IBV_WC_BAD_RESP_ERR}: bad response: an RC READ response of the wrong length, or a
     * FLUSH / ATOMIC_WRITE response that is not an empty READ RESPONSE ONLY; the QP goes to ERR.
     */
    public static final int BAD_RESP_ERR = 7;
    /**
     * {@code IBV_WC_LOC_ACCESS_ERR}: local access error (IBTA: a protection error on a local buffer
     * taking an incoming RDMA WRITE with immediate); jrxe never reports it.
     */
    public static final int LOC_ACCESS_ERR = 8;
    /**
     * {@code IBV_WC_REM_INV_REQ_ERR}: remote invalid request: the responder NAKed it (NAK code 1):
     * an operation its QP's access flags refuse, a bad opcode sequence or packet length, a message
     * too long for the receive, a misaligned atomic; at the receiver, a SEND_WITH_INV whose key may
     * not be invalidated. An RC QP goes to ERR.
     */
    public static final int REM_INV_REQ_ERR = 9;
    /**
     * {@code IBV_WC_REM_ACCESS_ERR}: remote access error (NAK code 2): the responder's rkey is
     * invalid, of another PD, lacks the right asked for or does not cover the range; the QPs of
     * both sides go to ERR (RC).
     */
    public static final int REM_ACCESS_ERR = 10;
    /**
     * {@code IBV_WC_REM_OP_ERR}: remote operation error (NAK code 3; on RC also a code jrxe does
     * not know): the responder could not place the data, e.g. its receive buffer was bad (that
     * receive completed with LOC_PROT_ERR).
     */
    public static final int REM_OP_ERR = 11;
    /**
     * {@code IBV_WC_RETRY_EXC_ERR}: transport retry counter exceeded: RC: the {@code retry_cnt}
     * retransmissions (after ACK timeouts, sequence NAKs, missing READ responses) are used up;
     * SRD: the peer left a packet unanswered for the SRD timeout.
     */
    public static final int RETRY_EXC_ERR = 12;
    /**
     * {@code IBV_WC_RNR_RETRY_EXC_ERR}: RNR retry counter exceeded: the responder had no receive
     * WQE and sent RNR NAKs more than {@code rnr_retry} times (7: never gives up).
     */
    public static final int RNR_RETRY_EXC_ERR = 13;
    /** {@code IBV_WC_LOC_RDD_VIOL_ERR}: local RD domain violation (RD only); jrxe never reports it. */
    public static final int LOC_RDD_VIOL_ERR = 14;
    /**
     * {@code IBV_WC_REM_INV_RD_REQ_ERR}: remote invalid RD request: an RC peer's NAK with code 4;
     * jrxe's responder never sends that code.
     */
    public static final int REM_INV_RD_REQ_ERR = 15;
    /** {@code IBV_WC_REM_ABORT_ERR}: the responder aborted the operation; jrxe never reports it. */
    public static final int REM_ABORT_ERR = 16;
    /** {@code IBV_WC_INV_EECN_ERR}: invalid EE context number (RD only); jrxe never reports it. */
    public static final int INV_EECN_ERR = 17;
    /** {@code IBV_WC_INV_EEC_STATE_ERR}: invalid EE context state (RD only); jrxe never reports it. */
    public static final int INV_EEC_STATE_ERR = 18;
    /**
     * {@code IBV_WC_FATAL_ERR}: fatal error; jrxe never reports it (a transport failure moves the
     * QP to ERR with IBV_EVENT_QP_FATAL, and its requests complete with WR_FLUSH_ERR).
     */
    public static final int FATAL_ERR = 19;
    /**
     * {@code IBV_WC_RESP_TIMEOUT_ERR}: response timeout; jrxe never reports it (a missing response
     * ends in RETRY_EXC_ERR).
     */
    public static final int RESP_TIMEOUT_ERR = 20;
    /** {@code IBV_WC_GENERAL_ERR}: general error; jrxe never reports it. */
    public static final int GENERAL_ERR = 21;

    private static final String[] TEXT = {
        "success", "local length error", "local QP operation error", "local EE context operation error",
        "local protection error", "Work Request Flushed Error", "memory management operation error",
        "bad response error", "local access error", "remote invalid request error", "remote access error",
        "remote operation error", "transport retry counter exceeded", "RNR retry counter exceeded",
        "local RDD violation error", "remote invalid RD request", "aborted error", "invalid EE context number",
        "invalid EE context state", "fatal error", "response timeout error", "general error",
    };

    private static final String[] NAMES = {
        "SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR", "MW_BIND_ERR",
        "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR", "RETRY_EXC_ERR",
        "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR", "INV_EECN_ERR",
        "INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR",
    };

    private WcStatus() {
    }

    /**
     * {@return the text {@code ibv_wc_status_str} gives for {@code status}, such as
     * "transport retry counter exceeded", or "unknown"}
     *
     * @param status a completion status
     */
    public static String str(int status) {
        return status >= 0 && status < TEXT.length ? TEXT[status] : "unknown";
    }

    /**
     * {@return the enumerator's name without its {@code IBV_WC_} prefix, such as "RETRY_EXC_ERR", or
     * the number in decimal for another value}
     *
     * @param status a completion status
     */
    public static String name(int status) {
        return status >= 0 && status < NAMES.length ? NAMES[status] : Integer.toString(status);
    }
}
