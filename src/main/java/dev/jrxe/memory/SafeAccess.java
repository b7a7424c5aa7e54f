package dev.jrxe.memory;

import dev.jrxe.ib.Errno;
import dev.jrxe.sys.Mem;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The three ways jrxe touches application memory, chosen per region (or per ODP chunk) by what
 * guarantees the memory stays mapped:
 * <ul>
 *   <li>{@link #DIRECT}: plain CPU copy. Only for memory of jrxe's own {@link NativeMemory}
 *       allocator, whose unmap first invalidates the region and waits for in-flight accesses
 *       (like an mmu notifier), so the memory cannot vanish under a copy.</li>
 *   <li>{@link #SCOPED}: copy through the application's own segment (a shared or automatic arena):
 *       the FFM runtime checks liveness, so a closed arena gives {@code FAULT}, not a crash.</li>
 *   <li>{@link #KERNEL}: process_vm_readv/writev on the own process, which returns EFAULT for
 *       unmapped memory. For raw addresses, implicit ODP outside jrxe's allocator, and
 *       global-scope (reinterpreted) segments. About 2 µs per call on a VM with KPTI, against
 *       ~50 ns for a direct 4 KiB copy: the price of safety for memory jrxe cannot watch.</li>
 *   <li>{@link #REVOKED}: nothing; every access is a {@code FAULT}. A pinned region whose memory
 *       was unmapped through the allocator ends here (a real pinned MR keeps its old pages, so it
 *       must never start touching whatever gets mapped at that address later), and so does an
 *       explicit ODP region registered over allocator memory, for addresses the allocator no
 *       longer maps (if the allocator maps them again, they become direct again).</li>
 * </ul>
 * Methods return {@link MemStatus} codes. Atomics always take an {@link AtomicStripes} lock so
 * the three paths stay atomic with respect to each other.
 */
final class SafeAccess {
    static final int DIRECT = 0;
    static final int SCOPED = 1;
    static final int KERNEL = 2;
    /** No access: the pinned pages are gone (unmapped through the allocator). */
    static final int REVOKED = 3;

    /** A segment over the whole address space: direct access by absolute address. */
    @SuppressWarnings("restricted") // used only under the DIRECT guarantees above
    static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final long BOUNCE = 64 * 1024;
    private static final ThreadLocal<MemorySegment> SCRATCH =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(BOUNCE, 8));

    /** Whether process_vm_readv works here (it may be filtered by seccomp). */
    static final boolean KERNEL_COPY_AVAILABLE = probeKernelCopy();
    /** Whether the kernel knows MADV_POPULATE_READ/WRITE (Linux 5.14+). */
    static final boolean POPULATE_AVAILABLE = probePopulate();

    private SafeAccess() {
    }

    private static boolean probeKernelCopy() {
        MemorySegment probe = Arena.global().allocate(16, 8);
        return Mem.processVmRead(probe.address(), probe.address() + 8, 8) == 8;
    }

    private static boolean probePopulate() {
        MemorySegment probe = Arena.global().allocate(Mem.PAGE_SIZE, Mem.PAGE_SIZE);
        return Mem.madvise(probe.address(), Mem.PAGE_SIZE, Mem.MADV_POPULATE_READ) == 0;
    }

    static String name(int mode) {
        return switch (mode) {
            case DIRECT -> "direct";
            case SCOPED -> "scoped";
            case REVOKED -> "revoked";
            default -> "kernel";
        };
    }

    static int read(int mode, MemorySegment scoped, long addr, MemorySegment dst, long dstOffset, long len) {
        if (len == 0) {
            return MemStatus.OK;
        }
        switch (mode) {
            case REVOKED:
                return MemStatus.FAULT;
            case DIRECT:
                MemorySegment.copy(ALL, addr, dst, dstOffset, len);
                return MemStatus.OK;
            case SCOPED:
                try {
                    MemorySegment.copy(scoped, addr - scoped.address(), dst, dstOffset, len);
                    return MemStatus.OK;
                } catch (IllegalStateException | IllegalArgumentException | UnsupportedOperationException e) {
                    return MemStatus.FAULT;
                }
            default:
                if (!KERNEL_COPY_AVAILABLE) {
                    return validated(addr, len, false) ? read(DIRECT, null, addr, dst, dstOffset, len) : MemStatus.FAULT;
                }
                return kernelRead(addr, dst, dstOffset, len);
        }
    }

    static int write(int mode, MemorySegment scoped, long addr, MemorySegment src, long srcOffset, long len) {
        if (len == 0) {
            return MemStatus.OK;
        }
        switch (mode) {
            case REVOKED:
                return MemStatus.FAULT;
            case DIRECT:
                MemorySegment.copy(src, srcOffset, ALL, addr, len);
                return MemStatus.OK;
            case SCOPED:
                try {
                    MemorySegment.copy(src, srcOffset, scoped, addr - scoped.address(), len);
                    return MemStatus.OK;
                } catch (IllegalStateException | IllegalArgumentException | UnsupportedOperationException e) {
                    return MemStatus.FAULT;
                }
            default:
                if (!KERNEL_COPY_AVAILABLE) {
                    return validated(addr, len, true) ? write(DIRECT, null, addr, src, srcOffset, len) : MemStatus.FAULT;
                }
                return kernelWrite(addr, src, srcOffset, len);
        }
    }

    private static int kernelRead(long addr, MemorySegment dst, long dstOffset, long len) {
        if (dst.isNative()) {
            checkBuffer(dst, dstOffset, len);
            return Mem.processVmRead(addr, dst.address() + dstOffset, len) == len ? MemStatus.OK : MemStatus.FAULT;
        }
        MemorySegment bounce = SCRATCH.get();
        for (long done = 0; done < len; ) {
            long n = Math.min(BOUNCE, len - done);
            if (Mem.processVmRead(addr + done, bounce.address(), n) != n) {
                return MemStatus.FAULT;
            }
            MemorySegment.copy(bounce, 0, dst, dstOffset + done, n);
            done += n;
        }
        return MemStatus.OK;
    }

    private static int kernelWrite(long addr, MemorySegment src, long srcOffset, long len) {
        if (src.isNative()) {
            checkBuffer(src, srcOffset, len);
            return Mem.processVmWrite(addr, src.address() + srcOffset, len) == len ? MemStatus.OK : MemStatus.FAULT;
        }
        MemorySegment bounce = SCRATCH.get();
        for (long done = 0; done < len; ) {
            long n = Math.min(BOUNCE, len - done);
            MemorySegment.copy(src, srcOffset + done, bounce, 0, n);
            if (Mem.processVmWrite(addr + done, bounce.address(), n) != n) {
                return MemStatus.FAULT;
            }
            done += n;
        }
        return MemStatus.OK;
    }

    /**
     * Fallback when process_vm_* is not allowed (seccomp): check the range is mapped with the
     * right permission, then copy directly. This leaves a race with a concurrent munmap of memory
     * jrxe does not own; it is used only where the kernel copy is unavailable.
     */
    /**
     * Where process_vm_readv/writev are filtered (a seccomp profile): whether a CPU copy of the
     * range cannot fault. Only MADV_POPULATE (Linux 5.14+) can tell: it fails on PROT_NONE and on
     * what is not mapped. mincore, all that older kernels offer, succeeds on PROT_NONE mappings
     * (the JVM reserves many), so there every access is refused. What remains is a race with an
     * munmap by the application itself between this check and the copy, never something a peer
     * can cause.
     */
    private static boolean validated(long addr, long len, boolean write) {
        return POPULATE_AVAILABLE && populate(addr, len, write) == 0;
    }

    /** The kernel path hands raw pointers to the kernel: check the caller's buffer ourselves. */
    private static void checkBuffer(MemorySegment buffer, long offset, long len) {
        if (offset < 0 || len < 0 || offset > buffer.byteSize() - len) {
            throw new IndexOutOfBoundsException("buffer " + buffer.byteSize() + " offset " + offset + " len " + len);
        }
        if (!buffer.scope().isAlive()) {
            throw new IllegalStateException("buffer already closed");
        }
    }

    /** 8-byte compare-and-swap at an 8-byte aligned address. */
    static int compareAndSwap(int mode, MemorySegment scoped, long addr, long compare, long swap, long[] original) {
        int stripe = AtomicStripes.lock(addr);
        try {
            return atomic(mode, scoped, addr, CAS, compare, swap, original);
        } finally {
            AtomicStripes.unlock(stripe);
        }
    }

    /** 8-byte fetch-and-add at an 8-byte aligned address. */
    static int fetchAndAdd(int mode, MemorySegment scoped, long addr, long add, long[] original) {
        int stripe = AtomicStripes.lock(addr);
        try {
            return atomic(mode, scoped, addr, FAA, add, 0, original);
        } finally {
            AtomicStripes.unlock(stripe);
        }
    }

    /** 8-byte atomic store with release semantics (RC ATOMIC_WRITE). */
    static int atomicWrite(int mode, MemorySegment scoped, long addr, long value) {
        int stripe = AtomicStripes.lock(addr);
        try {
            return atomic(mode, scoped, addr, STORE, value, 0, null);
        } finally {
            AtomicStripes.unlock(stripe);
        }
    }

    private static final int CAS = 0;
    private static final int FAA = 1;
    private static final int STORE = 2;

    /** One atomic on the word at {@code addr}; the caller holds its stripe. */
    private static int atomic(int mode, MemorySegment scoped, long addr, int op, long a, long b, long[] original) {
        switch (mode) {
            case REVOKED:
                return MemStatus.FAULT;
            case DIRECT:
                return cpuAtomic(ALL, addr, op, a, b, original);
            case SCOPED:
                try {
                    return cpuAtomic(scoped, addr - scoped.address(), op, a, b, original);
                } catch (IllegalStateException | IllegalArgumentException | UnsupportedOperationException e) {
                    return MemStatus.FAULT;
                }
            default:
                if (!KERNEL_COPY_AVAILABLE) {
                    return validated(addr, 8, true) ? cpuAtomic(ALL, addr, op, a, b, original) : MemStatus.FAULT;
                }
                return kernelAtomic(addr, op, a, b, original);
        }
    }

    private static int cpuAtomic(MemorySegment segment, long offset, int op, long a, long b, long[] original) {
        switch (op) {
            case CAS -> original[0] = (long) LONG.compareAndExchange(segment, offset, a, b);
            case FAA -> original[0] = (long) LONG.getAndAdd(segment, offset, a);
            default -> LONG.setRelease(segment, offset, a);
        }
        return MemStatus.OK;
    }

    /** Read-modify-write through the kernel; atomic with respect to other RDMA atomics (stripe held). */
    private static int kernelAtomic(long addr, int op, long a, long b, long[] original) {
        MemorySegment word = SCRATCH.get();
        long value;
        if (op == STORE) {
            value = a;
        } else {
            if (Mem.processVmRead(addr, word.address(), 8) != 8) {
                return MemStatus.FAULT;
            }
            long old = word.get(ValueLayout.JAVA_LONG, 0);
            original[0] = old;
            if (op == CAS && old != a) {
                return MemStatus.OK;
            }
            value = op == CAS ? b : old + a;
        }
        word.set(ValueLayout.JAVA_LONG, 0, value);
        return Mem.processVmWrite(addr, word.address(), 8) == 8 ? MemStatus.OK : MemStatus.FAULT;
    }

    /**
     * Makes the page-rounded range present for reading ({@code write} false) or writing, without
     * ever faulting the JVM (MADV_POPULATE_READ/WRITE). Returns 0 or an errno: EFAULT when part of
     * the range is not mapped or lacks the permission, ENOMEM when memory runs out.
     */
    static int populate(long addr, long len, boolean write) {
        long start = Mem.alignDown(addr, Mem.PAGE_SIZE);
        long end = Mem.alignUp(addr + len, Mem.PAGE_SIZE);
        if (!POPULATE_AVAILABLE) {
            // Old kernel: mincore at least tells whether the range is mapped.
            return Mem.residentPages(start, end - start) >= 0 ? 0 : Errno.EFAULT;
        }
        int r = Mem.madvise(start, end - start, write ? Mem.MADV_POPULATE_WRITE : Mem.MADV_POPULATE_READ);
        if (r == 0) {
            return 0;
        }
        // EINVAL: permissions do not allow it (PROT_NONE, read-only for writing); ENOMEM: not
        // mapped, or truly out of memory (mincore tells which); EFAULT: would SIGBUS/SIGSEGV.
        return r == -Errno.ENOMEM && Mem.residentPages(start, end - start) >= 0 ? Errno.ENOMEM : Errno.EFAULT;
    }
}
