package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import dev.jrxe.sys.Mem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.jrxe.memory.TestSupport.KIB;
import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.PD;
import static org.assertj.core.api.Assertions.assertThat;

@SuppressWarnings("restricted")
class ExplicitOdpTest {
    private static final long PAGE = Mem.PAGE_SIZE;
    private KeyTable table;
    private MemorySegment mem;
    private final MemorySegment buf = Arena.ofAuto().allocate(8 * MIB);

    @BeforeEach
    void setUp() {
        table = TestSupport.table();
        mem = NativeMemory.map(16 * MIB);
    }

    @AfterEach
    void tearDown() {
        table.deregisterAll();
        if (NativeMemory.owns(mem.address(), mem.byteSize())) {
            NativeMemory.unmap(mem);
        }
    }

    private Region register() {
        return MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.ON_DEMAND);
    }

    @Test
    void shouldDoNoPageWorkAtRegistration() {
        long rssBefore = TestSupport.statusKib("VmRSS");
        Region r = register();
        assertThat(r.kind()).isEqualTo(RegionKind.ODP);
        assertThat(TestSupport.resident(mem)).isZero();
        assertThat(((OdpTranslation) r.translation()).liveChunks()).isZero();
        assertThat(table.counters().pageFaults()).isZero();
        // 16 MiB registered: RSS does not move by anything like it (allow JVM noise of 4 MiB).
        assertThat(TestSupport.statusKib("VmRSS") - rssBefore).isLessThan(4 * 1024);
    }

    @Test
    void shouldFaultPagesOnFirstAccessOnly() {
        Region r = register();
        long a = mem.address();
        assertThat(r.write(a + 100, buf, 0, 3 * PAGE)).isEqualTo(MemStatus.OK); // touches 4 pages
        assertThat(table.counters().pageFaults()).isEqualTo(1);
        assertThat(table.counters().pagesMapped()).isEqualTo(4);
        assertThat(r.read(a, buf, 0, 4 * PAGE)).isEqualTo(MemStatus.OK);
        assertThat(r.write(a + PAGE, buf, 0, 8)).isEqualTo(MemStatus.OK);
        assertThat(table.counters().pageFaults()).as("no fault on mapped pages").isEqualTo(1);
        assertThat(r.read(a + 4 * PAGE, buf, 0, 1)).isEqualTo(MemStatus.OK);
        assertThat(table.counters().pageFaults()).isEqualTo(2);
        assertThat(table.counters().pagesMapped()).isEqualTo(5);
        assertThat(((OdpTranslation) r.translation()).presentPages()).isEqualTo(5);
    }

    @Test
    void shouldDropPagesOnReleaseAndFaultThemAgain() {
        Region r = register();
        long a = mem.address();
        fill(r, a, 8 * PAGE, (byte) 0x5a);
        assertThat(table.counters().pagesMapped()).isEqualTo(8);
        NativeMemory.release(mem, 2 * PAGE, 4 * PAGE);
        assertThat(table.counters().invalidations()).isEqualTo(1);
        assertThat(table.counters().pagesInvalidated()).isEqualTo(4);
        assertThat(((OdpTranslation) r.translation()).presentPages()).isEqualTo(4);
        // Released pages read as zero and fault again; the others kept their data.
        assertThat(r.read(a, buf, 0, 8 * PAGE)).isEqualTo(MemStatus.OK);
        assertThat(buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x5a);
        assertThat(buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 2 * PAGE)).isEqualTo((byte) 0);
        assertThat(buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 6 * PAGE)).isEqualTo((byte) 0x5a);
        assertThat(table.counters().pageFaults()).isEqualTo(2);
        assertThat(table.counters().pagesMapped()).isEqualTo(12);
    }

    @Test
    void shouldWalkChunksForAnAccessSpanningThem() {
        Region r = register();
        long a = mem.address();
        long start = a + 2 * MIB - 64 * KIB;
        fill(r, start, 4 * MIB + 128 * KIB, (byte) 0x33); // chunks 0, 1, 2 and 3
        assertThat(((OdpTranslation) r.translation()).liveChunks()).isEqualTo(4);
        MemorySegment direct = mem.asSlice(start - a, 4 * MIB + 128 * KIB);
        for (long i = 0; i < direct.byteSize(); i += 4096) {
            assertThat(direct.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 0x33);
        }
        assertThat(table.counters().pagesMapped()).isEqualTo((4 * MIB + 128 * KIB) / PAGE);
    }

    @Test
    void shouldFaultAfterUnmapAndDropThePages() {
        Region r = register();
        long a = mem.address();
        fill(r, a, 64 * KIB, (byte) 1);
        NativeMemory.unmap(mem);
        assertThat(table.counters().invalidations()).isEqualTo(1);
        assertThat(((OdpTranslation) r.translation()).presentPages()).isZero();
        assertThat(r.read(a, buf, 0, 64)).isEqualTo(MemStatus.FAULT);
        assertThat(r.write(a + 5 * MIB, buf, 0, 64)).isEqualTo(MemStatus.FAULT);
        assertThat(r.compareAndSwap(a, 0, 1, new long[1])).isEqualTo(MemStatus.FAULT);
        // a GLOBAL flush is a fence (nothing to make visible), a PERSISTENT one has no memory to sync
        assertThat(r.flush(a, 64)).isEqualTo(MemStatus.OK);
        assertThat(r.translation().flush(a, 64, true)).isEqualTo(MemStatus.FAULT);
    }

    @Test
    void shouldNeverTouchForeignMemoryMappedWhereItsAllocatorMemoryWas() {
        Region r = register();
        long a = mem.address();
        fill(r, a, 64 * KIB, (byte) 1);
        NativeMemory.unmap(mem);
        long foreign = Mem.mmap(a, 4 * MIB, Mem.PROT_READ | Mem.PROT_WRITE,
                Mem.MAP_PRIVATE | Mem.MAP_ANONYMOUS | Mem.MAP_FIXED_NOREPLACE, -1, 0);
        assertThat(foreign).as("remapped the same address").isEqualTo(a);
        try {
            MemorySegment other = MemorySegment.ofAddress(a).reinterpret(4 * MIB);
            other.fill((byte) 0x77);
            buf.asSlice(0, 4096).fill((byte) 0x11);
            assertThat(r.write(a, buf, 0, 4096)).isEqualTo(MemStatus.FAULT);
            assertThat(r.read(a + 2 * MIB, buf, 0, 4096)).isEqualTo(MemStatus.FAULT);
            assertThat(r.fetchAndAdd(a + 8, 1, new long[1])).isEqualTo(MemStatus.FAULT);
            assertThat(other.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x77);
            assertThat(other.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 8)).isEqualTo((byte) 0x77);
        } finally {
            Mem.munmap(a, 4 * MIB);
        }
    }

    @Test
    void shouldCopyThroughTheKernelForRawMemory() {
        long addr = TestSupport.rawMap(4 * MIB);
        Region r = MemoryRegions.register(table, PD, addr, 4 * MIB, addr, Access.LOCAL_WRITE | Access.ON_DEMAND);
        PinnedRegionTest.roundTrip(r, addr + 2 * MIB - 100, 200);
        assertThat(((OdpTranslation) r.translation()).chunkAt(addr).mode).isEqualTo(SafeAccess.KERNEL);
        assertThat(Mem.munmap(addr, 4 * MIB)).isZero();
        assertThat(r.read(addr, buf, 0, 64)).isEqualTo(MemStatus.FAULT);
    }

    @Test
    void shouldCopyThroughTheSegmentOfASharedArena() {
        Arena arena = Arena.ofShared();
        MemorySegment seg = arena.allocate(256 * KIB, 4096);
        Region r = MemoryRegions.register(table, PD, seg, Access.LOCAL_WRITE | Access.ON_DEMAND);
        PinnedRegionTest.roundTrip(r, seg.address() + 10, 100 * 1024);
        assertThat(((OdpTranslation) r.translation()).chunkAt(seg.address()).mode).isEqualTo(SafeAccess.SCOPED);
        arena.close();
        assertThat(r.read(seg.address(), buf, 0, 64)).isEqualTo(MemStatus.FAULT);
    }

    @Test
    void shouldUseIovaAddresses() {
        long iova = 0x4000_0000L;
        Region r = MemoryRegions.register(table, PD, mem.address(), mem.byteSize(), iova,
                Access.LOCAL_WRITE | Access.ON_DEMAND);
        fill(r, iova + PAGE, 16, (byte) 9);
        assertThat(mem.get(java.lang.foreign.ValueLayout.JAVA_BYTE, PAGE)).isEqualTo((byte) 9);
        assertThat(r.read(mem.address(), buf, 0, 8)).isEqualTo(MemStatus.OUT_OF_RANGE);
    }

    private void fill(Region r, long va, long len, byte value) {
        buf.asSlice(0, len).fill(value);
        assertThat(r.write(va, buf, 0, len)).isEqualTo(MemStatus.OK);
    }
}
