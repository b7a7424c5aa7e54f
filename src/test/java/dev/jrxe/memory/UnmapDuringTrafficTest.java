package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import dev.jrxe.sys.Mem;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.PD;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Memory vanishes while two threads read, write and run atomics on it: every access ends OK or
 * FAULT, never a crash, and once the memory is gone (and its address range held by a PROT_NONE
 * reservation, so nothing else can appear there) every access is a FAULT.
 */
@SuppressWarnings("restricted")
class UnmapDuringTrafficTest {
    private static final long SIZE = 4 * MIB;
    private static final int THREADS = 2;
    private static final long OPS_PER_PHASE = 3000;

    enum Setup {
        NATIVE_PINNED, NATIVE_ODP, NATIVE_IMPLICIT, RAW_PINNED, RAW_ODP, RAW_IMPLICIT, ARENA_PINNED, ARENA_ODP
    }

    @ParameterizedTest
    @EnumSource(Setup.class)
    void shouldEndInFaultNeverInACrash(Setup setup) throws Exception {
        KeyTable table = TestSupport.table();
        String name = setup.name();
        Arena arena = name.startsWith("ARENA") ? Arena.ofShared() : null;
        MemorySegment native_ = name.startsWith("NATIVE") ? NativeMemory.map(SIZE) : null;
        long addr = native_ != null ? native_.address() : arena != null ? arena.allocate(SIZE, 4096).address()
                : TestSupport.rawMap(SIZE);
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC
                | (name.endsWith("PINNED") ? 0 : Access.ON_DEMAND);
        Region region;
        if (name.endsWith("IMPLICIT")) {
            region = MemoryRegions.registerImplicit(table, PD, access);
        } else if (arena != null) {
            region = MemoryRegions.register(table, PD, MemorySegment.ofAddress(addr).reinterpret(SIZE, arena, null), access);
        } else {
            region = MemoryRegions.register(table, PD, addr, SIZE, addr, access);
        }

        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean gone = new AtomicBoolean();
        AtomicLongArray ops = new AtomicLongArray(THREADS);
        AtomicIntegerArray okBefore = new AtomicIntegerArray(THREADS);
        AtomicIntegerArray badAfter = new AtomicIntegerArray(THREADS);
        AtomicLong unexpected = new AtomicLong();
        Thread[] workers = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            workers[t] = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(id);
                MemorySegment buf = Arena.ofAuto().allocate(4096);
                long[] original = new long[1];
                while (!stop.get()) {
                    boolean after = gone.get();
                    long va = addr + random.nextLong(SIZE - 4096);
                    int st = switch (random.nextInt(3)) {
                        case 0 -> region.read(va, buf, 0, 4096);
                        case 1 -> region.write(va, buf, 0, 4096);
                        default -> region.fetchAndAdd(va & ~7L, 1, original);
                    };
                    if (st != MemStatus.OK && st != MemStatus.FAULT) {
                        unexpected.incrementAndGet();
                    }
                    if (!after && st == MemStatus.OK) {
                        okBefore.incrementAndGet(id);
                    }
                    if (after && st != MemStatus.FAULT) {
                        badAfter.incrementAndGet(id);
                    }
                    ops.incrementAndGet(id);
                }
            });
            workers[t].start();
        }
        awaitOps(ops, OPS_PER_PHASE);

        if (native_ != null) {
            NativeMemory.unmap(native_);
        } else if (arena != null) {
            arena.close();
        } else {
            assertThat(Mem.munmap(addr, SIZE)).isZero();
        }
        long reserved = arena != null ? -1 : Mem.mmap(addr, SIZE, Mem.PROT_NONE,
                Mem.MAP_PRIVATE | Mem.MAP_ANONYMOUS | Mem.MAP_NORESERVE | Mem.MAP_FIXED_NOREPLACE, -1, 0);
        boolean guarded = arena != null || reserved == addr;
        gone.set(true);
        long seen = ops.get(0) + ops.get(1);
        awaitOps(ops, seen / THREADS + OPS_PER_PHASE);
        stop.set(true);
        for (Thread w : workers) {
            w.join();
        }
        if (reserved == addr) {
            Mem.munmap(addr, SIZE);
        }
        table.deregisterAll();

        assertThat(unexpected.get()).isZero();
        for (int t = 0; t < THREADS; t++) {
            assertThat(okBefore.get(t)).as("thread %d got through before the unmap", t).isPositive();
            if (guarded) {
                assertThat(badAfter.get(t)).as("thread %d: accesses after the unmap that did not fault", t).isZero();
            }
        }
        assertThat(guarded).as("address range re-reserved after the unmap").isTrue();
    }

    private static void awaitOps(AtomicLongArray ops, long each) throws InterruptedException {
        for (int t = 0; t < THREADS; t++) {
            while (ops.get(t) < each) {
                Thread.sleep(1);
            }
        }
    }
}
