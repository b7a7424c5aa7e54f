package dev.jrxe.ib;

/** Path MTU enumeration ({@code enum ibv_mtu}): 1..5 = 256..4096 bytes. */
public final class Mtu {
    public static final int MTU_256 = 1;
    public static final int MTU_512 = 2;
    public static final int MTU_1024 = 3;
    public static final int MTU_2048 = 4;
    public static final int MTU_4096 = 5;

    private Mtu() {
    }

    /** Bytes for an enum value, or -1 when the value is not an MTU. */
    public static int bytes(int mtu) {
        return mtu >= MTU_256 && mtu <= MTU_4096 ? 128 << mtu : -1;
    }

    /** Enum value for a byte count (256..4096, powers of two), or -1. */
    public static int fromBytes(int bytes) {
        return switch (bytes) {
            case 256 -> MTU_256;
            case 512 -> MTU_512;
            case 1024 -> MTU_1024;
            case 2048 -> MTU_2048;
            case 4096 -> MTU_4096;
            default -> -1;
        };
    }

    /** Largest MTU enum whose bytes fit in {@code bytes}, at least 256. */
    public static int floor(int bytes) {
        int m = MTU_4096;
        while (m > MTU_256 && bytes(m) > bytes) {
            m--;
        }
        return m;
    }
}
