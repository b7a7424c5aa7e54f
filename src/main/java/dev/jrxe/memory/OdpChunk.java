package dev.jrxe.memory;

import dev.jrxe.sys.Mem;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One 2 MiB aligned chunk of an ODP region: which of its pages are mapped (faulted in), how it is
 * accessed ({@link SafeAccess} mode), and an in-flight count that invalidation, reclaim and
 * deregistration wait for. For an implicit ODP region this is a "child"; an explicit ODP region
 * is split the same way so that both walk chunks alike.
 *
 * <p>Guard protocol (a Dekker pair of volatile accesses): an access increments {@code inFlight}
 * and then reads {@code state} and {@code mode}; a retire or mode change writes first and then
 * reads {@code inFlight}. So either the access sees the change, or the changer sees the access
 * and waits for it.
 */
final class OdpChunk {
    static final int SHIFT = 21;
    static final long SIZE = 1L << SHIFT;
    static final int PAGE_SHIFT = Long.numberOfTrailingZeros(Mem.PAGE_SIZE);
    static final int PAGES = (int) (SIZE >>> PAGE_SHIFT);

    static final int LIVE = 0;
    static final int DYING = 1;

    private static final VarHandle IN_FLIGHT;
    private static final VarHandle STATE;
    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            IN_FLIGHT = l.findVarHandle(OdpChunk.class, "inFlight", int.class);
            STATE = l.findVarHandle(OdpChunk.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** First address of the chunk (2 MiB aligned). */
    final long base;
    /** The application's segment for {@link SafeAccess#SCOPED} mode, else null. */
    final MemorySegment scoped;
    volatile int mode;
    private volatile int state;
    @SuppressWarnings("unused")
    private volatile int inFlight;
    volatile long lastUsed;
    /** Position in the owner's live list (owner's allocator-locked bookkeeping). */
    int liveSlot;
    private final long[] present = new long[PAGES / 64];

    OdpChunk(long base, int mode, MemorySegment scoped, long now) {
        this.base = base;
        this.mode = mode;
        this.scoped = scoped;
        this.lastUsed = now;
    }

    static long indexOf(long addr) {
        return addr >>> SHIFT;
    }

    /** Starts an access; false if the chunk is being retired (look it up again). */
    boolean enter() {
        IN_FLIGHT.getAndAdd(this, 1);
        if (state != LIVE) {
            IN_FLIGHT.getAndAdd(this, -1);
            return false;
        }
        return true;
    }

    void exit() {
        IN_FLIGHT.getAndAdd(this, -1);
    }

    int inFlight() {
        return (int) IN_FLIGHT.getVolatile(this);
    }

    boolean isLive() {
        return state == LIVE;
    }

    /** Retires the chunk unless an access is in flight (reclaim never waits). */
    boolean tryRetire() {
        if (!STATE.compareAndSet(this, LIVE, DYING)) {
            return false;
        }
        if (inFlight() != 0) {
            state = LIVE;
            return false;
        }
        return true;
    }

    /** Retires the chunk and waits until no access is in flight. Returns false if already retired. */
    boolean retireAndDrain() {
        boolean mine = STATE.compareAndSet(this, LIVE, DYING);
        drain();
        return mine;
    }

    void drain() {
        int spins = 0;
        while (inFlight() != 0) {
            if (++spins < 1000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    /** Records a use at {@code now} (writes only when the value moved, to spare the cache line). */
    void used(long now) {
        if (lastUsed != now) {
            lastUsed = now;
        }
    }

    private int firstPage(long addr) {
        return (int) ((addr - base) >>> PAGE_SHIFT);
    }

    private int lastPage(long addr, long len) {
        return (int) ((addr + Math.max(len, 1) - 1 - base) >>> PAGE_SHIFT);
    }

    /** Whether every page of {@code [addr, addr+len)} (inside this chunk) is mapped. */
    boolean allPresent(long addr, long len) {
        int first = firstPage(addr);
        int last = lastPage(addr, len);
        for (int w = first >>> 6; w <= last >>> 6; w++) {
            long mask = wordMask(w, first, last);
            if (((long) WORD.getVolatile(present, w) & mask) != mask) {
                return false;
            }
        }
        return true;
    }

    /** Marks the pages of the range mapped; returns how many were not mapped before. */
    int markPresent(long addr, long len) {
        int first = firstPage(addr);
        int last = lastPage(addr, len);
        int fresh = 0;
        for (int w = first >>> 6; w <= last >>> 6; w++) {
            long mask = wordMask(w, first, last);
            long old = (long) WORD.getAndBitwiseOr(present, w, mask);
            fresh += Long.bitCount(mask & ~old);
        }
        return fresh;
    }

    /** Marks one page mapped; returns 1 if it was not mapped before. */
    int markPage(long pageAddr) {
        int page = firstPage(pageAddr);
        long bit = 1L << (page & 63);
        return ((long) WORD.getAndBitwiseOr(present, page >>> 6, bit) & bit) == 0 ? 1 : 0;
    }

    /** Drops the pages of the range (clamped to the chunk); returns how many were mapped. */
    int clearPresent(long addr, long len) {
        long from = Math.max(addr, base);
        long to = Math.min(addr + len, base + SIZE);
        if (from >= to) {
            return 0;
        }
        int first = firstPage(from);
        int last = lastPage(from, to - from);
        int dropped = 0;
        for (int w = first >>> 6; w <= last >>> 6; w++) {
            long mask = wordMask(w, first, last);
            long old = (long) WORD.getAndBitwiseAnd(present, w, ~mask);
            dropped += Long.bitCount(old & mask);
        }
        return dropped;
    }

    int presentPages() {
        int n = 0;
        for (int w = 0; w < present.length; w++) {
            n += Long.bitCount((long) WORD.getVolatile(present, w));
        }
        return n;
    }

    private static long wordMask(int w, int first, int last) {
        int lo = Math.max(first, w << 6) & 63;
        int hi = Math.min(last, (w << 6) + 63) & 63;
        return (-1L >>> (63 - hi)) & (-1L << lo);
    }
}
