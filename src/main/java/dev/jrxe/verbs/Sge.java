package dev.jrxe.verbs;

/**
 * A scatter/gather element ({@code struct ibv_sge}): one contiguous range of registered memory,
 * named by address, length and local key, that a work request reads from or writes into.
 *
 * <p>Not thread safe: a plain mutable holder, one per thread. Posting copies it into the queue,
 * so it may be refilled as soon as the post returns.
 *
 * <pre>{@code
 * wr.sgList[0].set(mr.addressAt(0, 64), 64, mr.lkey());      // gather two ranges
 * wr.sgList[1].set(mr.addressAt(4096, 64), 64, mr.lkey());
 * wr.numSge = 2;
 * }</pre>
 */
public final class Sge {
    /** {@code ibv_sge.addr}: the first byte, in the address space of the key's region (its iova). */
    public long addr;
    /** {@code ibv_sge.length}: bytes, read as an unsigned 32-bit value. */
    public int length;
    /** {@code ibv_sge.lkey}: the local key ({@link MemoryRegion#lkey()}) of the region that covers the range. */
    public int lkey;

    /** An empty element: address, length and key 0. */
    public Sge() {
    }

    /**
     * An element over {@code [addr, addr + length)} of the region with {@code lkey}.
     *
     * @param addr   the first byte's address in the region's address space
     * @param length bytes (unsigned 32-bit)
     * @param lkey   the region's local key
     */
    public Sge(long addr, int length, int lkey) {
        set(addr, length, lkey);
    }

    /**
     * Sets all three fields, without allocating.
     *
     * @param addr   the first byte's address in the region's address space
     * @param length bytes (unsigned 32-bit)
     * @param lkey   the region's local key
     * @return this element
     */
    public Sge set(long addr, int length, int lkey) {
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }
}
