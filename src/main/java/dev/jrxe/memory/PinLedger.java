package dev.jrxe.memory;

import dev.jrxe.ib.Errno;
import dev.jrxe.sys.Mem;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Process-wide pin counts per page range. mlock does not nest (one munlock undoes any number of
 * mlocks), but two pinned regions may share pages: the ledger counts pins per range and unlocks
 * only what no region pins any more, like page reference counts in ib_umem.
 */
final class PinLedger {
    /** Non-overlapping page-aligned ranges: start -> {end, count}. */
    private static final TreeMap<Long, long[]> RANGES = new TreeMap<>();

    private PinLedger() {
    }

    /**
     * Populates ({@code write}: for writing) and locks {@code [start, end)} (page aligned).
     * Returns 0 or an errno: EFAULT for memory that is not mapped or lacks the permission,
     * ENOMEM when locking fails (RLIMIT_MEMLOCK, out of memory). Nothing stays locked on failure.
     */
    static synchronized int pin(long start, long end, boolean write) {
        int populate = SafeAccess.populate(start, end - start, write);
        if (populate != 0) {
            return populate;
        }
        int r = Mem.mlock(start, end - start);
        if (r < 0) {
            for (long[] gap : gaps(start, end)) {
                Mem.munlock(gap[0], gap[1] - gap[0]);
            }
            return r == -Errno.ENOMEM && Mem.residentPages(start, end - start) < 0 ? Errno.EFAULT : Errno.ENOMEM;
        }
        split(start);
        split(end);
        long at = start;
        List<long[]> added = new ArrayList<>();
        for (Map.Entry<Long, long[]> e : RANGES.subMap(start, true, end, false).entrySet()) {
            if (e.getKey() > at) {
                added.add(new long[]{at, e.getKey()});
            }
            e.getValue()[1]++;
            at = e.getValue()[0];
        }
        if (at < end) {
            added.add(new long[]{at, end});
        }
        for (long[] gap : added) {
            RANGES.put(gap[0], new long[]{gap[1], 1});
        }
        return 0;
    }

    /** Drops one pin of {@code [start, end)}; unlocks the pages nobody pins any more. */
    static synchronized void unpin(long start, long end) {
        split(start);
        split(end);
        List<Long> freed = new ArrayList<>();
        for (Map.Entry<Long, long[]> e : RANGES.subMap(start, true, end, false).entrySet()) {
            if (--e.getValue()[1] == 0) {
                freed.add(e.getKey());
            }
        }
        for (Long s : freed) {
            long[] r = RANGES.remove(s);
            Mem.munlock(s, r[0] - s);
        }
    }

    /** Number of pinned ranges on the ledger (diagnostics: 0 once every pinned region is gone). */
    static synchronized int rangeCount() {
        return RANGES.size();
    }

    /** Pin count of the page at {@code addr} (tests). */
    static synchronized long count(long addr) {
        Map.Entry<Long, long[]> e = RANGES.floorEntry(addr);
        return e != null && addr < e.getValue()[0] ? e.getValue()[1] : 0;
    }

    /** Parts of {@code [start, end)} no range covers. */
    private static List<long[]> gaps(long start, long end) {
        List<long[]> gaps = new ArrayList<>();
        long at = start;
        Map.Entry<Long, long[]> first = RANGES.floorEntry(start);
        if (first != null && first.getValue()[0] > start) {
            at = Math.min(end, first.getValue()[0]);
        }
        for (Map.Entry<Long, long[]> e : RANGES.subMap(start, false, end, false).entrySet()) {
            if (e.getKey() > at) {
                gaps.add(new long[]{at, e.getKey()});
            }
            at = Math.max(at, Math.min(end, e.getValue()[0]));
        }
        if (at < end) {
            gaps.add(new long[]{at, end});
        }
        return gaps;
    }

    /** Splits the range containing {@code addr} so that a range starts there. */
    private static void split(long addr) {
        Map.Entry<Long, long[]> e = RANGES.floorEntry(addr);
        if (e == null || e.getKey() == addr || e.getValue()[0] <= addr) {
            return;
        }
        long[] v = e.getValue();
        RANGES.put(addr, new long[]{v[0], v[1]});
        v[0] = addr;
    }
}
