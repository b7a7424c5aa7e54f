package dev.jrxe.ib;

/** QP types ({@code enum ibv_qp_type}). */
public final class QpType {
    public static final int RC = 2;
    public static final int UC = 3;
    public static final int UD = 4;
    public static final int RAW_PACKET = 8;
    public static final int XRC_SEND = 9;
    public static final int XRC_RECV = 10;
    public static final int DRIVER = 0xff;

    private QpType() {
    }

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
