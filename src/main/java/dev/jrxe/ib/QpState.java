package dev.jrxe.ib;

/** QP states ({@code enum ibv_qp_state}). */
public final class QpState {
    public static final int RESET = 0;
    public static final int INIT = 1;
    public static final int RTR = 2;
    public static final int RTS = 3;
    public static final int SQD = 4;
    public static final int SQE = 5;
    public static final int ERR = 6;
    public static final int COUNT = 7;

    private QpState() {
    }

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
