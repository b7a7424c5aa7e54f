package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static dev.jrxe.memory.TestSupport.KIB;
import static dev.jrxe.memory.TestSupport.PD;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/** CMP_SWP, FETCH_ADD and ATOMIC_WRITE on every kind of key and access path. */
@SuppressWarnings("restricted")
class AtomicsTest {
    private static final long SIZE = 64 * KIB;

    enum Kind {
        PINNED_NATIVE, PINNED_ARENA, PINNED_RAW, ODP_NATIVE, ODP_RAW, IMPLICIT_NATIVE, IMPLICIT_RAW
    }

    private final KeyTable table = TestSupport.table();
    private final List<Runnable> cleanup = new ArrayList<>();

    @AfterEach
    void tearDown() {
        table.deregisterAll();
        cleanup.forEach(Runnable::run);
    }

    private record Target(Region region, MemorySegment memory) {
    }

    private Target target(Kind kind) {
        int access = Access.LOCAL_WRITE | Access.REMOTE_ATOMIC;
        MemorySegment mem;
        if (kind.name().endsWith("NATIVE")) {
            MemorySegment m = NativeMemory.map(SIZE);
            cleanup.add(() -> NativeMemory.unmap(m));
            mem = m;
        } else if (kind.name().endsWith("ARENA")) {
            Arena arena = Arena.ofShared();
            cleanup.add(arena::close);
            mem = arena.allocate(SIZE, 4096);
        } else {
            long addr = TestSupport.rawMap(SIZE);
            cleanup.add(() -> dev.jrxe.sys.Mem.munmap(addr, SIZE));
            mem = MemorySegment.ofAddress(addr).reinterpret(SIZE);
        }
        Region r = switch (kind) {
            case PINNED_NATIVE, PINNED_ARENA -> MemoryRegions.register(table, PD, mem, access);
            case PINNED_RAW -> MemoryRegions.register(table, PD, mem.address(), SIZE, mem.address(), access);
            case ODP_NATIVE -> MemoryRegions.register(table, PD, mem, access | Access.ON_DEMAND);
            case ODP_RAW -> MemoryRegions.register(table, PD, mem.address(), SIZE, mem.address(),
                    access | Access.ON_DEMAND);
            default -> MemoryRegions.registerImplicit(table, PD, access);
        };
        return new Target(r, mem);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldCompareAndSwapAndReturnTheOriginal(Kind kind) {
        Target t = target(kind);
        long va = t.memory.address() + 64;
        t.memory.set(JAVA_LONG, 64, 5);
        long[] original = new long[1];
        assertThat(t.region.compareAndSwap(va, 4, 9, original)).isEqualTo(MemStatus.OK);
        assertThat(original[0]).isEqualTo(5);
        assertThat(t.memory.get(JAVA_LONG, 64)).as("no swap on mismatch").isEqualTo(5);
        assertThat(t.region.compareAndSwap(va, 5, 9, original)).isEqualTo(MemStatus.OK);
        assertThat(original[0]).isEqualTo(5);
        assertThat(t.memory.get(JAVA_LONG, 64)).isEqualTo(9);
        // rdma-core test_odp_rc_atomic_cmp_and_swp's second round: compare == swap == value.
        t.memory.set(JAVA_LONG, 64, 1);
        assertThat(t.region.compareAndSwap(va, 1, 1, original)).isEqualTo(MemStatus.OK);
        assertThat(original[0]).isEqualTo(1);
        assertThat(t.memory.get(JAVA_LONG, 64)).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldFetchAndAddInNativeByteOrder(Kind kind) {
        Target t = target(kind);
        long va = t.memory.address() + 4096;
        long[] original = new long[1];
        assertThat(t.region.fetchAndAdd(va, 0x0102030405060708L, original)).isEqualTo(MemStatus.OK);
        assertThat(original[0]).isZero();
        assertThat(t.region.fetchAndAdd(va, -8, original)).isEqualTo(MemStatus.OK);
        assertThat(original[0]).isEqualTo(0x0102030405060708L);
        assertThat(t.memory.get(JAVA_LONG, 4096)).isEqualTo(0x0102030405060700L);
        byte low = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? (byte) 0x00 : (byte) 0x01;
        assertThat(t.memory.get(JAVA_BYTE, 4096)).isEqualTo(low);
        assertThat(t.region.fetchAndAdd(va, 1L, original)).isEqualTo(MemStatus.OK);
        assertThat(t.region.fetchAndAdd(va, Long.MAX_VALUE, original)).isEqualTo(MemStatus.OK);
        assertThat(original[0]).isEqualTo(0x0102030405060701L);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldStoreWithAtomicWrite(Kind kind) {
        Target t = target(kind);
        assertThat(t.region.atomicWrite(t.memory.address() + 8, -2L)).isEqualTo(MemStatus.OK);
        assertThat(t.memory.get(JAVA_LONG, 8)).isEqualTo(-2L);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldRefuseMisalignedAndOutOfRangeAtomics(Kind kind) {
        Target t = target(kind);
        long[] original = new long[1];
        long a = t.memory.address();
        for (int offset = 1; offset < 8; offset++) {
            assertThat(t.region.compareAndSwap(a + offset, 0, 1, original)).isEqualTo(MemStatus.MISALIGNED);
            assertThat(t.region.fetchAndAdd(a + offset, 1, original)).isEqualTo(MemStatus.MISALIGNED);
            assertThat(t.region.atomicWrite(a + offset, 1)).isEqualTo(MemStatus.MISALIGNED);
        }
        assertThat(t.memory.get(JAVA_LONG, 0)).isZero();
        assertThat(t.memory.get(JAVA_LONG, 8)).isZero();
        if (t.region.kind() != RegionKind.IMPLICIT_ODP) {
            assertThat(t.region.fetchAndAdd(a + SIZE, 1, original)).isEqualTo(MemStatus.OUT_OF_RANGE);
            assertThat(t.region.compareAndSwap(a - 8, 0, 1, original)).isEqualTo(MemStatus.OUT_OF_RANGE);
        }
    }

    /** Atomic across all QPs: threads adding to one word lose no update, on every path. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldLoseNoUpdateUnderConcurrentFetchAndAdd(Kind kind) throws InterruptedException {
        Target t = target(kind);
        long va = t.memory.address() + 512;
        int threads = 4;
        int perThread = kind.name().endsWith("RAW") || kind == Kind.IMPLICIT_NATIVE ? 2000 : 20000;
        Thread[] workers = new Thread[threads];
        int[] failures = new int[threads];
        for (int i = 0; i < threads; i++) {
            int id = i;
            workers[i] = new Thread(() -> {
                long[] original = new long[1];
                for (int n = 0; n < perThread; n++) {
                    if (t.region.fetchAndAdd(va, 1, original) != MemStatus.OK) {
                        failures[id]++;
                    }
                    // Mix in CAS increments: both must serialise with each other.
                    long seen = t.memory.get(JAVA_LONG, 512);
                    while (t.region.compareAndSwap(va, seen, seen + 1, original) == MemStatus.OK
                            && original[0] != seen) {
                        seen = original[0];
                    }
                }
            });
            workers[i].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        for (int f : failures) {
            assertThat(f).isZero();
        }
        assertThat(t.memory.get(JAVA_LONG, 512)).isEqualTo(2L * threads * perThread);
    }
}
