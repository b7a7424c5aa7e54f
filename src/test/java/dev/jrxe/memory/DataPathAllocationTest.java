package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.PD;
import static org.assertj.core.api.Assertions.assertThat;

/** Lookup, check, copies and atomics allocate nothing once warm, on every kind and access path. */
class DataPathAllocationTest {
    enum Kind { PINNED_DIRECT, PINNED_SCOPED, PINNED_KERNEL, ODP_DIRECT, IMPLICIT_DIRECT, IMPLICIT_KERNEL }

    private final KeyTable table = TestSupport.table();
    private final MemorySegment mem = NativeMemory.map(4 * MIB);
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void tearDown() {
        table.deregisterAll();
        NativeMemory.unmap(mem);
        arena.close();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldNotAllocateOnTheDataPath(Kind kind) {
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;
        MemorySegment target = switch (kind) {
            case PINNED_SCOPED -> arena.allocate(4 * MIB, 4096);
            case PINNED_KERNEL, IMPLICIT_KERNEL -> arena.allocate(4 * MIB, 4096); // used by address only
            default -> mem;
        };
        Region r = switch (kind) {
            case PINNED_DIRECT, PINNED_SCOPED -> MemoryRegions.register(table, PD, target, access);
            case PINNED_KERNEL -> MemoryRegions.register(table, PD, target.address(), target.byteSize(),
                    target.address(), access);
            case ODP_DIRECT -> MemoryRegions.register(table, PD, target, access | Access.ON_DEMAND);
            default -> MemoryRegions.registerImplicit(table, PD, access);
        };
        MemorySegment buf = Arena.ofAuto().allocate(8192);
        long[] original = new long[1];
        int key = r.key();
        long base = target.address();
        Runnable work = () -> {
            for (int i = 0; i < 2000; i++) {
                MemoryKey k = table.lookup(key);
                long va = base + (i % 1000) * 4096L;
                assertOk(k.check(PD, Access.REMOTE_WRITE, va, 4096));
                assertOk(k.write(PD, Access.REMOTE_WRITE, va, buf, 0, 4096));
                assertOk(k.read(PD, 0, va + 100, buf, 0, 4096));
                assertOk(k.fetchAndAdd(PD, Access.REMOTE_ATOMIC, va, 1, original));
                assertOk(k.compareAndSwap(PD, Access.REMOTE_ATOMIC, va, original[0] + 1, 5, original));
                assertOk(k.atomicWrite(PD, Access.REMOTE_WRITE, va + 8, i));
            }
        };
        work.run(); // warm: fault the pages, create the children
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        // Compilation runs in the background (slowly on a busy machine) and interpreted or C1 code
        // allocates for native calls: measure until the compiled steady state shows.
        long least = Long.MAX_VALUE;
        for (int round = 0; round < 40 && least >= 1024; round++) {
            long before = bean.getCurrentThreadAllocatedBytes();
            work.run();
            least = Math.min(least, bean.getCurrentThreadAllocatedBytes() - before);
        }
        assertThat(least).as("bytes allocated by 12,000 data-path calls, steady state").isLessThan(1024);
    }

    private static void assertOk(int status) {
        if (status != MemStatus.OK) {
            throw new AssertionError("status " + MemStatus.name(status));
        }
    }
}
