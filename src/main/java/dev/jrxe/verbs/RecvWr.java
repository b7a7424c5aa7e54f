package dev.jrxe.verbs;

/** A receive work request ({@code struct ibv_recv_wr}), reusable like {@link SendWr}. */
public final class RecvWr {
    public long wrId;
    public final Sge[] sgList;
    public int numSge;
    public RecvWr next;

    public RecvWr() {
        this(4);
    }

    public RecvWr(int maxSge) {
        sgList = new Sge[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sgList[i] = new Sge();
        }
    }

    /**
     * One SGE over {@code [offset, offset + length)} of {@code mr}, checked against the region.
     *
     * @throws IndexOutOfBoundsException when the range is not inside the region
     */
    public RecvWr sge(MemoryRegion mr, long offset, int length) {
        return sge(mr.addressAt(offset, length), length, mr.lkey());
    }

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
