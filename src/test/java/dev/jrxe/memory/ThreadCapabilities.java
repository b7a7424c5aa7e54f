package dev.jrxe.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Test-only: drops CAP_IPC_LOCK from the calling thread's effective set (capabilities are per
 * thread on Linux) and lowers RLIMIT_MEMLOCK, so that a test can meet the real mlock limit an
 * unprivileged user meets, even when the build runs as root.
 */
@SuppressWarnings("restricted")
final class ThreadCapabilities {
    private static final int CAP_IPC_LOCK = 14;
    private static final int VERSION_3 = 0x20080522;
    private static final int RLIMIT_MEMLOCK = 8;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle CAPGET = handle("capget", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle CAPSET = handle("capset", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle GETRLIMIT = handle("getrlimit", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle SETRLIMIT = handle("setrlimit", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

    private ThreadCapabilities() {
    }

    private static MethodHandle handle(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd);
    }

    /** Drops CAP_IPC_LOCK from this thread's effective capabilities. */
    static void dropIpcLock() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = arena.allocate(8, 4);
            MemorySegment data = arena.allocate(24, 4);
            header.set(JAVA_INT, 0, VERSION_3);
            header.set(JAVA_INT, 4, 0);
            if ((int) CAPGET.invokeExact(header, data) != 0) {
                throw new IllegalStateException("capget failed");
            }
            data.set(JAVA_INT, 0, data.get(JAVA_INT, 0) & ~(1 << CAP_IPC_LOCK));
            if ((int) CAPSET.invokeExact(header, data) != 0) {
                throw new IllegalStateException("capset failed");
            }
        }
    }

    /** The soft and hard RLIMIT_MEMLOCK (-1 = unlimited). */
    static long[] memlock() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment r = arena.allocate(16, 8);
            if ((int) GETRLIMIT.invokeExact(RLIMIT_MEMLOCK, r) != 0) {
                throw new IllegalStateException("getrlimit failed");
            }
            return new long[]{r.get(JAVA_LONG, 0), r.get(JAVA_LONG, 8)};
        }
    }

    static void setMemlock(long soft, long hard) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment r = arena.allocate(16, 8);
            r.set(JAVA_LONG, 0, soft);
            r.set(JAVA_LONG, 8, hard);
            if ((int) SETRLIMIT.invokeExact(RLIMIT_MEMLOCK, r) != 0) {
                throw new IllegalStateException("setrlimit failed");
            }
        }
    }
}
