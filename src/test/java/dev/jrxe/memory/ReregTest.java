package dev.jrxe.memory;

import dev.jrxe.ib.Rereg;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.jrxe.memory.TestSupport.KIB;
import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.PD;
import static dev.jrxe.memory.TestSupport.errnoOf;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/** ibv_rereg_mr, after rdma-core's test_mr expectations (at the memory-key level). */
class ReregTest {
    private KeyTable table;
    private MemorySegment mem;
    private MemorySegment other;

    @BeforeEach
    void setUp() {
        table = TestSupport.table();
        mem = NativeMemory.map(MIB);
        other = NativeMemory.map(MIB);
    }

    @AfterEach
    void tearDown() {
        table.deregisterAll();
        NativeMemory.unmap(mem);
        NativeMemory.unmap(other);
    }

    /**
     * A rereg of PD, access and memory at once switches all three in one step: a concurrent key
     * check sees the region as it was or as it is now, never PD B with the remote write right
     * that only PD A had, or PD A over the memory that only PD B's binding covers.
     */
    @Test
    void shouldSwitchPdAccessAndMemoryAtOnce() throws Exception {
        int pdA = PD;
        int pdB = PD + 1;
        int odp = Access.ON_DEMAND;
        Region r = MemoryRegions.register(table, pdA, mem, Access.LOCAL_WRITE | Access.REMOTE_WRITE | odp);
        int all = Rereg.CHANGE_PD | Rereg.CHANGE_ACCESS | Rereg.CHANGE_TRANSLATION;
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread flipper = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 40_000; i++) {
                MemoryRegions.rereg(r, all, pdB, other, Access.LOCAL_WRITE | odp);
                MemoryRegions.rereg(r, all, pdA, mem, Access.LOCAL_WRITE | Access.REMOTE_WRITE | odp);
            }
            stop.set(true);
        });
        long mixed = 0;
        long checks = 0;
        while (!stop.get()) {
            checks++;
            if (r.check(pdB, Access.REMOTE_WRITE, mem.address(), 8) == MemStatus.OK
                || r.check(pdB, Access.REMOTE_WRITE, other.address(), 8) == MemStatus.OK
                || r.check(pdA, Access.LOCAL_WRITE, other.address(), 8) == MemStatus.OK) {
                mixed++;
            }
        }
        flipper.join();
        assertThat(checks).isPositive();
        assertThat(mixed).as("checks that saw a mix of two bindings, of %d", checks).isZero();
    }

    /** test_mr_rereg_atomic: drop REMOTE_ATOMIC, atomics are refused; restore, they work. */
    @Test
    void shouldChangeAccessLikeTestMrReregAtomic() {
        Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | Access.REMOTE_ATOMIC);
        int key = r.key();
        long a = mem.address();
        assertThat(r.check(PD, Access.REMOTE_ATOMIC, a, 8)).isEqualTo(MemStatus.OK);
        MemoryRegions.rereg(r, Rereg.CHANGE_ACCESS, 0, 0, 0, 0, Access.LOCAL_WRITE);
        assertThat(r.check(PD, Access.REMOTE_ATOMIC, a, 8)).isEqualTo(MemStatus.ACCESS_DENIED);
        MemoryRegions.rereg(r, Rereg.CHANGE_ACCESS, 0, 0, 0, 0, Access.LOCAL_WRITE | Access.REMOTE_ATOMIC);
        assertThat(r.check(PD, Access.REMOTE_ATOMIC, a, 8)).isEqualTo(MemStatus.OK);
        assertThat(r.fetchAndAdd(a, 3, new long[1])).isEqualTo(MemStatus.OK);
        assertThat(r.key()).isEqualTo(key);
        assertThat(table.lookup(key)).isSameAs(r);
    }

    /** test_mr_rereg_access and its bad flow: add REMOTE_WRITE, then remove it again. */
    @Test
    void shouldGrantAndRevokeRemoteWrite() {
        Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
        assertThat(r.rkey()).isZero();
        MemoryRegions.rereg(r, Rereg.CHANGE_ACCESS, 0, 0, 0, 0, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        assertThat(r.check(PD, Access.REMOTE_WRITE, mem.address(), 64)).isEqualTo(MemStatus.OK);
        assertThat(r.rkey()).isEqualTo(r.key());
        MemoryRegions.rereg(r, Rereg.CHANGE_ACCESS, 0, 0, 0, 0, Access.LOCAL_WRITE);
        assertThat(r.check(PD, Access.REMOTE_WRITE, mem.address(), 64)).isEqualTo(MemStatus.ACCESS_DENIED);
    }

    @Test
    void shouldMakeAReadOnlyPinnedRegionWritable() {
        Region r = MemoryRegions.register(table, PD, mem, Access.REMOTE_READ);
        MemoryRegions.rereg(r, Rereg.CHANGE_ACCESS, 0, 0, 0, 0, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        assertThat(r.access()).isEqualTo(Access.LOCAL_WRITE | Access.REMOTE_WRITE);
    }

    /** test_mr_rereg_pd: keys of the old PD stop matching; restoring the PD restores access. */
    @Test
    void shouldChangeThePd() {
        Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        MemoryRegions.rereg(r, Rereg.CHANGE_PD, PD + 1, 0, 0, 0, 0);
        assertThat(r.pdHandle()).isEqualTo(PD + 1);
        assertThat(r.check(PD, Access.REMOTE_WRITE, mem.address(), 8)).isEqualTo(MemStatus.PD_MISMATCH);
        MemoryRegions.rereg(r, Rereg.CHANGE_PD, PD, 0, 0, 0, 0);
        assertThat(r.check(PD, Access.REMOTE_WRITE, mem.address(), 8)).isEqualTo(MemStatus.OK);
    }

    @Test
    void shouldChangeTheTranslationKeepingTheKey() {
        Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
        int key = r.key();
        assertThat(TestSupport.lockedKib(mem)).isEqualTo(mem.byteSize() / KIB);
        assertThat(TestSupport.lockedKib(other)).isZero();
        MemoryRegions.rereg(r, Rereg.CHANGE_TRANSLATION, 0, other, Access.LOCAL_WRITE);
        assertThat(r.key()).isEqualTo(key);
        assertThat(r.start()).isEqualTo(other.address());
        assertThat(PinLedger.count(other.address())).isEqualTo(1);
        assertThat(PinLedger.count(mem.address())).isZero();
        assertThat(TestSupport.lockedKib(mem)).isZero();
        assertThat(TestSupport.lockedKib(other)).isEqualTo(other.byteSize() / KIB);
        assertThat(r.check(PD, 0, mem.address(), 8)).isEqualTo(MemStatus.OUT_OF_RANGE);
        assertThat(r.atomicWrite(other.address(), 77)).isEqualTo(MemStatus.OK);
        assertThat(other.get(JAVA_LONG, 0)).isEqualTo(77);
    }

    @Test
    void shouldChangeTheKindWithTranslationAndAccessTogether() {
        Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
        MemoryRegions.rereg(r, Rereg.CHANGE_TRANSLATION | Rereg.CHANGE_ACCESS, 0, 0, -1L, 0,
                Access.LOCAL_WRITE | Access.ON_DEMAND);
        assertThat(r.kind()).isEqualTo(RegionKind.IMPLICIT_ODP);
        assertThat(PinLedger.count(mem.address())).isZero();
        assertThat(table.counters().pinnedBytes()).isZero();
        assertThat(r.write(other.address(), mem, 0, 4 * KIB)).isEqualTo(MemStatus.OK);
    }

    @Test
    void shouldRejectBadRequestsAndChangeNothing() {
        Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | Access.REMOTE_READ);
        assertThat(errnoOf(() -> MemoryRegions.rereg(r, 0, PD, 0, 0, 0, 0))).isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> MemoryRegions.rereg(r, 8, PD, 0, 0, 0, 0))).isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> MemoryRegions.rereg(r, Rereg.CHANGE_ACCESS | Rereg.CHANGE_PD, PD + 5, 0, 0, 0,
                Access.REMOTE_WRITE))).isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> MemoryRegions.rereg(r, Rereg.CHANGE_ACCESS, 0, 0, 0, 0,
                Access.LOCAL_WRITE | Access.ON_DEMAND))).as("ON_DEMAND toggles only with a new translation")
                .isEqualTo(Errno.EINVAL);
        long hole = TestSupport.unmappedAddress(64 * KIB);
        assertThat(errnoOf(() -> MemoryRegions.rereg(r, Rereg.CHANGE_TRANSLATION | Rereg.CHANGE_PD, PD + 5, hole,
                64 * KIB, hole, 0))).isEqualTo(Errno.EFAULT);
        assertThat(r.pdHandle()).isEqualTo(PD);
        assertThat(r.access()).isEqualTo(Access.LOCAL_WRITE | Access.REMOTE_READ);
        assertThat(r.start()).isEqualTo(mem.address());
        assertThat(PinLedger.count(mem.address())).isEqualTo(1);
        r.close();
        assertThat(errnoOf(() -> MemoryRegions.rereg(r, Rereg.CHANGE_PD, PD, 0, 0, 0, 0))).isEqualTo(Errno.EINVAL);
    }

    @Test
    void shouldRefuseWriteAccessOnAReadOnlySegment() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment ro = arena.allocate(4096).asReadOnly();
            Region r = MemoryRegions.register(table, PD, ro, Access.REMOTE_READ);
            assertThat(errnoOf(() -> MemoryRegions.rereg(r, Rereg.CHANGE_ACCESS, 0, 0, 0, 0, Access.LOCAL_WRITE)))
                    .isEqualTo(Errno.EFAULT);
            r.close();
        }
    }
}
