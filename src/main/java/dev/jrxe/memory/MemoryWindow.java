package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import java.lang.foreign.MemorySegment;

/**
 * A memory window (rxe_mw.c): a remote key for part of a memory region, with its own access
 * rights, bound and invalidated by work requests on a send queue. Type 1 windows are bound to a
 * PD (re-bound, or unbound by a bind of length 0); type 2 windows are bound to the QP that bound
 * them and are invalidated by LOCAL_INV or by a peer's SEND_WITH_INV. The key is the window's
 * index in the device's key table and an 8-bit key that each bind replaces, so the rkey of an
 * earlier binding stops resolving at once.
 *
 * <p>A window is never an lkey: its own {@link MemoryKey} methods refuse every access.
 * Remote access goes through {@link #forRemote}, which returns the current {@link Binding}. A
 * binding is immutable and checks on every access that it is still the window's binding, so an
 * operation that started under one binding can never reach memory through a later one, even
 * if the later one has the same rkey.
 */
public final class MemoryWindow implements MemoryKey {
    public static final int TYPE_1 = 1;
    public static final int TYPE_2 = 2;

    /** Unbound type 2 window, or a type 2 window after invalidation (rxe RXE_MW_STATE_FREE). */
    public static final int FREE = 0;
    /** Usable: type 1 from allocation on, type 2 while bound. */
    public static final int VALID = 1;
    /** Deallocated. */
    public static final int INVALID = 2;

    private final KeyTable table;
    private final int type;
    private final int pdHandle;
    private volatile int key;
    private volatile int state;
    private volatile Binding binding;

    MemoryWindow(KeyTable table, int key, int type, int pdHandle) {
        this.table = table;
        this.key = key;
        this.type = type;
        this.pdHandle = pdHandle;
        this.state = type == TYPE_1 ? VALID : FREE;
    }

    /**
     * What one bind established: the region, the window's first byte in the region's address
     * space, its length and rights, whether remote addresses are offsets (ZERO_BASED), and for
     * type 2 the QP it belongs to.
     */
    public final class Binding implements MemoryKey {
        final Region mr;
        final long mrStart;
        final long length;
        final int access;
        final boolean zeroBased;
        final long qpToken;
        final int boundKey;
        /** Accesses running through this binding: an invalidation waits for them. */
        final InFlight inFlight = new InFlight();

        Binding(Region mr, long mrStart, long length, int access, long qpToken, int boundKey) {
            this.mr = mr;
            this.mrStart = mrStart;
            this.length = length;
            this.access = access;
            this.zeroBased = (access & Access.ZERO_BASED) != 0;
            this.qpToken = qpToken;
            this.boundKey = boundKey;
        }

        /** The window this binding belongs to. */
        public MemoryWindow window() {
            return MemoryWindow.this;
        }

        @Override
        public int key() {
            return boundKey;
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
            return zeroBased ? 0 : mrStart;
        }

        @Override
        public long length() {
            return length;
        }

        /** Window address to region address (the same for a VA-based window). */
        private long toMr(long va) {
            return zeroBased ? mrStart + va : va;
        }

        /** rxe_lookup_mw + rxe_mr's range check, then the region's translation must still cover it. */
        @Override
        public int check(int pd, int requiredAccess, long va, long len) {
            if (binding != this || state != VALID || !mr.valid) {
                return MemStatus.INVALID_STATE;
            }
            if (pd != pdHandle) {
                return MemStatus.PD_MISMATCH;
            }
            if ((requiredAccess & ~access) != 0) {
                return MemStatus.ACCESS_DENIED;
            }
            long offset = zeroBased ? va : va - mrStart;
            if (length == 0 || Long.compareUnsigned(offset, length) > 0 || Long.compareUnsigned(len, length - offset) > 0) {
                return MemStatus.OUT_OF_RANGE;
            }
            return mr.translation().inRange(toMr(va), len) ? MemStatus.OK : MemStatus.OUT_OF_RANGE;
        }

        @Override
        public int read(int pd, int requiredAccess, long va, MemorySegment dst, long dstOffset, long len) {
            inFlight.enter();
            try {
                int st = check(pd, requiredAccess, va, len);
                return st != MemStatus.OK ? st : mr.translation().read(toMr(va), dst, dstOffset, len);
            } finally {
                inFlight.exit();
            }
        }

        @Override
        public int write(int pd, int requiredAccess, long va, MemorySegment src, long srcOffset, long len) {
            inFlight.enter();
            try {
                int st = check(pd, requiredAccess, va, len);
                return st != MemStatus.OK ? st : mr.translation().write(toMr(va), src, srcOffset, len);
            } finally {
                inFlight.exit();
            }
        }

        @Override
        public int compareAndSwap(int pd, int requiredAccess, long va, long compare, long swap, long[] original) {
            inFlight.enter();
            try {
                int st = check(pd, requiredAccess, va, 8);
                return st != MemStatus.OK ? st : mr.translation().compareAndSwap(toMr(va), compare, swap, original);
            } finally {
                inFlight.exit();
            }
        }

        @Override
        public int fetchAndAdd(int pd, int requiredAccess, long va, long add, long[] original) {
            inFlight.enter();
            try {
                int st = check(pd, requiredAccess, va, 8);
                return st != MemStatus.OK ? st : mr.translation().fetchAndAdd(toMr(va), add, original);
            } finally {
                inFlight.exit();
            }
        }

        @Override
        public int atomicWrite(int pd, int requiredAccess, long va, long value) {
            inFlight.enter();
            try {
                int st = check(pd, requiredAccess, va, 8);
                return st != MemStatus.OK ? st : mr.translation().atomicWrite(toMr(va), value);
            } finally {
                inFlight.exit();
            }
        }

        @Override
        public int flush(int pd, int requiredAccess, long va, long len) {
            inFlight.enter();
            try {
                int st = check(pd, requiredAccess, va, len);
                return st != MemStatus.OK ? st
                    : mr.translation().flush(toMr(va), len, (requiredAccess & Access.FLUSH_PERSISTENT) != 0);
            } finally {
                inFlight.exit();
            }
        }

        @Override
        public int invalidateRemotely(int pd) {
            return MemoryWindow.this.invalidateRemotely(pd);
        }
    }

    @Override
    public int key() {
        return key;
    }

    /** The rkey (the same as {@link #key()}). */
    public int rkey() {
        return key;
    }

    public int type() {
        return type;
    }

    @Override
    public int pdHandle() {
        return pdHandle;
    }

    /** {@link #FREE}, {@link #VALID} or {@link #INVALID}. */
    public int state() {
        return state;
    }

    /** The current binding, or null. */
    public Binding binding() {
        return binding;
    }

    @Override
    public int access() {
        Binding b = binding;
        return b == null ? 0 : b.access;
    }

    @Override
    public long start() {
        Binding b = binding;
        return b == null ? 0 : b.start();
    }

    @Override
    public long length() {
        Binding b = binding;
        return b == null ? 0 : b.length;
    }

    /**
     * The key a remote request of QP {@code qpn} may use: the current binding when the window is
     * valid, bound, and (type 2) bound by that very QP; else null (rxe_lookup_mw's rules).
     */
    @Override
    public MemoryKey forRemote(long qpToken) {
        Binding b = binding;
        if (b == null || state != VALID || (type == TYPE_2 && b.qpToken != qpToken)) {
            return null;
        }
        return b;
    }

    // A window is not an lkey: local gather/scatter through it is refused.

    @Override
    public int check(int pd, int requiredAccess, long va, long len) {
        return MemStatus.INVALID_KEY;
    }

    @Override
    public int read(int pd, int requiredAccess, long va, MemorySegment dst, long dstOffset, long len) {
        return MemStatus.INVALID_KEY;
    }

    @Override
    public int write(int pd, int requiredAccess, long va, MemorySegment src, long srcOffset, long len) {
        return MemStatus.INVALID_KEY;
    }

    @Override
    public int compareAndSwap(int pd, int requiredAccess, long va, long compare, long swap, long[] original) {
        return MemStatus.INVALID_KEY;
    }

    @Override
    public int fetchAndAdd(int pd, int requiredAccess, long va, long add, long[] original) {
        return MemStatus.INVALID_KEY;
    }

    @Override
    public int atomicWrite(int pd, int requiredAccess, long va, long value) {
        return MemStatus.INVALID_KEY;
    }

    @Override
    public int flush(int pd, int requiredAccess, long va, long len) {
        return MemStatus.INVALID_KEY;
    }

    /** SEND_WITH_INV: type 2 windows of this PD only (o10-37.2.26: a type 1 window cannot be). */
    @Override
    public int invalidateRemotely(int pd) {
        return MemoryWindows.invalidate(this, pd, key) == 0 ? MemStatus.OK : MemStatus.ACCESS_DENIED;
    }

    // ---------------------------------------------------------------- state changes (MemoryWindows)

    KeyTable table() {
        return table;
    }

    void setKey(int k) {
        key = k;
    }

    void setState(int s) {
        state = s;
    }

    void setBinding(Binding b) {
        binding = b;
    }

    Binding newBinding(Region mr, long mrStart, long length, int access, long qpToken, int boundKey) {
        return new Binding(mr, mrStart, length, access, qpToken, boundKey);
    }

    @Override
    public String toString() {
        Binding b = binding;
        return "MemoryWindow[key=0x" + Integer.toHexString(key) + ", type " + type + ", pd=" + pdHandle + ", "
            + (state == FREE ? "FREE" : state == VALID ? "VALID" : "INVALID")
            + (b == null ? "" : ", mr=0x" + Integer.toHexString(b.mr.key()) + ", start=0x" + Long.toHexString(b.mrStart)
                + ", length=" + b.length + ", access=0x" + Integer.toHexString(b.access)) + "]";
    }
}
