package dev.jrxe.verbs;

/**
 * SRD device attributes ({@code struct efadv_device_attr}): what a device's SRD QPs can do, as
 * {@link SrdDv#queryDevice(Device)} ({@code efadv_query_device}) fills them.
 *
 * <p>Not thread safe: a plain holder; every {@code queryDevice} returns a new one, which the
 * caller owns.
 *
 * <pre>{@code
 * SrdDeviceAttr a = SrdDv.queryDevice(dev);
 * }</pre>
 */
public final class SrdDeviceAttr {
    /** {@code max_sq_wr}: most work requests in an SRD QP's send queue. */
    public int maxSqWr;
    /** {@code max_rq_wr}: most work requests in an SRD QP's receive queue. */
    public int maxRqWr;
    /** {@code max_sq_sge}: most SGEs of a send work request. */
    public int maxSqSge;
    /** {@code max_rq_sge}: most SGEs of a receive work request. */
    public int maxRqSge;
    /** {@code inline_buf_size}: most inline bytes ({@code IBV_SEND_INLINE}) per send work request. */
    public int inlineBufSize;
    /** {@code device_caps}: {@code SrdDv.CAPS_*} bits ({@link SrdDv#CAPS_RDMA_READ}, ...). */
    public int deviceCaps;
    /**
     * {@code max_rdma_size}: the largest RDMA READ or WRITE of one work request, in bytes
     * ({@link SrdDv#MAX_RDMA_SIZE}).
     */
    public int maxRdmaSize;

    /** Creates a holder with every field 0; {@link SrdDv#queryDevice(Device)} returns a filled one. */
    public SrdDeviceAttr() {
    }
}
