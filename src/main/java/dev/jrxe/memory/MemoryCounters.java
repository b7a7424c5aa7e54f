package dev.jrxe.memory;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Memory counters of one device (one {@link KeyTable}). Updating them allocates nothing. */
public final class MemoryCounters {
    private final LongAdder pageFaults = new LongAdder();
    private final LongAdder pagesMapped = new LongAdder();
    private final LongAdder invalidations = new LongAdder();
    private final LongAdder pagesInvalidated = new LongAdder();
    private final LongAdder childrenCreated = new LongAdder();
    private final AtomicLong childrenLive = new AtomicLong();
    private final LongAdder childrenReclaimed = new LongAdder();
    private final LongAdder prefetches = new LongAdder();
    private final AtomicLong pinnedBytes = new AtomicLong();

    /** ODP faults: accesses or prefetches that found pages not mapped and mapped them. */
    public long pageFaults() {
        return pageFaults.sum();
    }

    /** Pages mapped by ODP faults and prefetches, in total. */
    public long pagesMapped() {
        return pagesMapped.sum();
    }

    /** Invalidations (unmap or release of memory an ODP region covers) delivered to regions. */
    public long invalidations() {
        return invalidations.sum();
    }

    /** Mapped ODP pages dropped by invalidations, in total. */
    public long pagesInvalidated() {
        return pagesInvalidated.sum();
    }

    /** Implicit ODP children (2 MiB) created, in total. */
    public long childrenCreated() {
        return childrenCreated.sum();
    }

    /** Implicit ODP children alive now. */
    public long childrenLive() {
        return childrenLive.get();
    }

    /** Implicit ODP children released (idle, over budget, emptied by invalidation), in total. */
    public long childrenReclaimed() {
        return childrenReclaimed.sum();
    }

    /** Advise (prefetch) ranges handled. */
    public long prefetches() {
        return prefetches.sum();
    }

    /** Bytes pinned by pinned regions now (page-rounded). */
    public long pinnedBytes() {
        return pinnedBytes.get();
    }

    void fault(int pages) {
        pageFaults.increment();
        pagesMapped.add(pages);
    }

    void invalidated(int pages) {
        invalidations.increment();
        pagesInvalidated.add(pages);
    }

    void childCreated() {
        childrenCreated.increment();
        childrenLive.incrementAndGet();
    }

    void childReleased(boolean reclaimed) {
        childrenLive.decrementAndGet();
        if (reclaimed) {
            childrenReclaimed.increment();
        }
    }

    void prefetched() {
        prefetches.increment();
    }

    boolean reservePinned(long bytes, long limit) {
        while (true) {
            long now = pinnedBytes.get();
            if (limit >= 0 && now + bytes > limit) {
                return false;
            }
            if (pinnedBytes.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void unreservePinned(long bytes) {
        pinnedBytes.addAndGet(-bytes);
    }

    /** All counters by name, in a stable order (for devinfo/demo output). */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("page_faults", pageFaults());
        m.put("pages_mapped", pagesMapped());
        m.put("invalidations", invalidations());
        m.put("pages_invalidated", pagesInvalidated());
        m.put("children_created", childrenCreated());
        m.put("children_live", childrenLive());
        m.put("children_reclaimed", childrenReclaimed());
        m.put("prefetches", prefetches());
        m.put("pinned_bytes", pinnedBytes());
        return m;
    }
}
