package dev.jrxe.memory;

import java.lang.foreign.MemorySegment;

/**
 * An indirect memory key (mlx5dv's UMR mkey): a zero-based key whose bytes are a layout over
 * other keys' memory, set by a work request on a send queue. The layout is a list (SGEs one after
 * the other) or an interleaving (entries of {@code bytes_count} bytes every {@code bytes_count +
 * bytes_skip}, the group repeated {@code repeat} times). It is an lkey and an rkey; created free
 * (unusable), valid once configured, free again after LOCAL_INV (or a peer's SEND_WITH_INV when
 * created with {@link #REMOTE_INVALIDATE}).
 *
 * <p>Every access checks, against one snapshot of the layout, the state, PD, access rights and
 * the range {@code [0, length)}, then splits the range into pieces, each inside one entry, and
 * moves each piece through that entry's region with the region's own validity and range checks.
 * Finding the entry of an offset is O(1) for an interleaved layout (a division by the group's
 * size, then its few entries) and O(log n) for a list (binary search of the entry starts). No
 * access allocates.
 */
public final class IndirectKey implements MemoryKey {
    /** mlx5dv_mkey_init_attr create_flags. */
    public static final int INDIRECT = 1;
    public static final int BLOCK_SIGNATURE = 1 << 1;
    public static final int CRYPTO = 1 << 2;
    public static final int UPDATE_TAG = 1 << 3;
    public static final int REMOTE_INVALIDATE = 1 << 4;

    private final KeyTable table;
    private final int key;
    private final int pdHandle;
    private final int flags;
    private final int maxEntries;
    private volatile Layout layout;
    private volatile boolean destroyed;

    IndirectKey(KeyTable table, int key, int pdHandle, int flags, int maxEntries) {
        this.table = table;
        this.key = key;
        this.pdHandle = pdHandle;
        this.flags = flags;
        this.maxEntries = maxEntries;
    }

    /**
     * One configuration: rights, and the pieces. Entry {@code i} covers key offsets from
     * {@code start[i]} for {@code count[i]} bytes (per repeat, for an interleaving) at region
     * address {@code addr[i]}, advancing {@code stride[i]} per repeat.
     */
    final class Layout implements MemoryKey {
        /** Accesses running through this layout: an invalidation waits for them. */
        final InFlight inFlight = new InFlight();
        final int access;
        final long length;
        final Region[] regions;
        final long[] addr;
        final long[] count;
        final long[] stride;
        /** Offset of each entry within a group (interleaved) or within the key (list). */
        final long[] start;
        /** Bytes of one group (interleaved), or 0 (list). */
        final long group;
        final long repeat;

        Layout(int access, Region[] regions, long[] addr, long[] count, long[] stride, long repeat, boolean interleaved) {
            this.access = access;
            this.regions = regions;
            this.addr = addr;
            this.count = count;
            this.stride = stride;
            this.start = new long[regions.length];
            long at = 0;
            for (int i = 0; i < regions.length; i++) {
                start[i] = at;
                at += count[i];
            }
            this.group = interleaved ? at : 0;
            this.repeat = interleaved ? repeat : 1;
            this.length = at * this.repeat;
        }

        /** The entry holding {@code offset} (0 <= offset < length). */
        int entryOf(long offset) {
            long within = group == 0 ? offset : offset % group;
            int lo = 0;
            int hi = start.length - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (start[mid] <= within) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }

        /** Region address of key offset {@code offset}, which lies in entry {@code e}. */
        long addressOf(int e, long offset) {
            if (group == 0) {
                return addr[e] + (offset - start[e]);
            }
            long r = offset / group;
            return addr[e] + r * stride[e] + (offset % group - start[e]);
        }

        /** Bytes from {@code offset} to the end of its piece. */
        long pieceLeft(int e, long offset) {
            long within = group == 0 ? offset : offset % group;
            return start[e] + count[e] - within;
        }

        // As a MemoryKey: what a remote operation holds for its whole length. Each access first
        // checks that this is still the key's layout, so a reconfiguration cuts it off.

        private Layout current() {
            return layout == this ? this : null;
        }

        @Override
        public int key() {
            return key;
        }

        @Override
        public int pdHandle() {
            return pdHandle;
        }

        @Override
        public int access() {
            return access;
        }

        @Override
        public long start() {
            return 0;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public int check(int pd, int requiredAccess, long va, long len) {
            return checkAll(current(), pd, requiredAccess, va, len);
        }

        @Override
        public int read(int pd, int requiredAccess, long va, MemorySegment dst, long dstOffset, long len) {
            return move(current(), pd, requiredAccess, va, dst, dstOffset, len, false);
        }

        @Override
        public int write(int pd, int requiredAccess, long va, MemorySegment src, long srcOffset, long len) {
            return move(current(), pd, requiredAccess, va, src, srcOffset, len, true);
        }

        @Override
        public int compareAndSwap(int pd, int requiredAccess, long va, long compare, long swap, long[] original) {
            return cas(current(), pd, requiredAccess, va, compare, swap, original);
        }

        @Override
        public int fetchAndAdd(int pd, int requiredAccess, long va, long add, long[] original) {
            return faa(current(), pd, requiredAccess, va, add, original);
        }

        @Override
        public int atomicWrite(int pd, int requiredAccess, long va, long value) {
            return store(current(), pd, requiredAccess, va, value);
        }

        @Override
        public int flush(int pd, int requiredAccess, long va, long len) {
            return noFlush(current(), pd, requiredAccess, va, len);
        }

        @Override
        public int invalidateRemotely(int pd) {
            return IndirectKey.this.invalidateRemotely(pd);
        }
    }

    /**
     * A remote request resolves the key to its current layout and keeps that for the rest of the
     * operation (null: not configured).
     */
    @Override
    public MemoryKey forRemote(long qpToken) {
        Layout l = layout;
        return l == null || destroyed ? null : l;
    }

    @Override
    public int key() {
        return key;
    }

    public int lkey() {
        return key;
    }

    public int rkey() {
        return key;
    }

    @Override
    public int pdHandle() {
        return pdHandle;
    }

    public int flags() {
        return flags;
    }

    /** Entries it can take (the requested number rounded up to a multiple of 4). */
    public int maxEntries() {
        return maxEntries;
    }

    /** Whether a layout is configured (else free). */
    public boolean isConfigured() {
        return layout != null;
    }

    @Override
    public int access() {
        Layout l = layout;
        return l == null ? 0 : l.access;
    }

    /** Zero based: offsets from 0. */
    @Override
    public long start() {
        return 0;
    }

    @Override
    public long length() {
        Layout l = layout;
        return l == null ? 0 : l.length;
    }

    private int check(Layout l, int pd, int requiredAccess, long va, long len) {
        if (l == null || destroyed) {
            return MemStatus.INVALID_STATE;
        }
        if (pd != pdHandle) {
            return MemStatus.PD_MISMATCH;
        }
        if ((requiredAccess & ~l.access) != 0) {
            return MemStatus.ACCESS_DENIED;
        }
        if (va < 0 || len < 0 || Long.compareUnsigned(va, l.length) > 0 || len > l.length - va) {
            return MemStatus.OUT_OF_RANGE;
        }
        return MemStatus.OK;
    }

    @Override
    public int check(int pd, int requiredAccess, long va, long len) {
        return checkAll(layout, pd, requiredAccess, va, len);
    }

    /** {@link #moveUnguarded} counted in {@code l}'s accesses and refused once {@code l} is no longer the key's layout. */
    private int move(Layout l, int pd, int requiredAccess, long va, MemorySegment seg, long segOffset, long len,
                     boolean toKey) {
        if (l == null) {
            return MemStatus.INVALID_STATE;
        }
        l.inFlight.enter();
        try {
            return layout != l ? MemStatus.INVALID_STATE : moveUnguarded(l, pd, requiredAccess, va, seg, segOffset, len, toKey);
        } finally {
            l.inFlight.exit();
        }
    }

    /** {@link #casUnguarded} counted in {@code l}'s accesses and refused once {@code l} is no longer the key's layout. */
    private int cas(Layout l, int pd, int requiredAccess, long va, long compare, long swap, long[] original) {
        if (l == null) {
            return MemStatus.INVALID_STATE;
        }
        l.inFlight.enter();
        try {
            return layout != l ? MemStatus.INVALID_STATE : casUnguarded(l, pd, requiredAccess, va, compare, swap, original);
        } finally {
            l.inFlight.exit();
        }
    }

    /** {@link #faaUnguarded} counted in {@code l}'s accesses and refused once {@code l} is no longer the key's layout. */
    private int faa(Layout l, int pd, int requiredAccess, long va, long add, long[] original) {
        if (l == null) {
            return MemStatus.INVALID_STATE;
        }
        l.inFlight.enter();
        try {
            return layout != l ? MemStatus.INVALID_STATE : faaUnguarded(l, pd, requiredAccess, va, add, original);
        } finally {
            l.inFlight.exit();
        }
    }

    /** {@link #storeUnguarded} counted in {@code l}'s accesses and refused once {@code l} is no longer the key's layout. */
    private int store(Layout l, int pd, int requiredAccess, long va, long value) {
        if (l == null) {
            return MemStatus.INVALID_STATE;
        }
        l.inFlight.enter();
        try {
            return layout != l ? MemStatus.INVALID_STATE : storeUnguarded(l, pd, requiredAccess, va, value);
        } finally {
            l.inFlight.exit();
        }
    }

    /** {@link #noFlushUnguarded} counted in {@code l}'s accesses and refused once {@code l} is no longer the key's layout. */
    private int noFlush(Layout l, int pd, int requiredAccess, long va, long len) {
        if (l == null) {
            return MemStatus.INVALID_STATE;
        }
        l.inFlight.enter();
        try {
            return layout != l ? MemStatus.INVALID_STATE : noFlushUnguarded(l, pd, requiredAccess, va, len);
        } finally {
            l.inFlight.exit();
        }
    }

    private int checkAll(Layout l, int pd, int requiredAccess, long va, long len) {
        int st = check(l, pd, requiredAccess, va, len);
        if (st != MemStatus.OK) {
            return st;
        }
        // every entry's region must still be there
        for (Region r : l.regions) {
            if (!r.valid) {
                return MemStatus.INVALID_STATE;
            }
        }
        return MemStatus.OK;
    }

    @Override
    public int read(int pd, int requiredAccess, long va, MemorySegment dst, long dstOffset, long len) {
        return move(layout, pd, requiredAccess, va, dst, dstOffset, len, false);
    }

    @Override
    public int write(int pd, int requiredAccess, long va, MemorySegment src, long srcOffset, long len) {
        return move(layout, pd, requiredAccess, va, src, srcOffset, len, true);
    }

    private int moveUnguarded(Layout l, int pd, int requiredAccess, long va, MemorySegment seg, long segOffset, long len,
                     boolean toKey) {
        int st = check(l, pd, requiredAccess, va, len);
        if (st != MemStatus.OK) {
            return st;
        }
        long done = 0;
        while (done < len) {
            long off = va + done;
            int e = l.entryOf(off);
            long n = Math.min(len - done, l.pieceLeft(e, off));
            if (n <= 0) {
                return MemStatus.OUT_OF_RANGE; // past the layout (the range check makes this unreachable)
            }
            Region r = l.regions[e];
            long at = l.addressOf(e, off);
            Translation t = r.translation();
            if (!r.valid || !t.inRange(at, n)) {
                return MemStatus.INVALID_STATE;
            }
            st = toKey ? t.write(at, seg, segOffset + done, n) : t.read(at, seg, segOffset + done, n);
            if (st != MemStatus.OK) {
                return st;
            }
            done += n;
        }
        return MemStatus.OK;
    }

    /** The entry an 8-byte atomic at {@code va} lies in, or -1 when it spans two entries. */
    private static int atomicEntry(Layout l, long va) {
        int e = l.entryOf(va);
        return l.pieceLeft(e, va) < 8 ? -1 : e;
    }

    @Override
    public int compareAndSwap(int pd, int requiredAccess, long va, long compare, long swap, long[] original) {
        return cas(layout, pd, requiredAccess, va, compare, swap, original);
    }

    private int casUnguarded(Layout l, int pd, int requiredAccess, long va, long compare, long swap, long[] original) {
        int st = check(l, pd, requiredAccess, va, 8);
        int e = st == MemStatus.OK ? atomicEntry(l, va) : -1;
        if (st != MemStatus.OK || e < 0) {
            return st != MemStatus.OK ? st : MemStatus.MISALIGNED;
        }
        Region r = l.regions[e];
        return r.valid ? r.translation().compareAndSwap(l.addressOf(e, va), compare, swap, original)
            : MemStatus.INVALID_STATE;
    }

    @Override
    public int fetchAndAdd(int pd, int requiredAccess, long va, long add, long[] original) {
        return faa(layout, pd, requiredAccess, va, add, original);
    }

    private int faaUnguarded(Layout l, int pd, int requiredAccess, long va, long add, long[] original) {
        int st = check(l, pd, requiredAccess, va, 8);
        int e = st == MemStatus.OK ? atomicEntry(l, va) : -1;
        if (st != MemStatus.OK || e < 0) {
            return st != MemStatus.OK ? st : MemStatus.MISALIGNED;
        }
        Region r = l.regions[e];
        return r.valid ? r.translation().fetchAndAdd(l.addressOf(e, va), add, original) : MemStatus.INVALID_STATE;
    }

    @Override
    public int atomicWrite(int pd, int requiredAccess, long va, long value) {
        return store(layout, pd, requiredAccess, va, value);
    }

    private int storeUnguarded(Layout l, int pd, int requiredAccess, long va, long value) {
        int st = check(l, pd, requiredAccess, va, 8);
        int e = st == MemStatus.OK ? atomicEntry(l, va) : -1;
        if (st != MemStatus.OK || e < 0) {
            return st != MemStatus.OK ? st : MemStatus.MISALIGNED;
        }
        Region r = l.regions[e];
        return r.valid ? r.translation().atomicWrite(l.addressOf(e, va), value) : MemStatus.INVALID_STATE;
    }

    /** An indirect key grants no FLUSH rights (its access flags are LW/RW/RR/RA only). */
    @Override
    public int flush(int pd, int requiredAccess, long va, long len) {
        return noFlush(layout, pd, requiredAccess, va, len);
    }

    private int noFlushUnguarded(Layout l, int pd, int requiredAccess, long va, long len) {
        int st = check(l, pd, requiredAccess, va, len);
        return st != MemStatus.OK ? st : MemStatus.ACCESS_DENIED;
    }

    /** SEND_WITH_INV: only a key created with REMOTE_INVALIDATE, of this PD, configured. */
    @Override
    public int invalidateRemotely(int pd) {
        if ((flags & REMOTE_INVALIDATE) == 0) {
            // only a key created for it; then, as mlx5 (test_mkey_remote_invalidate), even one that
            // grants the peer no access: REMOTE_INVALIDATE is the creator's consent
            return MemStatus.ACCESS_DENIED;
        }
        return IndirectKeys.invalidate(this, pd) == 0 ? MemStatus.OK : MemStatus.ACCESS_DENIED;
    }

    // ---------------------------------------------------------------- state (IndirectKeys)

    KeyTable table() {
        return table;
    }

    Layout layout() {
        return layout;
    }

    void setLayout(Layout l) {
        layout = l;
    }

    public boolean destroyed() {
        return destroyed;
    }

    void markDestroyed() {
        destroyed = true;
    }

    @Override
    public String toString() {
        Layout l = layout;
        return "IndirectKey[key=0x" + Integer.toHexString(key) + ", pd=" + pdHandle + ", "
            + (l == null ? "free" : (l.group == 0 ? "list" : "interleaved x" + l.repeat) + " of " + l.regions.length
                + ", length " + l.length + ", access 0x" + Integer.toHexString(l.access)) + "]";
    }
}
