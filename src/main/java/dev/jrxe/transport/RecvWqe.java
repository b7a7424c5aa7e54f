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

    RecvWqe(int maxSge) {
        sgeAddr = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeLkey = new int[maxSge];
    }
}
