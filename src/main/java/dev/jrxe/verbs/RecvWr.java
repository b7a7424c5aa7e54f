package dev.jrxe.verbs;

/**
 * A receive work request ({@code struct ibv_recv_wr}): the buffers an incoming SEND (or the
 * immediate data of a WRITE_WITH_IMM) is scattered into, posted with {@link QueuePair#postRecv}
 * or {@link SharedReceiveQueue#postRecv}. Reusable like {@link SendWr}: posting copies it into
 * the receive queue, so the same object may be refilled and posted again at once, and posting
 * allocates nothing.
 *
 * <p>Not thread safe: one per thread; posting copies it.
 *
 * <pre>{@code
 * RecvWr rwr = new RecvWr(1);
 * rwr.wrId = 7;                                   // comes back in WorkCompletion.wrId
 * qp.postRecv(rwr.sge(mr, 0, 4096));
 * }</pre>
 */
public final class RecvWr {
    /** {@code wr_id}: the application's tag, returned in the receive's {@link WorkCompletion#wrId}. */
    public long wrId;
    /** {@code sg_list}: the scatter list, its elements allocated once; the first {@link #numSge} are posted. */
    public final Sge[] sgList;
    /**
     * {@code num_sge}: elements of {@link #sgList} in use; above the queue's {@code maxRecvSge} or
     * the array is EINVAL.
     */
    public int numSge;
    /** {@code next}: the next request of a chain, or null; a chain is posted in order, up to the first bad one. */
    public RecvWr next;

    /** A request with room for 4 SGEs. */
    public RecvWr() {
        this(4);
    }

    /**
     * A request with room for {@code maxSge} SGEs, all allocated now.
     *
     * @param maxSge the length of {@link #sgList}
     */
    public RecvWr(int maxSge) {
        sgList = new Sge[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sgList[i] = new Sge();
        }
    }

    /**
     * One SGE over {@code [offset, offset + length)} of {@code mr}, checked against the region:
     * sets {@code sgList[0]} and {@link #numSge} = 1.
     *
     * @param mr     the region to receive into
     * @param offset the first byte, from the region's start
     * @param length bytes
     * @return this request
     * @throws IndexOutOfBoundsException when the range is not inside the region
     */
    public RecvWr sge(MemoryRegion mr, long offset, int length) {
        return sge(mr.addressAt(offset, length), length, mr.lkey());
    }

    /**
     * One SGE, unchecked: sets {@code sgList[0]} and {@link #numSge} = 1. The range is checked
     * against the key when data arrives (a bad one completes with {@code IBV_WC_LOC_PROT_ERR}).
     *
     * @param addr   the first byte, in the region's address space
     * @param length bytes
     * @param lkey   the local key of the region
     * @return this request
     */
    public RecvWr sge(long addr, int length, int lkey) {
        sgList[0].set(addr, length, lkey);
        numSge = 1;
        return this;
    }

    /** Copies this request into a receive WQE (post_recv and post_srq_recv, after their checks). */
    void copyInto(dev.jrxe.transport.RecvWqe w) {
        w.wrId = wrId;
        w.numSge = numSge;
        long len = 0;
        for (int i = 0; i < numSge; i++) {
            Sge s = sgList[i];
            w.sgeAddr[i] = s.addr;
            w.sgeLength[i] = s.length;
            w.sgeLkey[i] = s.lkey;
            len += Integer.toUnsignedLong(s.length);
        }
        w.length = len;
    }
}
