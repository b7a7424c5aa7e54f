package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.jrxe.memory.TestSupport.GIB;
import static dev.jrxe.memory.TestSupport.KIB;
import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.PD;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

class ImplicitOdpTest {
    private static final long CHUNK = OdpChunk.SIZE;
    private final TestSupport.ManualClock clock = new TestSupport.ManualClock();
    private KeyTable table = new KeyTable(MemoryConfig.fromConfiguration().withClock(clock));
    private final List<MemorySegment> mappings = new ArrayList<>();
    private final MemorySegment buf = Arena.ofAuto().allocate(4 * MIB);

    @AfterEach
    void tearDown() {
        table.deregisterAll();
        for (MemorySegment m : mappings) {
            if (NativeMemory.owns(m.address(), m.byteSize())) {
                NativeMemory.unmap(m);
            }
        }
    }

    private MemorySegment map(long bytes) {
        MemorySegment m = NativeMemory.map(bytes);
        mappings.add(m);
        return m;
    }

    private Region implicit() {
        return MemoryRegions.registerImplicit(table, PD, Access.LOCAL_WRITE | Access.REMOTE_WRITE
                | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
    }

    private static OdpTranslation odp(Region r) {
        return (OdpTranslation) r.translation();
    }

    @Test
    void shouldCreateNoChildUntilFirstAccess() {
        Region r = implicit();
        assertThat(odp(r).liveChunks()).isZero();
        assertThat(table.counters().childrenCreated()).isZero();
        MemorySegment m = map(4 * MIB);
        assertThat(r.check(PD, Access.LOCAL_WRITE, m.address(), 64 * KIB)).isEqualTo(MemStatus.OK);
        assertThat(odp(r).liveChunks()).as("check() does not fault").isZero();
        assertThat(r.read(m.address(), buf, 0, 8)).isEqualTo(MemStatus.OK);
        assertThat(table.counters().childrenCreated()).isEqualTo(1);
        assertThat(table.counters().childrenLive()).isEqualTo(1);
    }

    /** RFC implicit_odp_write_test, at the memory level: 64 KiB of 0xA5 read through the implicit lkey. */
    @Test
    void shouldRead64KibFromAnImplicitKey() {
        Region r = implicit();
        MemorySegment src = map(64 * KIB);
        src.fill((byte) 0xA5);
        assertThat(r.read(src.address(), buf, 0, 64 * KIB)).isEqualTo(MemStatus.OK);
        for (long i = 0; i < 64 * KIB; i++) {
            assertThat(buf.get(JAVA_BYTE, i)).isEqualTo((byte) 0xA5);
        }
        assertThat(table.counters().childrenCreated()).isEqualTo(1);
        assertThat(table.counters().pagesMapped()).isEqualTo(16);
    }

    /** RFC implicit_odp_multi_test: 1 MiB at offset 0 and 1 MiB at offset 4 MiB, two chunks. */
    @Test
    void shouldReadTwoMegabytesFromDifferentChunks() {
        Region r = implicit();
        MemorySegment src = map(8 * MIB);
        src.asSlice(0, MIB).fill((byte) 0x11);
        src.asSlice(4 * MIB, MIB).fill((byte) 0x22);
        MemorySegment dst = map(4 * MIB);
        Region target = MemoryRegions.register(table, PD, dst, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        assertThat(r.read(src.address(), buf, 0, MIB)).isEqualTo(MemStatus.OK);
        assertThat(target.write(dst.address(), buf, 0, MIB)).isEqualTo(MemStatus.OK);
        assertThat(r.read(src.address() + 4 * MIB, buf, 0, MIB)).isEqualTo(MemStatus.OK);
        assertThat(target.write(dst.address() + MIB, buf, 0, MIB)).isEqualTo(MemStatus.OK);
        for (long i = 0; i < MIB; i += 512) {
            assertThat(dst.get(JAVA_BYTE, i)).isEqualTo((byte) 0x11);
            assertThat(dst.get(JAVA_BYTE, MIB + i)).isEqualTo((byte) 0x22);
        }
        assertThat(table.counters().childrenCreated()).isEqualTo(2);
    }

    /** RFC implicit_odp_cross_test: one 128 KiB SGE starting 64 KiB before a 2 MiB boundary. */
    @Test
    void shouldReadOneRangeAcrossAChunkBoundary() {
        Region r = implicit();
        MemorySegment src = map(4 * MIB);
        src.fill((byte) 0x5A);
        long start = src.address() + 2 * MIB - 64 * KIB;
        assertThat(start >>> 21).isNotEqualTo((start + 128 * KIB - 1) >>> 21);
        assertThat(r.read(start, buf, 0, 128 * KIB)).isEqualTo(MemStatus.OK);
        for (long i = 0; i < 128 * KIB; i++) {
            assertThat(buf.get(JAVA_BYTE, i)).isEqualTo((byte) 0x5A);
        }
        assertThat(table.counters().childrenCreated()).isEqualTo(2);
    }

    @Test
    void shouldServeMemoryJrxeDidNotAllocateThroughTheKernel() {
        Region r = implicit();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment own = arena.allocate(3 * MIB);
            own.fill((byte) 0x42);
            assertThat(r.read(own.address() + 17, buf, 0, 3 * MIB - 17)).isEqualTo(MemStatus.OK);
            assertThat(buf.get(JAVA_BYTE, 3 * MIB - 18)).isEqualTo((byte) 0x42);
            assertThat(odp(r).chunkAt(own.address()).mode).isEqualTo(SafeAccess.KERNEL);
            buf.asSlice(0, 64).fill((byte) 7);
            assertThat(r.write(own.address(), buf, 0, 64)).isEqualTo(MemStatus.OK);
            assertThat(own.get(JAVA_BYTE, 63)).isEqualTo((byte) 7);
        }
    }

    @Test
    void shouldFaultOnAddressesThatAreNotMapped() {
        Region r = implicit();
        assertThat(r.read(0x1000, buf, 0, 8)).isEqualTo(MemStatus.FAULT);
        long hole = TestSupport.unmappedAddress(4 * MIB);
        assertThat(r.write(hole, buf, 0, 4096)).isEqualTo(MemStatus.FAULT);
        assertThat(r.fetchAndAdd(hole, 1, new long[1])).isEqualTo(MemStatus.FAULT);
        assertThat(r.read(1L << 60, buf, 0, 8)).as("beyond any user address").isEqualTo(MemStatus.FAULT);
        assertThat(r.read(-8L, buf, 0, 16)).as("wraps the address space").isEqualTo(MemStatus.OUT_OF_RANGE);
    }

    @Test
    void shouldCreateExactlyOneChildWhenManyThreadsTouchAChunkFirstAtOnce() throws Exception {
        Region r = implicit();
        int threads = 8;
        int rounds = 40;
        MemorySegment m = map(rounds * CHUNK);
        CyclicBarrier barrier = new CyclicBarrier(threads);
        AtomicInteger failures = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                MemorySegment word = Arena.ofAuto().allocate(8);
                try {
                    for (int round = 0; round < rounds; round++) {
                        barrier.await(10, TimeUnit.SECONDS);
                        word.set(JAVA_LONG, 0, round * 1000L + id);
                        long va = m.address() + round * CHUNK + id * 4096L;
                        if (r.write(va, word, 0, 8) != MemStatus.OK) {
                            failures.incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    failures.incrementAndGet();
                }
            });
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        assertThat(failures.get()).isZero();
        assertThat(table.counters().childrenCreated()).isEqualTo(rounds);
        assertThat(odp(r).liveChunks()).isEqualTo(rounds);
        for (int round = 0; round < rounds; round++) {
            for (int id = 0; id < threads; id++) {
                assertThat(m.get(JAVA_LONG, round * CHUNK + id * 4096L)).isEqualTo(round * 1000L + id);
            }
        }
    }

    @Test
    void shouldReclaimChildrenIdleLongerThanTheConfiguredTime() {
        table = new KeyTable(MemoryConfig.fromConfiguration().withClock(clock)
                .withChildIdleNanos(TimeUnit.SECONDS.toNanos(10)));
        Region r = implicit();
        MemorySegment m = map(3 * CHUNK);
        long a = m.address();
        touch(r, a);
        touch(r, a + CHUNK);
        clock.advance(TimeUnit.SECONDS.toNanos(5));
        touch(r, a);
        clock.advance(TimeUnit.SECONDS.toNanos(6));
        assertThat(table.reclaimIdleChildren()).isEqualTo(1);
        assertThat(odp(r).chunkAt(a)).isNotNull();
        assertThat(odp(r).chunkAt(a + CHUNK)).isNull();
        assertThat(table.counters().childrenReclaimed()).isEqualTo(1);
        assertThat(table.counters().childrenLive()).isEqualTo(1);
        // The memory itself is untouched; access recreates the child.
        assertThat(r.read(a + CHUNK, buf, 0, 8)).isEqualTo(MemStatus.OK);
        assertThat(buf.get(JAVA_LONG, 0)).isEqualTo(a + CHUNK);
        assertThat(table.counters().childrenCreated()).isEqualTo(3);
        clock.advance(TimeUnit.SECONDS.toNanos(11));
        assertThat(table.reclaimIdleChildren()).isEqualTo(2);
        assertThat(table.counters().childrenLive()).isZero();
    }

    @Test
    void shouldNeverReclaimAChildWithAnAccessInFlight() {
        table = new KeyTable(MemoryConfig.fromConfiguration().withClock(clock).withChildIdleNanos(1)
                .withMaxLiveChildren(2));
        Region r = implicit();
        MemorySegment m = map(8 * CHUNK);
        long a = m.address();
        touch(r, a);
        OdpChunk busy = odp(r).chunkAt(a);
        assertThat(busy.enter()).isTrue();
        try {
            clock.advance(100);
            assertThat(table.reclaimIdleChildren()).isZero();
            for (int i = 1; i < 8; i++) {
                clock.advance(100);
                touch(r, a + i * CHUNK);
            }
            assertThat(odp(r).chunkAt(a)).isSameAs(busy);
            assertThat(busy.isLive()).isTrue();
        } finally {
            busy.exit();
        }
        clock.advance(100);
        assertThat(table.reclaimIdleChildren()).isGreaterThanOrEqualTo(1);
        assertThat(odp(r).chunkAt(a)).isNull();
    }

    @Test
    void shouldStayWithinTheBudgetTouchingASparseTerabyte() {
        int budget = 16;
        table = new KeyTable(MemoryConfig.fromConfiguration().withClock(clock).withMaxLiveChildren(budget));
        Region r = implicit();
        long span = 1024 * GIB;
        MemorySegment m;
        try {
            m = map(span);
        } catch (MemoryException e) {
            span = 64 * GIB; // a kernel that refuses a 1 TiB reservation still shows the pattern
            m = map(span);
        }
        int touches = 512;
        long stride = span / touches;
        for (int i = 0; i < touches; i++) {
            clock.advance(1000);
            touch(r, m.address() + i * stride + (i % 7) * 4096);
            assertThat(table.counters().childrenLive()).isLessThanOrEqualTo(budget);
        }
        assertThat(table.counters().childrenCreated()).isEqualTo(touches);
        assertThat(table.counters().childrenReclaimed()).isEqualTo(touches - budget);
        // Least recently used went first: the last `budget` touches are the live ones.
        for (int i = 0; i < touches; i++) {
            OdpChunk c = odp(r).chunkAt(m.address() + i * stride);
            assertThat(c != null).as("chunk %d live", i).isEqualTo(i >= touches - budget);
        }
        // Still correct data after all that reclaiming.
        assertThat(r.read(m.address() + 3 * stride + 3 * 4096, buf, 0, 8)).isEqualTo(MemStatus.OK);
        assertThat(buf.get(JAVA_LONG, 0)).isEqualTo(m.address() + 3 * stride + 3 * 4096);
        assertThat(TestSupport.resident(m.asSlice(0, 4096))).isEqualTo(1);
    }

    @Test
    void shouldFreeAChildThatAnInvalidationLeavesWithoutPages() {
        Region r = implicit();
        MemorySegment m = map(2 * CHUNK);
        long a = m.address();
        touch(r, a);
        touch(r, a + 4096);
        touch(r, a + CHUNK);
        NativeMemory.release(m, 0, 4096);
        assertThat(odp(r).chunkAt(a)).as("one page left").isNotNull();
        NativeMemory.release(m, 4096, 4096);
        assertThat(odp(r).chunkAt(a)).as("no page left").isNull();
        assertThat(table.counters().childrenReclaimed()).isEqualTo(1);
        assertThat(table.counters().invalidations()).isEqualTo(2);
        NativeMemory.unmap(m);
        assertThat(odp(r).chunkAt(a + CHUNK)).isNull();
        assertThat(table.counters().childrenLive()).isZero();
        assertThat(r.read(a + CHUNK, buf, 0, 8)).isEqualTo(MemStatus.FAULT);
    }

    @Test
    void shouldReleaseAllChildrenAtDeregistration() {
        Region r = implicit();
        MemorySegment m = map(4 * CHUNK);
        for (int i = 0; i < 4; i++) {
            touch(r, m.address() + i * CHUNK);
        }
        assertThat(table.counters().childrenLive()).isEqualTo(4);
        r.close();
        assertThat(table.counters().childrenLive()).isZero();
        assertThat(table.counters().childrenReclaimed()).isZero();
        assertThat(r.read(m.address(), buf, 0, 8)).isEqualTo(MemStatus.INVALID_STATE);
    }

    /** Writes the address itself as a long at {@code va}. */
    private void touch(Region r, long va) {
        MemorySegment word = Arena.ofAuto().allocate(8);
        word.set(JAVA_LONG, 0, va);
        assertThat(r.write(va, word, 0, 8)).isEqualTo(MemStatus.OK);
    }
}
