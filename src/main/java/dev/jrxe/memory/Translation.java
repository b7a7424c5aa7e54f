package dev.jrxe.memory;

import java.lang.foreign.MemorySegment;

/**
 * What a region's addresses mean: the range (iova, address, length) and how its pages are held
 * and accessed. A region swaps its translation on rereg with CHANGE_TRANSLATION. Data-path methods
 * take the key's own addresses (iova) and return {@link MemStatus} codes.
 */
abstract sealed class Translation implements InvalidationListener permits PinnedTranslation, OdpTranslation {
    /** A thread object that never runs: segments accessible by it are accessible by any thread. */
    private static final Thread NOBODY = new Thread(() -> { });

    final KeyTable table;
    /** First valid key address. */
    final long iova;
    /** Process address of {@code iova}. */
    final long address;
    /** Bytes covered; -1L (U64_MAX) for implicit ODP. */
    final long length;
    /** The application's segment if registered from one, else null. */
    final MemorySegment segment;

    Translation(KeyTable table, long iova, long address, long length, MemorySegment segment) {
        this.table = table;
        this.iova = iova;
        this.address = address;
        this.length = length;
        this.segment = segment;
    }

    abstract RegionKind kind();

    /** Whether {@code [va, va+len)} lies inside the range (unsigned arithmetic, no overflow). */
    final boolean inRange(long va, long len) {
        long offset = va - iova;
        return len >= 0 && Long.compareUnsigned(offset, length) <= 0
                && Long.compareUnsigned(len, length - offset) <= 0;
    }

    final long toAddress(long va) {
        return address + (va - iova);
    }

    @Override
    public long low() {
        return address;
    }

    @Override
    public long high() {
        return length == -1L ? -1L : address + length;
    }

    abstract int read(long va, MemorySegment dst, long dstOffset, long len);

    /** See {@link MemoryKey#holdForSend}; false unless the kind of translation supports it. */
    boolean holdForSend(long va, long len, SendHold hold) {
        return false;
    }

    abstract int write(long va, MemorySegment src, long srcOffset, long len);

    abstract int compareAndSwap(long va, long compare, long swap, long[] original);

    abstract int fetchAndAdd(long va, long add, long[] original);

    abstract int atomicWrite(long va, long value);

    /**
     * RC FLUSH of {@code [va, va+len)}: earlier writes are visible to the CPU (global); with
     * {@code persistent} the pages are also written back to the file behind them (msync).
     */
    abstract int flush(long va, long len, boolean persistent);

    /** FLUSH of the whole translation (level MR). */
    int flushAll(boolean persistent) {
        return flush(iova, length, persistent);
    }

    /** Prefetch per {@link Advice}; returns 0 or an errno. Only ODP translations support it. */
    abstract int prefetch(long va, long len, int advice);

    /**
     * Makes the memory writable for a rereg that adds write access; returns 0 or an errno.
     */
    abstract int allowWrite();

    /** Stops all access, waits for in-flight accesses, releases pins/children, stops listening. */
    abstract void close();

    /**
     * The access path for {@code [addr, addr+len)}; the caller holds the allocator lock, so the
     * choice and the start of listening for invalidations are one step.
     */
    static int chooseModeLocked(long addr, long len, MemorySegment segment) {
        if (NativeMemory.ownsLocked(addr, len)) {
            return SafeAccess.DIRECT;
        }
        if (segment != null && scopedUsable(segment)) {
            return SafeAccess.SCOPED;
        }
        return SafeAccess.KERNEL;
    }

    /**
     * A segment the FFM runtime guards for every thread: not the global scope (which also holds
     * raw, reinterpreted memory that may vanish) and not confined to one thread.
     */
    static boolean scopedUsable(MemorySegment segment) {
        return !segment.scope().equals(MemorySegment.NULL.scope()) && segment.isAccessibleBy(NOBODY);
    }

    static boolean aligned8(long va) {
        return (va & 7) == 0;
    }
}
