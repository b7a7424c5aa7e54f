package dev.jrxe.memory;

import dev.jrxe.ib.Advice;
import dev.jrxe.ib.Errno;
import dev.jrxe.sys.Mem;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;

/**
 * An on-demand paging region, explicit (a range) or implicit (the whole address space). Nothing
 * is done at registration; memory is handled in 2 MiB {@link OdpChunk}s created on first access
 * ("children" of an implicit region), each tracking which of its pages are mapped. Accesses that
 * span chunks walk them, entering one chunk at a time (never two, so an invalidation waiting on
 * one chunk cannot deadlock with an access waiting for the allocator lock to create the next).
 *
 * <p>Chunks are created under the allocator lock (mode choice and insertion are atomic with
 * respect to unmap notifications) and inserted with CAS into a {@link ChunkIndex}, so concurrent
 * first touches of one chunk create exactly one. Implicit children are reclaimed when idle longer
 * than the configured time, beyond the configured budget (least recently used first), or when an
 * invalidation leaves them with no mapped page (mlx5's rule); never while an access is in flight.
 */
final class OdpTranslation extends Translation {
    private final boolean implicit;
    private final ChunkIndex chunks = new ChunkIndex();
    /** Live chunks, guarded by the allocator lock; each knows its slot for O(1) removal. */
    private final ArrayList<OdpChunk> live = new ArrayList<>();
    private volatile boolean closed;
    private long lastIdleScan;
    /**
     * An explicit region registered over jrxe's allocator only ever touches that allocator's
     * memory: once unmapped, its chunks fault instead of following whatever gets mapped there.
     */
    private boolean ownedAtRegistration;

    private OdpTranslation(KeyTable table, boolean implicit, long iova, long address, long length,
                           MemorySegment segment) {
        super(table, iova, address, length, segment);
        this.implicit = implicit;
        this.lastIdleScan = table.config().clock().getAsLong();
    }

    /** An explicit ODP translation: no page work, just start listening for invalidations. */
    static OdpTranslation explicit(KeyTable table, long iova, long address, long length, MemorySegment segment) {
        OdpTranslation t = new OdpTranslation(table, false, iova, address, length, segment);
        NativeMemory.lock();
        try {
            t.ownedAtRegistration = NativeMemory.ownsLocked(address, length);
            NativeMemory.addListenerLocked(t);
        } finally {
            NativeMemory.unlock();
        }
        return t;
    }

    /** An implicit ODP translation over the whole address space (iova 0, length U64_MAX). */
    static OdpTranslation implicit(KeyTable table) {
        OdpTranslation t = new OdpTranslation(table, true, 0, 0, -1L, null);
        NativeMemory.lock();
        try {
            NativeMemory.addListenerLocked(t);
        } finally {
            NativeMemory.unlock();
        }
        table.trackImplicit(t);
        return t;
    }

    @Override
    RegionKind kind() {
        return implicit ? RegionKind.IMPLICIT_ODP : RegionKind.ODP;
    }

    // ------------------------------------------------------------------ chunks

    /** The live chunk holding {@code addr}, entered; null if the region is closed or addr unusable. */
    private OdpChunk acquire(long addr) {
        long index = OdpChunk.indexOf(addr);
        while (true) {
            OdpChunk c = chunks.get(index);
            if (c == null) {
                c = create(index);
                if (c == null) {
                    return null;
                }
            }
            if (c.enter()) {
                return c;
            }
            if (closed) {
                return null;
            }
            Thread.onSpinWait();
        }
    }

    private OdpChunk create(long index) {
        if (index >= ChunkIndex.LIMIT) {
            return null;
        }
        NativeMemory.lock();
        try {
            if (closed) {
                return null;
            }
            OdpChunk existing = chunks.get(index);
            if (existing != null) {
                return existing;
            }
            long base = index << OdpChunk.SHIFT;
            long lo = implicit ? base : Math.max(base, address);
            long hi = implicit ? base + OdpChunk.SIZE : Math.min(base + OdpChunk.SIZE, address + length);
            int mode = chooseModeLocked(lo, hi - lo, segment);
            if (ownedAtRegistration && mode != SafeAccess.DIRECT) {
                mode = SafeAccess.REVOKED;
            }
            long now = table.config().clock().getAsLong();
            OdpChunk c = new OdpChunk(base, mode, mode == SafeAccess.SCOPED ? segment : null, now);
            OdpChunk winner = chunks.putIfAbsent(index, c);
            if (winner != c) {
                return winner;
            }
            c.liveSlot = live.size();
            live.add(c);
            if (implicit) {
                table.counters().childCreated();
                JfrEvents.odpChild(OdpChildEvent.CREATED, c);
                enforceBudgetLocked(c);
                maybeScanIdleLocked(now);
            }
            return c;
        } finally {
            NativeMemory.unlock();
        }
    }

    /** Removes a retired chunk from the index and the live list; the caller holds the lock. */
    private void dropLocked(OdpChunk c, boolean reclaimed) {
        chunks.remove(OdpChunk.indexOf(c.base), c);
        int slot = c.liveSlot;
        OdpChunk last = live.remove(live.size() - 1);
        if (last != c) {
            live.set(slot, last);
            last.liveSlot = slot;
        }
        if (implicit) {
            table.counters().childReleased(reclaimed);
            JfrEvents.odpChild(reclaimed ? OdpChildEvent.RECLAIMED : OdpChildEvent.RELEASED, c);
        }
    }

    private void enforceBudgetLocked(OdpChunk keep) {
        int budget = table.config().maxLiveChildren();
        while (live.size() > budget) {
            OdpChunk lru = null;
            for (int i = 0; i < live.size(); i++) {
                OdpChunk c = live.get(i);
                if (c != keep && c.inFlight() == 0 && (lru == null || c.lastUsed - lru.lastUsed < 0)) {
                    lru = c;
                }
            }
            if (lru == null || !lru.tryRetire()) {
                return; // everything else is in flight: stay over budget until the next creation
            }
            dropLocked(lru, true);
        }
    }

    private void maybeScanIdleLocked(long now) {
        long idle = table.config().childIdleNanos();
        if (now - lastIdleScan >= Math.max(1, idle / 2)) {
            reclaimIdleLocked(now);
        }
    }

    /** Reclaims children idle longer than the configured time; returns how many. */
    int reclaimIdle() {
        if (!implicit) {
            return 0;
        }
        NativeMemory.lock();
        try {
            return reclaimIdleLocked(table.config().clock().getAsLong());
        } finally {
            NativeMemory.unlock();
        }
    }

    private int reclaimIdleLocked(long now) {
        lastIdleScan = now;
        long idle = table.config().childIdleNanos();
        int reclaimed = 0;
        for (int i = live.size() - 1; i >= 0; i--) {
            if (i >= live.size()) {
                continue;
            }
            OdpChunk c = live.get(i);
            if (now - c.lastUsed > idle && c.tryRetire()) {
                dropLocked(c, true);
                reclaimed++;
            }
        }
        return reclaimed;
    }

    /** Live chunks now (tests, diagnostics). */
    int liveChunks() {
        NativeMemory.lock();
        try {
            return live.size();
        } finally {
            NativeMemory.unlock();
        }
    }

    /** The chunk holding {@code va} if it exists (tests). */
    OdpChunk chunkAt(long va) {
        return chunks.get(OdpChunk.indexOf(toAddress(va)));
    }

    /** Mapped pages over all chunks (tests, diagnostics). */
    long presentPages() {
        NativeMemory.lock();
        try {
            long n = 0;
            for (OdpChunk c : live) {
                n += c.presentPages();
            }
            return n;
        } finally {
            NativeMemory.unlock();
        }
    }

    // ------------------------------------------------------------------ data path

    /** After a successful access: mark pages mapped (a fault, counted, if any were not). */
    private void touched(OdpChunk c, long addr, long len) {
        if (!c.allPresent(addr, len)) {
            int fresh = c.markPresent(addr, len);
            if (fresh > 0) {
                table.counters().fault(fresh);
                JfrEvents.odpFault(addr, fresh, implicit);
            }
        }
        if (implicit) {
            c.used(table.config().clock().getAsLong());
        }
    }

    private int failed(OdpChunk c, long addr, long len, int status) {
        if (status == MemStatus.FAULT) {
            c.clearPresent(addr, len);
        }
        return status;
    }

    private int missing() {
        return closed ? MemStatus.INVALID_STATE : MemStatus.FAULT;
    }

    @Override
    int read(long va, MemorySegment dst, long dstOffset, long len) {
        return copy(va, dst, dstOffset, len, false);
    }

    @Override
    int write(long va, MemorySegment src, long srcOffset, long len) {
        return copy(va, src, srcOffset, len, true);
    }

    /** Walks the chunks of {@code [va, va+len)}, copying into ({@code toMemory}) or out of them. */
    private int copy(long va, MemorySegment buf, long bufOffset, long len, boolean toMemory) {
        if (!inRange(va, len)) {
            return MemStatus.OUT_OF_RANGE;
        }
        long addr = toAddress(va);
        while (len > 0) {
            OdpChunk c = acquire(addr);
            if (c == null) {
                return missing();
            }
            long n = Math.min(len, c.base + OdpChunk.SIZE - addr);
            int st;
            try {
                st = toMemory
                    ? SafeAccess.write(c.mode, c.scoped, addr, buf, bufOffset, n)
                    : SafeAccess.read(c.mode, c.scoped, addr, buf, bufOffset, n);
                if (st == MemStatus.OK) {
                    touched(c, addr, n);
                } else {
                    failed(c, addr, n, st);
                }
            } finally {
                c.exit();
            }
            if (st != MemStatus.OK) {
                return st;
            }
            addr += n;
            bufOffset += n;
            len -= n;
        }
        return closed ? MemStatus.INVALID_STATE : MemStatus.OK;
    }

    private static final int CAS = 0;
    private static final int FAA = 1;
    private static final int STORE = 2;

    private int atomic(long va, int op, long a, long b, long[] original) {
        if (!inRange(va, 8)) {
            return MemStatus.OUT_OF_RANGE;
        }
        if (!aligned8(va)) {
            return MemStatus.MISALIGNED;
        }
        long addr = toAddress(va);
        OdpChunk c = acquire(addr);
        if (c == null) {
            return missing();
        }
        try {
            int st = switch (op) {
                case CAS -> SafeAccess.compareAndSwap(c.mode, c.scoped, addr, a, b, original);
                case FAA -> SafeAccess.fetchAndAdd(c.mode, c.scoped, addr, a, original);
                default -> SafeAccess.atomicWrite(c.mode, c.scoped, addr, a);
            };
            if (st == MemStatus.OK) {
                touched(c, addr, 8);
            }
            return failed(c, addr, 8, st);
        } finally {
            c.exit();
        }
    }

    @Override
    int compareAndSwap(long va, long compare, long swap, long[] original) {
        return atomic(va, CAS, compare, swap, original);
    }

    @Override
    int fetchAndAdd(long va, long add, long[] original) {
        return atomic(va, FAA, add, 0, original);
    }

    @Override
    int atomicWrite(long va, long value) {
        return atomic(va, STORE, value, 0, null);
    }

    @Override
    int flush(long va, long len, boolean persistent) {
        if (!inRange(va, len)) {
            return MemStatus.OUT_OF_RANGE;
        }
        if (closed) {
            return MemStatus.INVALID_STATE;
        }
        // GLOBAL: earlier writes went through this process's memory already; a fence is all it
        // takes (rxe: wmb). PERSISTENT: msync writes back what is dirty; pages never touched have
        // nothing to write, so nothing is faulted in (a peer's FLUSH of a huge ODP range costs
        // the kernel's walk of it, not the population of it).
        VarHandle.fullFence();
        if (persistent && len > 0) {
            int r = Mem.msync(toAddress(va), len, Mem.MS_SYNC);
            if (r != 0 && !(implicit && r == -dev.jrxe.ib.Errno.ENOMEM)) {
                return MemStatus.FAULT;
            }
        }
        return MemStatus.OK;
    }

    /**
     * Level MR: an implicit region covers the address space, so only what it maps is flushed: a
     * fence, and (persistent) each child's range written back (msync skips the unmapped parts of
     * a child's 2 MiB and says so with ENOMEM, which is no failure here).
     */
    @Override
    int flushAll(boolean persistent) {
        if (!implicit) {
            return super.flushAll(persistent);
        }
        if (closed) {
            return MemStatus.INVALID_STATE;
        }
        VarHandle.fullFence();
        if (!persistent) {
            return MemStatus.OK;
        }
        long[] bases;
        NativeMemory.lock();
        try {
            bases = new long[live.size()];
            for (int i = 0; i < bases.length; i++) {
                bases[i] = live.get(i).base;
            }
        } finally {
            NativeMemory.unlock();
        }
        // outside the process-wide lock: msync may wait for the disk
        for (long base : bases) {
            int r = Mem.msync(base, OdpChunk.SIZE, Mem.MS_SYNC);
            if (r != 0 && r != -dev.jrxe.ib.Errno.ENOMEM) {
                return MemStatus.FAULT;
            }
        }
        return MemStatus.OK;
    }

    @Override
    int prefetch(long va, long len, int advice) {
        if (!inRange(va, len)) {
            return Errno.EFAULT;
        }
        table.counters().prefetched();
        if (advice == Advice.PREFETCH_NO_FAULT) {
            return walkFaulting(toAddress(va), len, false, true);
        }
        return walkFaulting(toAddress(va), len, advice == Advice.PREFETCH_WRITE, false);
    }

    /**
     * Makes pages present (MADV_POPULATE_*, which fails instead of faulting the JVM) and marks
     * them mapped; with {@code snapshotOnly}, marks only pages already resident (no fault).
     * Returns 0 or an errno.
     */
    private int walkFaulting(long addr, long len, boolean write, boolean snapshotOnly) {
        while (len > 0) {
            OdpChunk c = acquire(addr);
            if (c == null) {
                return Errno.EFAULT;
            }
            long n = Math.min(len, c.base + OdpChunk.SIZE - addr);
            int err = 0;
            try {
                if (snapshotOnly) {
                    long start = Mem.alignDown(addr, Mem.PAGE_SIZE);
                    long end = Mem.alignUp(addr + n, Mem.PAGE_SIZE);
                    int[] fresh = new int[1];
                    Mem.forEachResidentPage(start, end - start, page -> fresh[0] += c.markPage(page));
                    if (fresh[0] > 0) {
                        table.counters().fault(fresh[0]);
                        JfrEvents.odpFault(addr, fresh[0], implicit);
                    }
                } else {
                    err = SafeAccess.populate(addr, n, write);
                    if (err == 0) {
                        touched(c, addr, n);
                    }
                }
            } finally {
                c.exit();
            }
            if (err != 0) {
                return err;
            }
            addr += n;
            len -= n;
        }
        return 0;
    }

    @Override
    int allowWrite() {
        return 0; // pages are faulted per access, with the access's own permission check
    }

    // ------------------------------------------------------------------ invalidation and teardown

    @Override
    public void invalidate(long addr, long len, boolean unmap) {
        long lo = implicit ? addr : Math.max(addr, address);
        long hi = implicit ? addr + len : Math.min(addr + len, address + length);
        if (lo >= hi) {
            return;
        }
        int dropped = 0;
        boolean any = false;
        for (long index = OdpChunk.indexOf(lo); index <= OdpChunk.indexOf(hi - 1); index++) {
            OdpChunk c = chunks.get(index);
            if (c == null) {
                continue;
            }
            any = true;
            dropped += c.clearPresent(lo, hi - lo);
            // An unmap takes whole chunks (the allocator maps 2 MiB granules): drop them, so the
            // next access builds a chunk for what is there then. A release drops pages; an implicit
            // child left without any goes too (mlx5's rule).
            if ((unmap || (implicit && c.presentPages() == 0)) && c.retireAndDrain()) {
                dropLocked(c, implicit);
            }
        }
        if (any) {
            table.counters().invalidated(dropped);
        }
    }

    @Override
    void close() {
        NativeMemory.lock();
        try {
            closed = true;
            while (!live.isEmpty()) {
                OdpChunk c = live.get(live.size() - 1);
                c.retireAndDrain();
                dropLocked(c, false);
            }
            NativeMemory.removeListener(this);
        } finally {
            NativeMemory.unlock();
        }
        if (implicit) {
            table.untrackImplicit(this);
        }
    }
}
