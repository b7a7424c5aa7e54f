package dev.jrxe.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * FFM bindings for the memory system calls jrxe needs: mmap/munmap/madvise/mlock/mincore and
 * process_vm_readv/writev on the own process (a copy that returns EFAULT instead of faulting).
 *
 * <p>Convention: every call returns a non-negative result on success and {@code -errno} on
 * failure. Addresses are plain {@code long}s. Calls allocate nothing after the first call on a
 * thread (the errno capture area and the iovecs live in a per-thread scratch block).
 */
@SuppressWarnings("restricted") // binding native functions is this class's purpose
public final class Mem {
    public static final int PROT_NONE = 0;
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;

    public static final int MAP_PRIVATE = 0x02;
    public static final int MAP_FIXED = 0x10;
    public static final int MAP_ANONYMOUS = 0x20;
    public static final int MAP_NORESERVE = 0x4000;
    public static final int MAP_POPULATE = 0x8000;
    public static final int MAP_FIXED_NOREPLACE = 0x100000;

    public static final int MADV_WILLNEED = 3;
    public static final int MADV_DONTNEED = 4;
    public static final int MADV_POPULATE_READ = 22;
    public static final int MADV_POPULATE_WRITE = 23;

    public static final int RLIMIT_MEMLOCK = 8;

    /** Base page size of the platform (4 KiB on x86-64). */
    public static final long PAGE_SIZE;
    private static final long MINCORE_CHUNK_PAGES = 4096;

    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle MADVISE;
    private static final MethodHandle MLOCK;
    private static final MethodHandle MUNLOCK;
    private static final MethodHandle MPROTECT;
    private static final MethodHandle MSYNC;
    private static final MethodHandle MINCORE;
    private static final MethodHandle PROCESS_VM_READV;
    private static final MethodHandle PROCESS_VM_WRITEV;
    private static final MethodHandle GETRLIMIT;
    private static final int PID = (int) ProcessHandle.current().pid();

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        MMAP = handle(linker, libc, "mmap", FunctionDescriptor.of(JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), errno);
        MUNMAP = handle(linker, libc, "munmap", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG), errno);
        MADVISE = handle(linker, libc, "madvise",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), errno);
        MLOCK = handle(linker, libc, "mlock", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG), errno);
        MUNLOCK = handle(linker, libc, "munlock", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG), errno);
        MPROTECT = handle(linker, libc, "mprotect",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), errno);
        MSYNC = handle(linker, libc, "msync", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), errno);
        MINCORE = handle(linker, libc, "mincore",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), errno);
        FunctionDescriptor vm = FunctionDescriptor.of(JAVA_LONG,
                JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
        PROCESS_VM_READV = handle(linker, libc, "process_vm_readv", vm, errno);
        PROCESS_VM_WRITEV = handle(linker, libc, "process_vm_writev", vm, errno);
        GETRLIMIT = handle(linker, libc, "getrlimit",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), errno);
        MethodHandle sysconf = linker.downcallHandle(libc.find("sysconf").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
        try {
            long page = (long) sysconf.invokeExact(30 /* _SC_PAGESIZE */);
            PAGE_SIZE = page > 0 ? page : 4096;
        } catch (Throwable t) {
            throw new ExceptionInInitializerError(t);
        }
    }

    private Mem() {
    }

    private static MethodHandle handle(Linker linker, SymbolLookup libc, String name, FunctionDescriptor fd,
                                       Linker.Option... options) {
        return linker.downcallHandle(libc.find(name).orElseThrow(), fd, options);
    }

    /** Per-thread native scratch: errno capture, two iovecs, a mincore vector, an rlimit. */
    private static final class Scratch {
        final MemorySegment capture;
        final MemorySegment iov;
        final MemorySegment vec;
        final MemorySegment rlimit;

        Scratch() {
            Arena arena = Arena.ofAuto();
            capture = arena.allocate(CAPTURE);
            iov = arena.allocate(32, 8);
            vec = arena.allocate(MINCORE_CHUNK_PAGES, 8);
            rlimit = arena.allocate(16, 8);
        }
    }

    private static Scratch scratch() {
        return SCRATCH.get();
    }

    private static int errno(Scratch s) {
        return (int) ERRNO.get(s.capture, 0L);
    }

    private static AssertionError rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new AssertionError(t);
    }

    /** mmap(2): the mapped address, or -errno. */
    public static long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
        Scratch s = scratch();
        try {
            long r = (long) MMAP.invokeExact(s.capture, addr, length, prot, flags, fd, offset);
            return r == -1L ? -errno(s) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** munmap(2): 0 or -errno. */
    public static int munmap(long addr, long length) {
        Scratch s = scratch();
        try {
            int r = (int) MUNMAP.invokeExact(s.capture, addr, length);
            return r == -1 ? -errno(s) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** madvise(2): 0 or -errno. */
    public static int madvise(long addr, long length, int advice) {
        Scratch s = scratch();
        try {
            int r = (int) MADVISE.invokeExact(s.capture, addr, length, advice);
            return r == -1 ? -errno(s) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** mlock(2): 0 or -errno. */
    public static int mlock(long addr, long length) {
        Scratch s = scratch();
        try {
            int r = (int) MLOCK.invokeExact(s.capture, addr, length);
            return r == -1 ? -errno(s) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** munlock(2): 0 or -errno. */
    public static int munlock(long addr, long length) {
        Scratch s = scratch();
        try {
            int r = (int) MUNLOCK.invokeExact(s.capture, addr, length);
            return r == -1 ? -errno(s) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** msync(2) flag: write back and wait. */
    public static final int MS_SYNC = 4;

    /** msync(2) of the pages covering {@code [addr, addr+length)}: 0 or -errno. */
    public static int msync(long addr, long length, int flags) {
        long start = alignDown(addr, PAGE_SIZE);
        long end = alignUp(addr + length, PAGE_SIZE);
        Scratch s = scratch();
        try {
            int r = (int) MSYNC.invokeExact(s.capture, start, end - start, flags);
            return r == -1 ? -errno(s) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** mprotect(2): 0 or -errno. */
    public static int mprotect(long addr, long length, int prot) {
        Scratch s = scratch();
        try {
            int r = (int) MPROTECT.invokeExact(s.capture, addr, length, prot);
            return r == -1 ? -errno(s) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Counts resident pages of the page-aligned range with mincore(2): the count, or -errno
     * (-ENOMEM when part of the range is not mapped).
     */
    public static long residentPages(long addr, long length) {
        Scratch s = scratch();
        long pages = (length + PAGE_SIZE - 1) / PAGE_SIZE;
        long resident = 0;
        try {
            for (long done = 0; done < pages; ) {
                long n = Math.min(MINCORE_CHUNK_PAGES, pages - done);
                int r = (int) MINCORE.invokeExact(s.capture, addr + done * PAGE_SIZE, n * PAGE_SIZE,
                        s.vec.address());
                if (r == -1) {
                    return -errno(s);
                }
                for (long i = 0; i < n; i++) {
                    resident += s.vec.get(JAVA_BYTE, i) & 1;
                }
                done += n;
            }
            return resident;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Calls {@code visitor} for each resident page of the page-aligned range (mincore(2)).
     * Returns 0 or -errno.
     */
    public static int forEachResidentPage(long addr, long length, PageVisitor visitor) {
        Scratch s = scratch();
        long pages = (length + PAGE_SIZE - 1) / PAGE_SIZE;
        try {
            for (long done = 0; done < pages; ) {
                long n = Math.min(MINCORE_CHUNK_PAGES, pages - done);
                long base = addr + done * PAGE_SIZE;
                int r = (int) MINCORE.invokeExact(s.capture, base, n * PAGE_SIZE, s.vec.address());
                if (r == -1) {
                    return -errno(s);
                }
                for (long i = 0; i < n; i++) {
                    if ((s.vec.get(JAVA_BYTE, i) & 1) != 0) {
                        visitor.resident(base + i * PAGE_SIZE);
                    }
                }
                done += n;
            }
            return 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Receives page addresses from {@link #forEachResidentPage}. */
    @FunctionalInterface
    public interface PageVisitor {
        void resident(long pageAddress);
    }

    /**
     * Copies {@code length} bytes from {@code remote} (any address of this process) to the native
     * buffer at {@code local} through the kernel: bytes copied (may be short when the source
     * becomes unmapped part way), or -errno (-EFAULT when nothing could be read).
     */
    public static long processVmRead(long remote, long local, long length) {
        Scratch s = scratch();
        long iov = iovecs(s, remote, local, length);
        try {
            // A constant handle per direction, so that the JIT inlines the downcall (no allocation).
            long r = (long) PROCESS_VM_READV.invokeExact(s.capture, PID, iov, 1L, iov + 16, 1L, 0L);
            return r == -1L ? -errno(s) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Copies {@code length} bytes from the native buffer at {@code local} to {@code remote}. */
    public static long processVmWrite(long remote, long local, long length) {
        Scratch s = scratch();
        long iov = iovecs(s, remote, local, length);
        try {
            long r = (long) PROCESS_VM_WRITEV.invokeExact(s.capture, PID, iov, 1L, iov + 16, 1L, 0L);
            return r == -1L ? -errno(s) : r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Fills the local and remote iovec of the scratch block; returns the local one's address. */
    private static long iovecs(Scratch s, long remote, long local, long length) {
        MemorySegment iov = s.iov;
        iov.set(JAVA_LONG, 0, local);
        iov.set(JAVA_LONG, 8, length);
        iov.set(JAVA_LONG, 16, remote);
        iov.set(JAVA_LONG, 24, length);
        return iov.address();
    }

    /** Soft RLIMIT_MEMLOCK in bytes (Long.MAX_VALUE when unlimited), or -errno. */
    public static long memlockLimit() {
        Scratch s = scratch();
        try {
            int r = (int) GETRLIMIT.invokeExact(s.capture, RLIMIT_MEMLOCK, s.rlimit.address());
            if (r == -1) {
                return -errno(s);
            }
            long cur = s.rlimit.get(JAVA_LONG, 0);
            return cur < 0 ? Long.MAX_VALUE : cur;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Rounds {@code value} up to a multiple of {@code alignment} (a power of two). */
    public static long alignUp(long value, long alignment) {
        return (value + alignment - 1) & -alignment;
    }

    /** Rounds {@code value} down to a multiple of {@code alignment} (a power of two). */
    public static long alignDown(long value, long alignment) {
        return value & -alignment;
    }
}
