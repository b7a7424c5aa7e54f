package dev.jrxe.memory;

import dev.jrxe.sys.Errno;
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

    @Test
    void shouldNeverMatchAStaleKeyWithANewRegion() {
        KeyTable table = TestSupport.table();
        MemorySegment mem = NativeMemory.map(4 * KIB);
        try {
            Region first = MemoryRegions.register(table, PD, mem, Access.ON_DEMAND);
            int stale = first.key();
            first.close();
            Set<Integer> seen = new HashSet<>();
            seen.add(stale);
            for (int i = 0; i < 2000; i++) {
                Region r = MemoryRegions.register(table, PD, mem, Access.ON_DEMAND);
                assertThat(seen.add(r.key())).as("key reused after %d registrations", i).isTrue();
                assertThat(table.lookup(stale)).isNull();
                r.close();
            }
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
