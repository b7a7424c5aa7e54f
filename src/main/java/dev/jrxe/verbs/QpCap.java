package dev.jrxe.verbs;

/**
 * A queue pair's capabilities ({@code struct ibv_qp_cap}): queue depths, SGEs per request and
 * inline room, asked for in {@link QpInitAttr#cap}. A value below 0 or above the device's limit
 * (2<sup>20</sup> work requests, 32 SGEs, 512 inline bytes; see {@link Device#query()}) fails
 * {@link ProtectionDomain#createQp} with EINVAL. Creation grants at least one SGE each way and
 * writes the granted SGE counts back into this object; {@link QueuePair#cap()} reports all of
 * what the QP got.
 *
 * <p>Not thread safe: a plain mutable holder, one per thread. Creation copies it; later changes
 * do not affect the QP.
 *
 * <pre>{@code
 * QpCap cap = new QpCap(256, 256, 2, 1, 64);   // 256-deep queues, 2 send SGEs, 64 inline bytes
 * QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, cap));
 * }</pre>
 */
public final class QpCap {
    /** {@code max_send_wr}: send-queue depth, in outstanding work requests (0 to 2<sup>20</sup>). */
    public int maxSendWr = 1;
    /** {@code max_recv_wr}: receive-queue depth, in work requests (0 to 2<sup>20</sup>); unused with an SRQ. */
    public int maxRecvWr = 1;
    /** {@code max_send_sge}: SGEs per send work request (0 to 32; 0 is granted as 1). */
    public int maxSendSge = 1;
    /** {@code max_recv_sge}: SGEs per receive work request (0 to 32; 0 is granted as 1). */
    public int maxRecvSge = 1;
    /** {@code max_inline_data}: bytes a send or RDMA WRITE may carry inline ({@code IBV_SEND_INLINE}), 0 to 512. */
    public int maxInlineData;

    /** One work request and one SGE each way, no inline data. */
    public QpCap() {
    }

    /**
     * Capabilities with these values.
     *
     * @param maxSendWr     send-queue depth, in work requests
     * @param maxRecvWr     receive-queue depth, in work requests
     * @param maxSendSge    SGEs per send work request
     * @param maxRecvSge    SGEs per receive work request
     * @param maxInlineData inline bytes per send work request
     */
    public QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        this.maxSendSge = maxSendSge;
        this.maxRecvSge = maxRecvSge;
        this.maxInlineData = maxInlineData;
    }

    QpCap copy() {
        return new QpCap(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData);
    }
}
