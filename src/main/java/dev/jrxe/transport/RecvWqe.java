package dev.jrxe.transport;

/** One receive work-queue entry, preallocated per slot; filled at post time. */
public final class RecvWqe {
    public long wrId;
    public int numSge;
    public final long[] sgeAddr;
    public final int[] sgeLength;
    public final int[] sgeLkey;
    /** Sum of SGE lengths. */
    public long length;

    /** Makes this entry a copy of {@code from} (which has no more SGEs than this one has room for). */
    void copyFrom(RecvWqe from) {
        wrId = from.wrId;
        numSge = from.numSge;
        length = from.length;
        System.arraycopy(from.sgeAddr, 0, sgeAddr, 0, from.numSge);
        System.arraycopy(from.sgeLength, 0, sgeLength, 0, from.numSge);
        System.arraycopy(from.sgeLkey, 0, sgeLkey, 0, from.numSge);
    }

    RecvWqe(int maxSge) {
        sgeAddr = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeLkey = new int[maxSge];
    }
}
