package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import java.lang.foreign.MemorySegment;

/**
 * A registered memory region: pinned, explicit ODP or implicit ODP (see {@link RegionKind}).
 * Created by {@link MemoryRegions#register}; the key is valid as lkey and, when the access
 * flags allow remote access, as rkey. Every access through {@link MemoryKey} checks the PD, the
 * access rights, the range and validity against one snapshot of the region's binding. Data-path
 * methods never throw and allocate nothing. A registered MR cannot be invalidated by a peer
 * (rxe's rule for user MRs: only memory windows and keys made for remote invalidation can).
 */
public final class Region implements MemoryKey, AutoCloseable {
    /**
     * What a key check and the access after it must see together: the PD, the access rights and
     * the memory. A rereg replaces all three in one write, so no check ever sees the PD of one
     * binding with the rights or memory of another.
     */
    record Binding(int pdHandle, int access, Translation translation) {
    }

    private final KeyTable table;
    private final int key;
    private volatile Binding binding;
    volatile boolean valid = true;
    /**
     * Holds by memory-window bindings and configured indirect-key entries: while any, neither
     * deregistration nor rereg may change the region under them (EBUSY).
     */
    int keyHolds;

    Region(KeyTable table, int key, int pdHandle, int access, Translation translation) {
        this.table = table;
        this.key = key;
        this.binding = new Binding(pdHandle, access, translation);
    }

    @Override
    public int key() {
        return key;
    }

    /** The local key (the same value as {@link #key()}). */
    public int lkey() {
        return key;
    }

    /**
     * The remote key: {@link #key()} when any remote access is allowed, else 0 (as rxe). FLUSH is
     * a remote operation too: a region that allows only flushes has an rkey.
     */
    public int rkey() {
        return (access() & (Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC | Access.FLUSH_GLOBAL
            | Access.FLUSH_PERSISTENT)) != 0 ? key : 0;
    }

    @Override
    public int pdHandle() {
        return binding.pdHandle();
    }

    @Override
    public int access() {
        return binding.access();
    }

    @Override
    public long start() {
        return binding.translation().iova;
    }

    @Override
    public long length() {
        return binding.translation().length;
    }

    /** Process address of {@link #start()} (0 for implicit ODP). */
    public long address() {
        return binding.translation().address;
    }

    public RegionKind kind() {
        return binding.translation().kind();
    }

    public boolean isOnDemand() {
        return kind() != RegionKind.PINNED;
    }

    /** The segment the region was registered from, or null (address registration, implicit). */
    public MemorySegment segment() {
        return binding.translation().segment;
    }

    /** The key table (device) this region belongs to. */
    public KeyTable table() {
        return table;
    }

    /** Window bindings and indirect-key entries that hold this region now. */
    public synchronized int heldByKeys() {
        return keyHolds;
    }

    /** Whether the region is registered (not yet deregistered). */
    public boolean isValid() {
        return valid;
    }

    Binding binding() {
        return binding;
    }

    Translation translation() {
        return binding.translation();
    }

    /** Switches PD, access and memory at once (rereg). */
    void bind(Binding b) {
        binding = b;
    }

    // ---------------------------------------------------------------- checked access (MemoryKey)

    private int check(Binding b, int pdHandle, int requiredAccess, long va, long len) {
        if (!valid) {
            return MemStatus.INVALID_STATE;
        }
        if (pdHandle != b.pdHandle()) {
            return MemStatus.PD_MISMATCH;
        }
        if ((requiredAccess & ~b.access()) != 0) {
            return MemStatus.ACCESS_DENIED;
        }
        return b.translation().inRange(va, len) ? MemStatus.OK : MemStatus.OUT_OF_RANGE;
    }

    @Override
    public int check(int pdHandle, int requiredAccess, long va, long len) {
        return check(binding, pdHandle, requiredAccess, va, len);
    }

    @Override
    public int read(int pdHandle, int requiredAccess, long va, MemorySegment dst, long dstOffset, long len) {
        Binding b = binding;
        int st = check(b, pdHandle, requiredAccess, va, len);
        return st != MemStatus.OK ? st : b.translation().read(va, dst, dstOffset, len);
    }

    /** Pinned memory is copied without a lock (an ODP region may fault a chunk in under the allocator's). */
    @Override
    public boolean accessMayWait() {
        return binding.translation().kind() != RegionKind.PINNED;
    }

    @Override
    public boolean holdForSend(int pdHandle, long va, long len, SendHold hold) {
        Binding b = binding;
        return check(b, pdHandle, 0, va, len) == MemStatus.OK && b.translation().holdForSend(va, len, hold);
    }

    @Override
    public int write(int pdHandle, int requiredAccess, long va, MemorySegment src, long srcOffset, long len) {
        Binding b = binding;
        int st = check(b, pdHandle, requiredAccess, va, len);
        return st != MemStatus.OK ? st : b.translation().write(va, src, srcOffset, len);
    }

    @Override
    public int compareAndSwap(int pdHandle, int requiredAccess, long va, long compare, long swap, long[] original) {
        Binding b = binding;
        int st = check(b, pdHandle, requiredAccess, va, 8);
        return st != MemStatus.OK ? st : b.translation().compareAndSwap(va, compare, swap, original);
    }

    @Override
    public int fetchAndAdd(int pdHandle, int requiredAccess, long va, long add, long[] original) {
        Binding b = binding;
        int st = check(b, pdHandle, requiredAccess, va, 8);
        return st != MemStatus.OK ? st : b.translation().fetchAndAdd(va, add, original);
    }

    @Override
    public int atomicWrite(int pdHandle, int requiredAccess, long va, long value) {
        Binding b = binding;
        int st = check(b, pdHandle, requiredAccess, va, 8);
        return st != MemStatus.OK ? st : b.translation().atomicWrite(va, value);
    }

    @Override
    public int flush(int pdHandle, int requiredAccess, long va, long len) {
        Binding b = binding;
        int st = check(b, pdHandle, requiredAccess, va, len);
        return st != MemStatus.OK ? st
            : b.translation().flush(va, len, (requiredAccess & Access.FLUSH_PERSISTENT) != 0);
    }

    @Override
    public int flushRegion(int pdHandle, int requiredAccess) {
        Binding b = binding;
        int st = check(b, pdHandle, requiredAccess, b.translation().iova, 0);
        return st != MemStatus.OK ? st
            : b.translation().flushAll((requiredAccess & Access.FLUSH_PERSISTENT) != 0);
    }

    // ---------------------------------------------------------------- unchecked (memory layer and its tests)

    /** Copies out without a key check: the memory layer's own use (benchmarks, tests). */
    int read(long va, MemorySegment dst, long dstOffset, long len) {
        return translation().read(va, dst, dstOffset, len);
    }

    int write(long va, MemorySegment src, long srcOffset, long len) {
        return translation().write(va, src, srcOffset, len);
    }

    int compareAndSwap(long va, long compare, long swap, long[] original) {
        return translation().compareAndSwap(va, compare, swap, original);
    }

    int fetchAndAdd(long va, long add, long[] original) {
        return translation().fetchAndAdd(va, add, original);
    }

    int atomicWrite(long va, long value) {
        return translation().atomicWrite(va, value);
    }

    int flush(long va, long len) {
        return translation().flush(va, len, false);
    }

    /** Deregisters (see {@link MemoryRegions#deregister}). */
    @Override
    public void close() {
        MemoryRegions.deregister(this);
    }

    @Override
    public String toString() {
        Binding b = binding;
        return "Region[key=0x" + Integer.toHexString(key) + ", " + b.translation().kind() + ", pd=" + b.pdHandle()
                + ", access=0x" + Integer.toHexString(b.access()) + ", iova=0x" + Long.toHexString(b.translation().iova)
                + ", length=" + Long.toUnsignedString(b.translation().length) + "]";
    }
}
