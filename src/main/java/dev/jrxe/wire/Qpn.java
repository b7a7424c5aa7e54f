package dev.jrxe.wire;

/** 24-bit queue pair numbers and the well-known ones. */
public final class Qpn {
    private Qpn() {
    }

    public static final int MASK = 0xFFFFFF;
    /** Subnet management QP (not used over RoCE). */
    public static final int SMI = 0;
    /** General services interface QP (CM MADs). */
    public static final int GSI = 1;
    /** Destination QPN of multicast packets. */
    public static final int MULTICAST = 0xFFFFFF;
    /** Q_Key of the GSI QP. */
    public static final int GSI_QKEY = 0x80010000;

    /** The low 24 bits of {@code qpn}. */
    public static int mask(int qpn) {
        return qpn & MASK;
    }

    /** Whether {@code qpn} fits in 24 bits. */
    public static boolean isValid(int qpn) {
        return (qpn & ~MASK) == 0;
    }
}
