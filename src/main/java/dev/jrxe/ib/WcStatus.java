package dev.jrxe.ib;

/** Completion statuses ({@code enum ibv_wc_status}) and their {@code ibv_wc_status_str} texts. */
public final class WcStatus {
    public static final int SUCCESS = 0;
    public static final int LOC_LEN_ERR = 1;
    public static final int LOC_QP_OP_ERR = 2;
    public static final int LOC_EEC_OP_ERR = 3;
    public static final int LOC_PROT_ERR = 4;
    public static final int WR_FLUSH_ERR = 5;
    public static final int MW_BIND_ERR = 6;
    public static final int BAD_RESP_ERR = 7;
    public static final int LOC_ACCESS_ERR = 8;
    public static final int REM_INV_REQ_ERR = 9;
    public static final int REM_ACCESS_ERR = 10;
    public static final int REM_OP_ERR = 11;
    public static final int RETRY_EXC_ERR = 12;
    public static final int RNR_RETRY_EXC_ERR = 13;
    public static final int LOC_RDD_VIOL_ERR = 14;
    public static final int REM_INV_RD_REQ_ERR = 15;
    public static final int REM_ABORT_ERR = 16;
    public static final int INV_EECN_ERR = 17;
    public static final int INV_EEC_STATE_ERR = 18;
    public static final int FATAL_ERR = 19;
    public static final int RESP_TIMEOUT_ERR = 20;
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

    /** The text {@code ibv_wc_status_str} gives. */
    public static String str(int status) {
        return status >= 0 && status < TEXT.length ? TEXT[status] : "unknown";
    }

    /** The enumerator's name without its {@code IBV_WC_} prefix ("RETRY_EXC_ERR"), or the number. */
    public static String name(int status) {
        return status >= 0 && status < NAMES.length ? NAMES[status] : Integer.toString(status);
    }
}
