package dev.jrxe.memory;

import dev.jrxe.ib.Advice;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static dev.jrxe.memory.TestSupport.KIB;
import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.PD;
import static dev.jrxe.memory.TestSupport.errnoOf;
import static org.assertj.core.api.Assertions.assertThat;

/** ibv_advise_mr: prefetch kinds, synchronous and asynchronous, and the errnos of its man page. */
class AdviseTest {
    private KeyTable table;
    private MemorySegment mem;
    private Region odp;

    @BeforeEach
    void setUp() {
        table = TestSupport.table();
        mem = NativeMemory.map(4 * MIB);
        odp = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | Access.ON_DEMAND);
    }

    @AfterEach
    void tearDown() {
        table.deregisterAll();
        NativeMemory.unmap(mem);
    }

    private PrefetchRange range(Region r, long offset, long length) {
        return new PrefetchRange(r.lkey(), mem.address() + offset, length);
    }

    @Test
    void shouldPrefetchSynchronouslyWithFlush() {
        MemoryRegions.advise(table, PD, Advice.PREFETCH, Advice.FLAG_FLUSH, range(odp, 0, 64 * KIB));
        assertThat(TestSupport.resident(mem.asSlice(0, 64 * KIB))).isEqualTo(16);
        assertThat(table.counters().pagesMapped()).isEqualTo(16);
        assertThat(table.counters().prefetches()).isEqualTo(1);
        MemoryRegions.advise(table, PD, Advice.PREFETCH_WRITE, Advice.FLAG_FLUSH,
                range(odp, 2 * MIB - 4 * KIB, 8 * KIB), range(odp, MIB, 4 * KIB));
        assertThat(table.counters().pagesMapped()).isEqualTo(19);
        assertThat(table.counters().prefetches()).isEqualTo(3);
        // Prefetched pages do not fault on access.
        long faults = table.counters().pageFaults();
        assertThat(odp.write(mem.address(), mem.asSlice(MIB, 64 * KIB), 0, 64 * KIB)).isEqualTo(MemStatus.OK);
        assertThat(table.counters().pageFaults()).isEqualTo(faults);
    }

    @Test
    void shouldMarkOnlyResidentPagesWithNoFault() {
        mem.asSlice(0, 8 * KIB).fill((byte) 1); // two resident pages
        MemoryRegions.advise(table, PD, Advice.PREFETCH_NO_FAULT, Advice.FLAG_FLUSH, range(odp, 0, 64 * KIB));
        assertThat(table.counters().pagesMapped()).isEqualTo(2);
        assertThat(TestSupport.resident(mem.asSlice(0, 64 * KIB))).isEqualTo(2);
    }

    @Test
    void shouldPrefetchAsynchronouslyWithoutFlush() throws InterruptedException {
        MemoryRegions.advise(table, PD, Advice.PREFETCH_WRITE, 0, range(odp, 0, 32 * KIB));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (table.counters().pagesMapped() < 8 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(table.counters().pagesMapped()).isEqualTo(8);
        assertThat(TestSupport.resident(mem.asSlice(0, 32 * KIB))).isEqualTo(8);
    }

    @Test
    void shouldPrefetchImplicitRegionsCreatingChildren() {
        Region implicit = MemoryRegions.registerImplicit(table, PD, Access.LOCAL_WRITE);
        MemoryRegions.advise(table, PD, Advice.PREFETCH, Advice.FLAG_FLUSH,
                new PrefetchRange(implicit.lkey(), mem.address() + 2 * MIB - 4 * KIB, 8 * KIB));
        assertThat(table.counters().childrenCreated()).isEqualTo(2);
        assertThat(table.counters().pagesMapped()).isEqualTo(2);
    }

    @Test
    void shouldAnswerEopnotsuppForUnknownAdvice() {
        assertThat(errnoOf(() -> MemoryRegions.advise(table, PD, 3, Advice.FLAG_FLUSH, range(odp, 0, 4096))))
                .isEqualTo(Errno.EOPNOTSUPP);
        assertThat(errnoOf(() -> MemoryRegions.advise(table, PD, -1, 0, range(odp, 0, 4096))))
                .isEqualTo(Errno.ENOTSUP);
    }

    @Test
    void shouldAnswerEinvalForBadFlagsOrNoRanges() {
        assertThat(errnoOf(() -> MemoryRegions.advise(table, PD, Advice.PREFETCH, 2, range(odp, 0, 4096))))
                .isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> MemoryRegions.advise(table, PD, Advice.PREFETCH, Advice.FLAG_FLUSH)))
                .isEqualTo(Errno.EINVAL);
    }

    @Test
    void shouldAnswerEfaultForInvalidKeysOrWrongWriteAccess() {
        assertThat(errnoOf(() -> MemoryRegions.advise(table, PD, Advice.PREFETCH, Advice.FLAG_FLUSH,
                new PrefetchRange(odp.lkey() + 1, mem.address(), 4096)))).isEqualTo(Errno.EFAULT);
        assertThat(errnoOf(() -> MemoryRegions.advise(table, PD + 1, Advice.PREFETCH, Advice.FLAG_FLUSH,
                range(odp, 0, 4096)))).as("lkey of another PD").isEqualTo(Errno.EFAULT);
        Region pinned = MemoryRegions.register(table, PD, mem.asSlice(0, 64 * KIB), Access.LOCAL_WRITE);
        assertThat(errnoOf(() -> MemoryRegions.advise(table, PD, Advice.PREFETCH, Advice.FLAG_FLUSH,
                range(pinned, 0, 4096)))).as("not an ODP region").isEqualTo(Errno.EFAULT);
        Region readOnly = MemoryRegions.register(table, PD, mem, Access.ON_DEMAND);
        assertThat(errnoOf(() -> MemoryRegions.advise(table, PD, Advice.PREFETCH_WRITE, Advice.FLAG_FLUSH,
                range(readOnly, 0, 4096)))).isEqualTo(Errno.EFAULT);
        MemoryRegions.advise(table, PD, Advice.PREFETCH, Advice.FLAG_FLUSH, range(readOnly, 0, 4096));
    }

    @Test
    void shouldAnswerEfaultOutsideTheRegionOrTheAddressSpace() {
        assertThat(errnoOf(() -> MemoryRegions.advise(table, PD, Advice.PREFETCH, Advice.FLAG_FLUSH,
                range(odp, 4 * MIB - 4096, 8192)))).isEqualTo(Errno.EFAULT);
        long hole = TestSupport.unmappedAddress(64 * KIB);
        Region overHole = MemoryRegions.register(table, PD, hole, 64 * KIB, hole, Access.LOCAL_WRITE | Access.ON_DEMAND);
        assertThat(errnoOf(() -> MemoryRegions.advise(table, PD, Advice.PREFETCH, Advice.FLAG_FLUSH,
                new PrefetchRange(overHole.lkey(), hole, 4096)))).isEqualTo(Errno.EFAULT);
        // Without FLUSH the page work is best effort: the call itself succeeds.
        MemoryRegions.advise(table, PD, Advice.PREFETCH, 0, new PrefetchRange(overHole.lkey(), hole, 4096));
        // No-fault never faults, so an unmapped range is not an error.
        MemoryRegions.advise(table, PD, Advice.PREFETCH_NO_FAULT, Advice.FLAG_FLUSH,
                new PrefetchRange(overHole.lkey(), hole, 4096));
    }
}
