package dev.jrxe.memory;

import dev.jrxe.ib.Errno;
import dev.jrxe.sys.Mem;

import java.lang.foreign.MemorySegment;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * jrxe's allocator for application memory: anonymous private mappings with MAP_NORESERVE, so a
 * large reservation costs nothing until touched, aligned and rounded to 2 MiB so that every ODP
 * chunk lies either wholly inside one of its mappings or wholly outside.
 *
 * <p>Because every unmap and release of this memory goes through here, jrxe is told first (like
 * the kernel's mmu notifiers): registered regions drop the affected ODP pages and, for an unmap,
 * stop copying directly and wait for in-flight copies before the pages go. That is what makes
 * direct (fast) copies safe on this memory; memory from elsewhere is copied through the kernel.
 * Segments returned here have the global scope: release them with {@link #unmap}.
 */
public final class NativeMemory {
    /** Alignment and size granule of mappings (one ODP chunk). */
    public static final long GRANULE = OdpChunk.SIZE;

    private static final ReentrantLock LOCK = new ReentrantLock();
    /** Live mappings: start -> length (rounded to the granule). */
    private static final TreeMap<Long, Long> MAPPINGS = new TreeMap<>();
    private static final LinkedHashSet<InvalidationListener> LISTENERS = new LinkedHashSet<>();

    private NativeMemory() {
    }

    /**
     * Maps {@code bytes} of zeroed, readable and writable memory, reserving address space only.
     *
     * @throws MemoryException EINVAL for a size that is not positive, ENOMEM when the kernel refuses
     */
    @SuppressWarnings("restricted") // the segment spans exactly the new mapping
    public static MemorySegment map(long bytes) {
        if (bytes <= 0 || bytes > Long.MAX_VALUE / 2) {
            throw new MemoryException(Errno.EINVAL, "bad mapping size " + bytes);
        }
        long length = Mem.alignUp(bytes, GRANULE);
        long reserve = length + GRANULE;
        long raw = Mem.mmap(0, reserve, Mem.PROT_READ | Mem.PROT_WRITE,
                Mem.MAP_PRIVATE | Mem.MAP_ANONYMOUS | Mem.MAP_NORESERVE, -1, 0);
        if (raw < 0) {
            throw new MemoryException((int) -raw, "mmap of " + reserve + " bytes failed");
        }
        long start = Mem.alignUp(raw, GRANULE);
        if (start > raw) {
            Mem.munmap(raw, start - raw);
        }
        long tail = raw + reserve - (start + length);
        if (tail > 0) {
            Mem.munmap(start + length, tail);
        }
        LOCK.lock();
        try {
            MAPPINGS.put(start, length);
        } finally {
            LOCK.unlock();
        }
        return MemorySegment.ofAddress(start).reinterpret(bytes);
    }

    /**
     * Maps {@code bytes} as {@link #map} does, but at {@code address} (a multiple of
     * {@link #GRANULE}), where nothing is mapped yet (MAP_FIXED_NOREPLACE); null when something is.
     * For runs that must see the same addresses every time (the simulator: addresses travel in
     * RDMA headers).
     *
     * @throws MemoryException EINVAL for a bad size or an address that is not granule aligned
     */
    @SuppressWarnings("restricted") // the segment spans exactly the new mapping
    public static MemorySegment mapAt(long address, long bytes) {
        if (bytes <= 0 || bytes > Long.MAX_VALUE / 2 || (address & (GRANULE - 1)) != 0) {
            throw new MemoryException(Errno.EINVAL, "bad fixed mapping 0x" + Long.toHexString(address) + " " + bytes);
        }
        long length = Mem.alignUp(bytes, GRANULE);
        long raw = Mem.mmap(address, length, Mem.PROT_READ | Mem.PROT_WRITE,
                Mem.MAP_PRIVATE | Mem.MAP_ANONYMOUS | Mem.MAP_NORESERVE | Mem.MAP_FIXED_NOREPLACE, -1, 0);
        if (raw < 0) {
            return null;
        }
        if (raw != address) { // a kernel before 4.17 takes the flag as a hint
            Mem.munmap(raw, length);
            return null;
        }
        LOCK.lock();
        try {
            MAPPINGS.put(address, length);
        } finally {
            LOCK.unlock();
        }
        return MemorySegment.ofAddress(address).reinterpret(bytes);
    }

    /**
     * Unmaps a mapping returned by {@link #map}: registered regions covering it are invalidated and
     * in-flight accesses finish first; later accesses end in {@link MemStatus#FAULT}.
     *
     * @throws MemoryException EINVAL if the segment does not start a live mapping
     */
    public static void unmap(MemorySegment segment) {
        long start = segment.address();
        LOCK.lock();
        try {
            Long length = MAPPINGS.remove(start);
            if (length == null) {
                throw new MemoryException(Errno.EINVAL, "not a jrxe mapping: 0x" + Long.toHexString(start));
            }
            notifyLocked(start, length, true);
            int r = Mem.munmap(start, length);
            if (r < 0) {
                throw new MemoryException(-r, "munmap failed");
            }
        } finally {
            LOCK.unlock();
        }
    }

    /**
     * Releases the pages of {@code [offset, offset+length)} of a segment from {@link #map}
     * (MADV_DONTNEED): they read as zero afterwards and cost no memory until touched again. ODP
     * regions covering them drop those pages, and the next access faults them in again.
     *
     * @throws MemoryException EINVAL for a range that is not page aligned, outside a live mapping,
     *                         or locked by a pinned region (the kernel refuses DONTNEED on locked pages)
     */
    public static void release(MemorySegment segment, long offset, long length) {
        long addr = segment.address() + offset;
        if (offset < 0 || length <= 0 || (addr | length) % Mem.PAGE_SIZE != 0 || offset > segment.byteSize()) {
            throw new MemoryException(Errno.EINVAL, "release range must be page aligned and inside the segment");
        }
        LOCK.lock();
        try {
            if (!ownsLocked(addr, length)) {
                throw new MemoryException(Errno.EINVAL, "not inside a live jrxe mapping");
            }
            notifyLocked(addr, length, false);
            int r = Mem.madvise(addr, length, Mem.MADV_DONTNEED);
            if (r < 0) {
                throw new MemoryException(-r, "madvise(MADV_DONTNEED) failed");
            }
        } finally {
            LOCK.unlock();
        }
    }

    /** Whether {@code [addr, addr+len)} lies inside live mappings of this allocator. */
    public static boolean owns(long addr, long len) {
        LOCK.lock();
        try {
            return ownsLocked(addr, len);
        } finally {
            LOCK.unlock();
        }
    }

    static void lock() {
        LOCK.lock();
    }

    static void unlock() {
        LOCK.unlock();
    }

    /** Coverage check that may span adjacent mappings; the caller holds the lock. */
    static boolean ownsLocked(long addr, long len) {
        long end = addr + len;
        if (len <= 0 || end < addr) {
            return false;
        }
        long at = addr;
        while (at < end) {
            Map.Entry<Long, Long> e = MAPPINGS.floorEntry(at);
            if (e == null || e.getKey() + e.getValue() <= at) {
                return false;
            }
            at = e.getKey() + e.getValue();
        }
        return true;
    }

    /** Adds a listener; the caller holds the lock (so mode choice and listening are one step). */
    static void addListenerLocked(InvalidationListener listener) {
        LISTENERS.add(listener);
    }

    static void removeListener(InvalidationListener listener) {
        LOCK.lock();
        try {
            LISTENERS.remove(listener);
        } finally {
            LOCK.unlock();
        }
    }

    private static void notifyLocked(long addr, long len, boolean unmap) {
        long end = addr + len;
        for (InvalidationListener l : LISTENERS) {
            if (Long.compareUnsigned(l.low(), end) < 0 && Long.compareUnsigned(addr, l.high()) < 0) {
                l.invalidate(addr, len, unmap);
            }
        }
    }

    /** Number of registered invalidation listeners: one per live pinned or ODP translation (diagnostics). */
    static int listenerCount() {
        LOCK.lock();
        try {
            return LISTENERS.size();
        } finally {
            LOCK.unlock();
        }
    }

    /** Number of live mappings (for tests and diagnostics). */
    static int mappingCount() {
        LOCK.lock();
        try {
            return MAPPINGS.size();
        } finally {
            LOCK.unlock();
        }
    }
}
