package dev.jrxe.cm;

/**
 * rdma_cm service IDs: {@code (port space << 16) | port} (cma.c rdma_get_service_id), the
 * 64-bit Service ID of a REQ or SIDR_REQ; and the port spaces ({@code enum rdma_ucm_port_space}).
 * rping's default port 7174 over RDMA_PS_TCP is service ID {@code 0x0000000001061c06}.
 *
 * <p>Constants only (and pure functions): safe from any thread.
 *
 * <pre>{@code
 * long sid = ServiceIds.of(ServiceIds.PS_TCP, 7174);   // 0x0000000001061c06
 * int port = ServiceIds.port(sid);                      // 7174
 * }</pre>
 */
public final class ServiceIds {
    /** RDMA_PS_IPOIB; {@link CmId#create} refuses it (EPROTONOSUPPORT). */
    public static final int PS_IPOIB = 0x0002;
    /** RDMA_PS_TCP: RC connections over the IB CM (REQ/REP/RTU), as rping and {@code perftest -R} use. */
    public static final int PS_TCP = 0x0106;
    /** RDMA_PS_UDP: UD ids, resolved with SIDR_REQ/SIDR_REP. */
    public static final int PS_UDP = 0x0111;
    /** RDMA_PS_IB; {@link CmId#create} refuses it (EPROTONOSUPPORT). */
    public static final int PS_IB = 0x013F;

    /** rdma_cm's Q_Key for UD ids of RDMA_PS_UDP (rdma_cma.h RDMA_UDP_QKEY). */
    public static final int UDP_QKEY = 0x01234567;

    private ServiceIds() {
    }

    /**
     * {@return the service ID of {@code port} in {@code portSpace}}
     *
     * @param portSpace a {@code PS_} constant
     * @param port the rdma_cm port; only its low 16 bits are used
     */
    public static long of(int portSpace, int port) {
        return ((long) portSpace << 16) | (port & 0xFFFF);
    }

    /**
     * {@return the port space of an rdma_cm service ID: bits 31..16}
     *
     * @param serviceId a REQ's or SIDR_REQ's Service ID
     */
    public static int portSpace(long serviceId) {
        return (int) (serviceId >>> 16) & 0xFFFF;
    }

    /**
     * {@return the rdma_cm port of a service ID: its low 16 bits}
     *
     * @param serviceId a REQ's or SIDR_REQ's Service ID
     */
    public static int port(long serviceId) {
        return (int) serviceId & 0xFFFF;
    }

    /**
     * {@return whether {@code serviceId} is in the rdma_cm range 0x0000000001xxxxxx}
     *
     * @param serviceId a REQ's or SIDR_REQ's Service ID
     */
    public static boolean isRdmaCm(long serviceId) {
        return (serviceId & 0xFFFFFFFFFF000000L) == 0x0000000001000000L;
    }
}
