package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;

import static dev.jrxe.memory.TestSupport.KIB;
import static dev.jrxe.memory.TestSupport.PD;
import static dev.jrxe.memory.TestSupport.errnoOf;
import static org.assertj.core.api.Assertions.assertThat;

class KeyTableTest {
    @Test
    void shouldMakeKeysOfIndexAndEightBitKeyAndLookThemUp() {
        KeyTable table = TestSupport.table();
        MemorySegment mem = NativeMemory.map(64 * KIB);
        try {
            Region a = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | Access.ON_DEMAND);
            Region b = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | Access.ON_DEMAND);
            assertThat(a.key() >>> 8).isEqualTo(1);
            assertThat(b.key() >>> 8).isEqualTo(2);
            assertThat(table.lookup(a.key())).isSameAs(a);
            assertThat(table.lookup(b.key())).isSameAs(b);
            assertThat(table.lookup(a.key() ^ 1)).isNull();
            assertThat(table.lookup(0)).isNull();
            assertThat(table.lookup(0x7fffffff)).isNull();
            assertThat(table.size()).isEqualTo(2);
            a.close();
            b.close();
            assertThat(table.lookup(a.key())).isNull();
            assertThat(table.size()).isZero();
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    /**
     * Every index of the table is used once before any comes back, so for max_mr (524,287)
     * registrations after a key died, nothing can match it (the test: 20,000 churns, every key new,
     * no stale key resolving; keys came back after 4,096 when indices were reused after 16).
     */
    @Test
    void shouldNotReuseAnIndexBeforeEveryIndexWasUsed() {
        KeyTable table = TestSupport.table();
        MemorySegment mem = NativeMemory.map(4 * KIB);
        try {
            Set<Integer> seen = new HashSet<>();
            Set<Integer> indices = new HashSet<>();
            int[] stale = new int[64];
            for (int i = 0; i < 20_000; i++) {
                Region r = MemoryRegions.register(table, PD, mem, Access.ON_DEMAND);
                assertThat(seen.add(r.key())).as("key reused after %d registrations", i).isTrue();
                assertThat(indices.add(r.key() >>> 8)).as("index reused after %d registrations", i).isTrue();
                r.close();
                stale[i % stale.length] = r.key();
                for (int k : stale) {
                    assertThat(k == 0 || table.lookup(k) == null).isTrue();
                }
            }
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    /**
     * Once indices are reused (here max_mr 1: every registration reuses index 1), the 8-bit key
     * is random and never the one the index had just before: a stale key never matches the next
     * region on its index, and matches a later one with probability 1/255 per reuse (measured
     * over 100,000 reuses; a deterministic key sequence would repeat every 256).
     */
    @Test
    void shouldDrawAFreshRandomEightBitKeyOnEveryReuse() {
        KeyTable table = new KeyTable(MemoryConfig.fromConfiguration().withMaxMr(1));
        MemorySegment mem = NativeMemory.map(4 * KIB);
        try {
            int n = 100_000;
            int[] keys = new int[n];
            for (int i = 0; i < n; i++) {
                Region r = MemoryRegions.register(table, PD, mem, Access.ON_DEMAND);
                keys[i] = r.key();
                r.close();
            }
            int sameAsTwoBefore = 0;
            int sameAs256Before = 0;
            for (int i = 1; i < n; i++) {
                assertThat(keys[i] >>> 8).isEqualTo(1);
                assertThat(keys[i]).as("reuse %d got the key the index had just before", i).isNotEqualTo(keys[i - 1]);
                if (i >= 2 && keys[i] == keys[i - 2]) {
                    sameAsTwoBefore++;
                }
                if (i >= 256 && keys[i] == keys[i - 256]) {
                    sameAs256Before++;
                }
            }
            // binomial(n, 1/255): mean 392, standard deviation 19.8; the bounds are 7 deviations away
            assertThat(sameAsTwoBefore).as("stale key matched two reuses later").isBetween(250, 540);
            assertThat(sameAs256Before).as("stale key matched 256 reuses later").isBetween(250, 540);
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldDrawDifferentKeysInDifferentTables() {
        KeyTable one = new KeyTable(MemoryConfig.fromConfiguration().withMaxMr(1));
        KeyTable two = new KeyTable(MemoryConfig.fromConfiguration().withMaxMr(1));
        MemorySegment mem = NativeMemory.map(4 * KIB);
        try {
            boolean differ = false;
            for (int i = 0; i < 32; i++) {
                Region a = MemoryRegions.register(one, PD, mem, Access.ON_DEMAND);
                Region b = MemoryRegions.register(two, PD, mem, Access.ON_DEMAND);
                differ |= a.key() != b.key();
                a.close();
                b.close();
            }
            assertThat(differ).as("32 keys alike in two tables (chance 2^-256 if random)").isTrue();
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldNeverGiveAWindowsIndexBackWithTheKeyItsLastBindGaveIt() {
        // max_mr 2: the region takes one index, the windows share the other one
        KeyTable table = new KeyTable(MemoryConfig.fromConfiguration().withMaxMr(2));
        MemorySegment mem = NativeMemory.map(4 * KIB);
        try {
            Region mr = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | Access.MW_BIND);
            for (int i = 0; i < 500; i++) {
                MemoryWindow mw = MemoryWindows.alloc(table, PD, MemoryWindow.TYPE_1);
                int allocated = mw.key();
                int bound = allocated ^ (1 + (i % 255)); // any other 8-bit key
                assertThat(MemoryWindows.bind(mw, allocated, PD, 1, mr, mem.address(), 64, Access.REMOTE_READ,
                        bound)).isZero();
                assertThat(mw.key()).isEqualTo(bound);
                MemoryWindows.dealloc(mw);
                int next = table.reserve();
                assertThat(next >>> 8).as("the same index").isEqualTo(bound >>> 8);
                assertThat(next).as("round %d: the stale window rkey must not come back at once", i).isNotEqualTo(bound);
                table.free(next);
            }
            mr.close();
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldFailWithEnomemBeyondMaxMrAndRecoverAfterDeregistration() {
        KeyTable table = new KeyTable(MemoryConfig.fromConfiguration().withMaxMr(3));
        MemorySegment mem = NativeMemory.map(4 * KIB);
        try {
            Region[] regions = new Region[3];
            for (int i = 0; i < 3; i++) {
                regions[i] = MemoryRegions.register(table, PD, mem, Access.ON_DEMAND);
            }
            assertThat(errnoOf(() -> MemoryRegions.register(table, PD, mem, Access.ON_DEMAND)))
                    .isEqualTo(Errno.ENOMEM);
            assertThat(table.size()).isEqualTo(3);
            regions[1].close();
            Region again = MemoryRegions.register(table, PD, mem, Access.ON_DEMAND);
            assertThat(table.lookup(again.key())).isSameAs(again);
            assertThat(table.lookup(regions[1].key())).isNull();
        } finally {
            table.deregisterAll();
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldDefaultMaxMrToRxeValue() {
        assertThat(TestSupport.table().capacity()).isEqualTo(524287);
    }

    @Test
    void shouldRejectDoubleDeregistration() {
        KeyTable table = TestSupport.table();
        Region r = MemoryRegions.registerImplicit(table, PD, Access.LOCAL_WRITE);
        r.close();
        assertThat(errnoOf(r::close)).isEqualTo(Errno.EINVAL);
        assertThat(r.read(0x1000, MemorySegment.ofArray(new byte[8]), 0, 8)).isEqualTo(MemStatus.INVALID_STATE);
        assertThat(r.check(PD, 0, 0x1000, 8)).isEqualTo(MemStatus.INVALID_STATE);
    }
}
