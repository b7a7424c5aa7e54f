package dev.jrxe.ib;

/**
 * Path MTU enumeration: rdma-core's {@code enum ibv_mtu} ({@code IBV_MTU_256} = 1 ..
 * {@code IBV_MTU_4096} = 5, that is 256 .. 4096 bytes of payload per packet), used by
 * {@code path_mtu} of {@code struct ibv_qp_attr} and the port's {@code active_mtu}
 * ({@link dev.jrxe.verbs.Device#activeMtu}). A {@code modify} with any other {@code path_mtu} is
 * EINVAL; a valid one larger than the device's active MTU is lowered to it.
 *
 * <p>Thread safety: constants and pure functions, callable from any thread.
 *
 * <pre>{@code
 * new RcConnect().pathMtu(Mtu.MTU_4096);   // Mtu.bytes(Mtu.MTU_4096) == 4096
 * }</pre>
 */
public final class Mtu {
    /** {@code IBV_MTU_256}: 256 bytes. */
    public static final int MTU_256 = 1;
    /** {@code IBV_MTU_512}: 512 bytes. */
    public static final int MTU_512 = 2;
    /** {@code IBV_MTU_1024}: 1024 bytes. */
    public static final int MTU_1024 = 3;
    /** {@code IBV_MTU_2048}: 2048 bytes. */
    public static final int MTU_2048 = 4;
    /** {@code IBV_MTU_4096}: 4096 bytes. */
    public static final int MTU_4096 = 5;

    private Mtu() {
    }

    /**
     * {@return the payload bytes of {@code mtu} (256 .. 4096), or -1 when it is not an MTU value}
     *
     * @param mtu an {@code enum ibv_mtu} value
     */
    public static int bytes(int mtu) {
        return mtu >= MTU_256 && mtu <= MTU_4096 ? 128 << mtu : -1;
    }

    /**
     * {@return the enum value for exactly {@code bytes}, or -1 unless it is 256, 512, 1024, 2048 or 4096}
     *
     * @param bytes a payload size in bytes
     */
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

    /**
     * {@return the largest enum value whose bytes do not exceed {@code bytes}; {@link #MTU_256}
     * for anything below 256}
     *
     * @param bytes a payload size in bytes
     */
    public static int floor(int bytes) {
        int m = MTU_4096;
        while (m > MTU_256 && bytes(m) > bytes) {
            m--;
        }
        return m;
    }
}
