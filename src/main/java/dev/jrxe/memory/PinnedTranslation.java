package dev.jrxe.memory;

import dev.jrxe.ib.Errno;
import dev.jrxe.sys.Mem;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A pinned region: its pages are populated and locked at registration (mlock through the
 * {@link PinLedger}), so RSS grows with its size, and access never faults a page in.
 */
final class PinnedTranslation extends Translation {
    private static final VarHandle IN_FLIGHT;

    static {
        try {
            IN_FLIGHT = MethodHandles.lookup().findVarHandle(PinnedTranslation.class, "inFlight", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long pinStart;
    private final long pinEnd;
    private volatile int mode;
    private volatile boolean closed;
    @SuppressWarnings("unused")
    private volatile int inFlight;

    private PinnedTranslation(KeyTable table, long iova, long address, long length, MemorySegment segment) {
        super(table, iova, address, length, segment);
        this.pinStart = Mem.alignDown(address, Mem.PAGE_SIZE);
        this.pinEnd = Mem.alignUp(address + length, Mem.PAGE_SIZE);
    }

    /**
     * Pins {@code [address, address+length)}.
     *
     * @throws MemoryException EFAULT if not mapped (or not writable when {@code writable}),
     *                         ENOMEM if pinning fails or the device's pin limit is reached
     */
    static PinnedTranslation create(KeyTable table, long iova, long address, long length, MemorySegment segment,
                                    boolean writable) {
        PinnedTranslation t = new PinnedTranslation(table, iova, address, length, segment);
        long bytes = t.pinEnd - t.pinStart;
        if (!table.counters().reservePinned(bytes, table.config().pinLimitBytes())) {
            throw new MemoryException(Errno.ENOMEM, "pin limit of " + table.config().pinLimitBytes() + " bytes reached");
        }
        int err = PinLedger.pin(t.pinStart, t.pinEnd, writable);
        if (err != 0) {
            table.counters().unreservePinned(bytes);
            throw new MemoryException(err, err == Errno.EFAULT
                    ? "range not mapped" + (writable ? " or not writable" : "")
                    : "cannot pin " + bytes + " bytes (RLIMIT_MEMLOCK " + Mem.memlockLimit() + ")");
        }
        NativeMemory.lock();
        try {
            t.mode = chooseModeLocked(address, length, segment);
            NativeMemory.addListenerLocked(t);
        } finally {
            NativeMemory.unlock();
        }
        return t;
    }

    @Override
    RegionKind kind() {
        return RegionKind.PINNED;
    }

    /** The access path in use (tests, diagnostics). */
    int mode() {
        return mode;
    }

    private boolean enter() {
        IN_FLIGHT.getAndAdd(this, 1);
        if (closed) {
            IN_FLIGHT.getAndAdd(this, -1);
            return false;
        }
        return true;
    }

    private void exit() {
        IN_FLIGHT.getAndAdd(this, -1);
    }

    private void drain() {
        int spins = 0;
        while ((int) IN_FLIGHT.getVolatile(this) != 0) {
            if (++spins < 1000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    @Override
    int read(long va, MemorySegment dst, long dstOffset, long len) {
        if (!inRange(va, len)) {
            return MemStatus.OUT_OF_RANGE;
        }
        if (!enter()) {
            return MemStatus.INVALID_STATE;
        }
        try {
            return SafeAccess.read(mode, segment, toAddress(va), dst, dstOffset, len);
        } finally {
            exit();
        }
    }

    /**
     * Holds the range for a send by reference: counted in flight like a copy (so close, rereg and
     * an unmap through the allocator wait for {@link #releaseSend}), and only for memory of jrxe's
     * allocator ({@link SafeAccess#DIRECT}): memory the application can free behind jrxe's back
     * (its own arena, raw addresses) is copied, as the FFM runtime or the kernel then checks it.
     */
    @Override
    boolean holdForSend(long va, long len, SendHold hold) {
        MemorySegment seg = segment;
        if (seg == null || seg.byteSize() > Integer.MAX_VALUE || !inRange(va, len) || !enter()) {
            return false;
        }
        long off = toAddress(va) - seg.address();
        if (mode != SafeAccess.DIRECT || off < 0 || off > seg.byteSize() - len) {
            exit();
            return false;
        }
        hold.hold(this, seg, off);
        return true;
    }

    /** The end of a {@link #holdForSend}. */
    void releaseSend() {
        exit();
    }

    @Override
    int write(long va, MemorySegment src, long srcOffset, long len) {
        if (!inRange(va, len)) {
            return MemStatus.OUT_OF_RANGE;
        }
        if (!enter()) {
            return MemStatus.INVALID_STATE;
        }
        try {
            return SafeAccess.write(mode, segment, toAddress(va), src, srcOffset, len);
        } finally {
            exit();
        }
    }

    @Override
    int compareAndSwap(long va, long compare, long swap, long[] original) {
        int st = atomicCheck(va);
        if (st != MemStatus.OK) {
            return st;
        }
        try {
            return SafeAccess.compareAndSwap(mode, segment, toAddress(va), compare, swap, original);
        } finally {
            exit();
        }
    }

    @Override
    int fetchAndAdd(long va, long add, long[] original) {
        int st = atomicCheck(va);
        if (st != MemStatus.OK) {
            return st;
        }
        try {
            return SafeAccess.fetchAndAdd(mode, segment, toAddress(va), add, original);
        } finally {
            exit();
        }
    }

    @Override
    int atomicWrite(long va, long value) {
        int st = atomicCheck(va);
        if (st != MemStatus.OK) {
            return st;
        }
        try {
            return SafeAccess.atomicWrite(mode, segment, toAddress(va), value);
        } finally {
            exit();
        }
    }

    /** Range, alignment and state; on OK the caller is inside the guard. */
    private int atomicCheck(long va) {
        if (!inRange(va, 8)) {
            return MemStatus.OUT_OF_RANGE;
        }
        if (!aligned8(va)) {
            return MemStatus.MISALIGNED;
        }
        return enter() ? MemStatus.OK : MemStatus.INVALID_STATE;
    }

    @Override
    int flush(long va, long len, boolean persistent) {
        if (!inRange(va, len)) {
            return MemStatus.OUT_OF_RANGE;
        }
        if (!enter()) {
            return MemStatus.INVALID_STATE;
        }
        try {
            VarHandle.fullFence();
            return persistent && len > 0 && Mem.msync(toAddress(va), len, Mem.MS_SYNC) != 0 ? MemStatus.FAULT
                : MemStatus.OK;
        } finally {
            exit();
        }
    }

    @Override
    int prefetch(long va, long len, int advice) {
        return Errno.EFAULT;
    }

    @Override
    int allowWrite() {
        return SafeAccess.populate(pinStart, pinEnd - pinStart, true);
    }

    @Override
    public void invalidate(long addr, long len, boolean unmap) {
        // Pinned pages cannot be released (MADV_DONTNEED fails on locked pages). An unmap takes
        // the pages away for good: every later access is a FAULT, even if something else gets
        // mapped at that address (a real pinned MR would still hold the old pages).
        if (unmap && mode != SafeAccess.REVOKED) {
            mode = SafeAccess.REVOKED;
            drain();
        }
    }

    @Override
    void close() {
        closed = true;
        drain();
        NativeMemory.removeListener(this);
        PinLedger.unpin(pinStart, pinEnd);
        table.counters().unreservePinned(pinEnd - pinStart);
    }
}
