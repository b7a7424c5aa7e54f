package dev.jrxe.memory;

import java.lang.foreign.MemorySegment;

/**
 * A registered memory region: pinned, explicit ODP or implicit ODP (see {@link RegionKind}).
 * Created by {@link MemoryRegions#register}; the key is valid as lkey and, when the access
 * flags allow remote access, as rkey. Data-path methods never throw and allocate nothing.
 */
public final class Region implements MemoryKey, AutoCloseable {
    private final KeyTable table;
    private final int key;
    private volatile int pdHandle;
    private volatile int access;
    volatile Translation translation;
    volatile boolean valid = true;
    /** Invalidated by a SEND_WITH_INV (or a local invalidate): the key no longer grants access. */
    private volatile boolean invalidated;

    Region(KeyTable table, int key, int pdHandle, int access, Translation translation) {
        this.table = table;
        this.key = key;
        this.pdHandle = pdHandle;
        this.access = access;
        this.translation = translation;
    }

    @Override
    public int key() {
        return key;
    }

    /** The local key (the same value as {@link #key()}). */
    public int lkey() {
        return key;
    }

    /** The remote key: {@link #key()} when any remote access is allowed, else 0 (as rxe). */
    public int rkey() {
        return (access & (Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 ? key : 0;
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
        return translation.iova;
    }

    @Override
    public long length() {
        return translation.length;
    }

    /** Process address of {@link #start()} (0 for implicit ODP). */
    public long address() {
        return translation.address;
    }

    public RegionKind kind() {
        return translation.kind();
    }

    public boolean isOnDemand() {
        return translation.kind() != RegionKind.PINNED;
    }

    /** The segment the region was registered from, or null (address registration, implicit). */
    public MemorySegment segment() {
        return translation.segment;
    }

    /** The key table (device) this region belongs to. */
    public KeyTable table() {
        return table;
    }

    /** Whether the region is registered (not yet deregistered). */
    public boolean isValid() {
        return valid;
    }

    /**
     * Invalidates the key on behalf of {@code pdHandle} (an incoming SEND_WITH_INV names it):
     * afterwards every check fails with {@link MemStatus#INVALID_STATE}. Returns
     * {@link MemStatus#OK}, or why it cannot: {@link MemStatus#PD_MISMATCH},
     * {@link MemStatus#INVALID_STATE} when already invalid or deregistered.
     */
    public int invalidate(int pdHandle) {
        if (!valid || invalidated) {
            return MemStatus.INVALID_STATE;
        }
        if (pdHandle != this.pdHandle) {
            return MemStatus.PD_MISMATCH;
        }
        invalidated = true;
        return MemStatus.OK;
    }

    /** Whether a SEND_WITH_INV or local invalidate has invalidated the key. */
    public boolean isInvalidated() {
        return invalidated;
    }

    void pdHandle(int value) {
        pdHandle = value;
    }

    void access(int value) {
        access = value;
    }

    @Override
    public int check(int pdHandle, int requiredAccess, long va, long len) {
        if (!valid || invalidated) {
            return MemStatus.INVALID_STATE;
        }
        if (pdHandle != this.pdHandle) {
            return MemStatus.PD_MISMATCH;
        }
        if ((requiredAccess & ~access) != 0) {
            return MemStatus.ACCESS_DENIED;
        }
        return translation.inRange(va, len) ? MemStatus.OK : MemStatus.OUT_OF_RANGE;
    }

    @Override
    public int read(long va, MemorySegment dst, long dstOffset, long len) {
        return translation.read(va, dst, dstOffset, len);
    }

    @Override
    public int write(long va, MemorySegment src, long srcOffset, long len) {
        return translation.write(va, src, srcOffset, len);
    }

    @Override
    public int compareAndSwap(long va, long compare, long swap, long[] original) {
        return translation.compareAndSwap(va, compare, swap, original);
    }

    @Override
    public int fetchAndAdd(long va, long add, long[] original) {
        return translation.fetchAndAdd(va, add, original);
    }

    @Override
    public int atomicWrite(long va, long value) {
        return translation.atomicWrite(va, value);
    }

    @Override
    public int flush(long va, long len) {
        return translation.flush(va, len);
    }

    /** Deregisters (see {@link MemoryRegions#deregister}). */
    @Override
    public void close() {
        MemoryRegions.deregister(this);
    }

    @Override
    public String toString() {
        return "Region[key=0x" + Integer.toHexString(key) + ", " + kind() + ", pd=" + pdHandle
                + ", access=0x" + Integer.toHexString(access) + ", iova=0x" + Long.toHexString(start())
                + ", length=" + Long.toUnsignedString(length()) + "]";
    }
}
