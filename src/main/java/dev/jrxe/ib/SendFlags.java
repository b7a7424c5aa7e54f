package dev.jrxe.ib;

/**
 * Send flags: rdma-core's {@code enum ibv_send_flags} ({@code IBV_SEND_*}) with its values, the
 * {@code send_flags} of {@code struct ibv_send_wr} ({@link dev.jrxe.verbs.SendWr#sendFlags}) and
 * of an extended-API batch ({@link dev.jrxe.verbs.QpEx#wrFlags}).
 *
 * <p>Thread safety: constants only.
 *
 * <pre>{@code
 * wr.sendFlags = SendFlags.SIGNALED | SendFlags.INLINE;
 * }</pre>
 */
public final class SendFlags {
    /**
     * {@code IBV_SEND_FENCE}: RC: start only once every earlier request awaiting a response (RDMA
     * READ, atomic, FLUSH, ATOMIC_WRITE) has completed.
     */
    public static final int FENCE = 1;
    /**
     * {@code IBV_SEND_SIGNALED}: a successful request produces a work completion (failed ones always
     * do, and every one does when the QP was created with {@code sq_sig_all}).
     */
    public static final int SIGNALED = 1 << 1;
    /** {@code IBV_SEND_SOLICITED}: set the solicited-event bit: it wakes a receive CQ armed solicited-only. */
    public static final int SOLICITED = 1 << 2;
    /**
     * {@code IBV_SEND_INLINE}: SEND and RDMA WRITE: the data is copied at post, so the buffer may be
     * reused at once and needs no lkey; at most {@code max_inline_data} bytes (else EINVAL), and
     * unreadable memory is EFAULT.
     */
    public static final int INLINE = 1 << 3;
    /** {@code IBV_SEND_IP_CSUM}: offload the IP checksum (raw packet, UD); jrxe ignores it. */
    public static final int IP_CSUM = 1 << 4;

    private SendFlags() {
    }
}
