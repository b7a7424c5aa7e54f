package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.sys.Mem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;

import static dev.jrxe.memory.TestSupport.KIB;
import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.PD;
import static dev.jrxe.memory.TestSupport.errnoOf;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

@SuppressWarnings("restricted")
class PinnedRegionTest {
    private final KeyTable table = TestSupport.table();

    @AfterEach
    void tearDown() {
        table.deregisterAll();
    }

    @Test
    void shouldPopulateAndLockAtRegistrationSoRssGrows() {
        MemorySegment mem = NativeMemory.map(32 * MIB);
        try {
            assertThat(TestSupport.resident(mem)).isZero();
            assertThat(TestSupport.lockedKib(mem)).isZero();
            Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
            assertThat(TestSupport.resident(mem)).isEqualTo(32 * MIB / Mem.PAGE_SIZE);
            assertThat(TestSupport.lockedKib(mem)).isEqualTo(32 * MIB / KIB);
            assertThat(table.counters().pinnedBytes()).isEqualTo(32 * MIB);
            r.close();
            assertThat(TestSupport.lockedKib(mem)).isZero();
            assertThat(table.counters().pinnedBytes()).isZero();
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldKeepSharedPagesLockedUntilTheLastPinGoes() {
        MemorySegment mem = NativeMemory.map(4 * MIB);
        try {
            Region whole = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
            Region part = MemoryRegions.register(table, PD, mem.asSlice(MIB, MIB), Access.LOCAL_WRITE);
            assertThat(PinLedger.count(mem.address() + MIB)).isEqualTo(2);
            whole.close();
            assertThat(TestSupport.lockedKib(mem)).isEqualTo(MIB / KIB);
            assertThat(TestSupport.lockedKib(mem.address() + MIB, MIB)).isEqualTo(MIB / KIB);
            assertThat(PinLedger.count(mem.address())).isZero();
            assertThat(PinLedger.count(mem.address() + MIB)).isEqualTo(1);
            part.close();
            assertThat(TestSupport.lockedKib(mem)).isZero();
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldFailWithEnomemAtTheRealMemlockLimitAndLeakNothing() throws Throwable {
        long[] limit = ThreadCapabilities.memlock();
        long soft = 8 * MIB;
        boolean lowered = limit[0] == -1 || limit[0] > soft;
        if (lowered) {
            ThreadCapabilities.setMemlock(soft, limit[1]);
        }
        MemorySegment mem = NativeMemory.map(64 * MIB);
        AtomicReference<Object> outcome = new AtomicReference<>();
        try {
            Thread unprivileged = new Thread(() -> {
                try {
                    ThreadCapabilities.dropIpcLock();
                    outcome.set(MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE));
                } catch (Throwable t) {
                    outcome.set(t);
                }
            });
            unprivileged.start();
            unprivileged.join();
        } finally {
            if (lowered) {
                ThreadCapabilities.setMemlock(limit[0], limit[1]);
            }
        }
        try {
            assertThat(outcome.get()).isInstanceOf(MemoryException.class);
            assertThat(((MemoryException) outcome.get()).errno()).isEqualTo(Errno.ENOMEM);
            assertThat(table.size()).isZero();
            assertThat(table.counters().pinnedBytes()).isZero();
            assertThat(PinLedger.count(mem.address())).isZero();
            assertThat(TestSupport.lockedKib(mem)).isZero();
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldCopyDirectlyOnNativeMemoryAndFaultAfterItsUnmap() {
        MemorySegment mem = NativeMemory.map(64 * KIB);
        Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
        assertThat(((PinnedTranslation) r.translation()).mode()).isEqualTo(SafeAccess.DIRECT);
        roundTrip(r, mem.address() + 100, 5000);
        NativeMemory.unmap(mem);
        assertThat(((PinnedTranslation) r.translation()).mode()).isEqualTo(SafeAccess.REVOKED);
        MemorySegment buf = Arena.ofAuto().allocate(64);
        assertThat(r.read(mem.address(), buf, 0, 64)).isEqualTo(MemStatus.FAULT);
        assertThat(r.write(mem.address(), buf, 0, 64)).isEqualTo(MemStatus.FAULT);
        assertThat(r.fetchAndAdd(mem.address(), 1, new long[1])).isEqualTo(MemStatus.FAULT);
        // Whatever gets mapped there later is not the pinned memory: it is never touched.
        long foreign = Mem.mmap(mem.address(), 64 * KIB, Mem.PROT_READ | Mem.PROT_WRITE,
                Mem.MAP_PRIVATE | Mem.MAP_ANONYMOUS | Mem.MAP_FIXED_NOREPLACE, -1, 0);
        assertThat(foreign).isEqualTo(mem.address());
        try {
            assertThat(r.write(mem.address(), buf, 0, 64)).isEqualTo(MemStatus.FAULT);
            assertThat(MemorySegment.ofAddress(foreign).reinterpret(64).get(JAVA_BYTE, 0)).isZero();
        } finally {
            Mem.munmap(foreign, 64 * KIB);
        }
    }

    @Test
    void shouldCopyThroughASharedArenaSegmentAndFaultAfterTheArenaCloses() {
        Arena arena = Arena.ofShared();
        MemorySegment mem = arena.allocate(64 * KIB, 4096);
        Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
        assertThat(((PinnedTranslation) r.translation()).mode()).isEqualTo(SafeAccess.SCOPED);
        roundTrip(r, mem.address() + 8, 4096);
        arena.close();
        MemorySegment buf = Arena.ofAuto().allocate(64);
        assertThat(r.read(mem.address(), buf, 0, 64)).isEqualTo(MemStatus.FAULT);
        assertThat(r.compareAndSwap(mem.address(), 0, 1, new long[1])).isEqualTo(MemStatus.FAULT);
    }

    @Test
    void shouldCopyThroughTheKernelForRawMemoryAndFaultAfterTheApplicationUnmapsIt() {
        long addr = TestSupport.rawMap(64 * KIB);
        Region r = MemoryRegions.register(table, PD, addr, 64 * KIB, addr, Access.LOCAL_WRITE);
        assertThat(((PinnedTranslation) r.translation()).mode()).isEqualTo(SafeAccess.KERNEL);
        roundTrip(r, addr + 3, 10000);
        assertThat(Mem.munmap(addr, 64 * KIB)).isZero();
        MemorySegment buf = Arena.ofAuto().allocate(64);
        assertThat(r.read(addr, buf, 0, 64)).isEqualTo(MemStatus.FAULT);
        assertThat(r.write(addr, buf, 0, 64)).isEqualTo(MemStatus.FAULT);
        assertThat(r.atomicWrite(addr, 5)).isEqualTo(MemStatus.FAULT);
    }

    @Test
    void shouldCheckPdAccessAndRange() {
        MemorySegment mem = NativeMemory.map(64 * KIB);
        try {
            Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | Access.REMOTE_READ);
            long a = mem.address();
            assertThat(r.check(PD, Access.REMOTE_READ, a, 64 * KIB)).isEqualTo(MemStatus.OK);
            assertThat(r.check(PD, 0, a + 64 * KIB, 0)).isEqualTo(MemStatus.OK);
            assertThat(r.check(PD + 1, 0, a, 8)).isEqualTo(MemStatus.PD_MISMATCH);
            assertThat(r.check(PD, Access.REMOTE_WRITE, a, 8)).isEqualTo(MemStatus.ACCESS_DENIED);
            assertThat(r.check(PD, 0, a - 1, 8)).isEqualTo(MemStatus.OUT_OF_RANGE);
            assertThat(r.check(PD, 0, a + 64 * KIB - 7, 8)).isEqualTo(MemStatus.OUT_OF_RANGE);
            assertThat(r.check(PD, 0, a, Long.MAX_VALUE)).isEqualTo(MemStatus.OUT_OF_RANGE);
            MemorySegment buf = Arena.ofAuto().allocate(16);
            assertThat(r.read(a + 64 * KIB - 8, buf, 0, 16)).isEqualTo(MemStatus.OUT_OF_RANGE);
            assertThat(r.write(a - 8, buf, 0, 16)).isEqualTo(MemStatus.OUT_OF_RANGE);
            assertThat(r.read(a + 64 * KIB, buf, 0, 0)).isEqualTo(MemStatus.OK);
            assertThat(r.flush(a, 64 * KIB)).isEqualTo(MemStatus.OK);
            assertThat(r.flush(a, 64 * KIB + 1)).isEqualTo(MemStatus.OUT_OF_RANGE);
        } finally {
            table.deregisterAll();
            NativeMemory.unmap(mem);
        }
    }

    /** Writes a pattern through the region, reads it back through the region and directly. */
    static void roundTrip(Region r, long va, int len) {
        MemorySegment src = Arena.ofAuto().allocate(len);
        MemorySegment dst = Arena.ofAuto().allocate(len);
        for (int i = 0; i < len; i++) {
            src.set(JAVA_BYTE, i, (byte) (i * 31 + 7));
        }
        assertThat(r.write(va, src, 0, len)).isEqualTo(MemStatus.OK);
        assertThat(r.read(va, dst, 0, len)).isEqualTo(MemStatus.OK);
        assertThat(dst.mismatch(src)).isEqualTo(-1);
        byte[] heap = new byte[len];
        assertThat(r.read(va, MemorySegment.ofArray(heap), 0, len)).isEqualTo(MemStatus.OK);
        assertThat(MemorySegment.ofArray(heap).mismatch(src)).isEqualTo(-1);
        assertThat(r.write(va, MemorySegment.ofArray(heap), 0, len)).isEqualTo(MemStatus.OK);
    }
}
