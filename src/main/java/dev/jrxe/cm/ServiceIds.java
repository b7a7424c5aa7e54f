package dev.jrxe.cm;

/** rdma_cm service IDs: {@code (port space << 16) | port} (cma.c rdma_get_service_id). */
public final class ServiceIds {
    public static final int PS_IPOIB = 0x0002;
    public static final int PS_TCP = 0x0106;
    public static final int PS_UDP = 0x0111;
    public static final int PS_IB = 0x013F;

    /** rdma_cm's Q_Key for UD ids of RDMA_PS_UDP (rdma_cma.h RDMA_UDP_QKEY). */
    public static final int UDP_QKEY = 0x01234567;

    private ServiceIds() {
    }

    public static long of(int portSpace, int port) {
        return ((long) portSpace << 16) | (port & 0xFFFF);
    }

    public static int portSpace(long serviceId) {
        return (int) (serviceId >>> 16) & 0xFFFF;
    }

    public static int port(long serviceId) {
        return (int) serviceId & 0xFFFF;
    }

    /** Whether {@code serviceId} is in the rdma_cm range 0x0000000001xxxxxx. */
    public static boolean isRdmaCm(long serviceId) {
        return (serviceId & 0xFFFFFFFFFF000000L) == 0x0000000001000000L;
    }
}
