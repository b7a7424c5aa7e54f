package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static dev.jrxe.memory.TestSupport.GIB;
import static dev.jrxe.memory.TestSupport.KIB;
import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.errnoOf;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

class NativeMemoryTest {
    @Test
    void shouldReserveLargeMappingsWithoutTouchingThem() {
        long rssBefore = TestSupport.statusKib("VmRSS");
        MemorySegment m = NativeMemory.map(16 * GIB);
        try {
            assertThat(m.byteSize()).isEqualTo(16 * GIB);
            assertThat(m.address() % NativeMemory.GRANULE).isZero();
            assertThat(TestSupport.resident(m.asSlice(0, 64 * MIB))).isZero();
            m.set(JAVA_BYTE, 8 * GIB, (byte) 1);
            assertThat(TestSupport.resident(m.asSlice(8 * GIB, 4 * KIB))).isEqualTo(1);
            assertThat(TestSupport.statusKib("VmRSS") - rssBefore).isLessThan(16 * 1024);
            assertThat(NativeMemory.owns(m.address(), m.byteSize())).isTrue();
        } finally {
            NativeMemory.unmap(m);
        }
        assertThat(NativeMemory.owns(m.address(), 4096)).isFalse();
    }

    @Test
    void shouldRoundMappingsToTwoMegabyteGranules() {
        MemorySegment a = NativeMemory.map(5000);
        MemorySegment b = NativeMemory.map(3 * MIB);
        try {
            assertThat(a.byteSize()).isEqualTo(5000);
            assertThat(a.address() % (2 * MIB)).isZero();
            assertThat(b.address() % (2 * MIB)).isZero();
            assertThat(NativeMemory.owns(a.address(), 2 * MIB)).as("the whole granule is ours").isTrue();
            assertThat(NativeMemory.owns(b.address(), 4 * MIB)).isTrue();
        } finally {
            NativeMemory.unmap(a);
            NativeMemory.unmap(b);
        }
    }

    @Test
    void shouldZeroReleasedPages() {
        MemorySegment m = NativeMemory.map(64 * KIB);
        try {
            m.fill((byte) 3);
            NativeMemory.release(m, 4 * KIB, 8 * KIB);
            assertThat(m.get(JAVA_BYTE, 0)).isEqualTo((byte) 3);
            assertThat(m.get(JAVA_BYTE, 4 * KIB)).isZero();
            assertThat(m.get(JAVA_BYTE, 12 * KIB - 1)).isZero();
            assertThat(m.get(JAVA_BYTE, 12 * KIB)).isEqualTo((byte) 3);
        } finally {
            NativeMemory.unmap(m);
        }
    }

    @Test
    void shouldRejectBadRequests() {
        assertThat(errnoOf(() -> NativeMemory.map(0))).isEqualTo(Errno.EINVAL);
        MemorySegment m = NativeMemory.map(64 * KIB);
        try {
            assertThat(errnoOf(() -> NativeMemory.unmap(m.asSlice(4096)))).isEqualTo(Errno.EINVAL);
            assertThat(errnoOf(() -> NativeMemory.release(m, 100, 4096))).isEqualTo(Errno.EINVAL);
            assertThat(errnoOf(() -> NativeMemory.unmap(MemorySegment.ofAddress(4096)))).isEqualTo(Errno.EINVAL);
        } finally {
            NativeMemory.unmap(m);
        }
        assertThat(errnoOf(() -> NativeMemory.unmap(m))).as("twice").isEqualTo(Errno.EINVAL);
    }

    @Test
    void shouldRefuseToReleasePinnedPages() {
        KeyTable table = TestSupport.table();
        MemorySegment m = NativeMemory.map(64 * KIB);
        try {
            MemoryRegions.register(table, TestSupport.PD, m, Access.LOCAL_WRITE);
            assertThat(errnoOf(() -> NativeMemory.release(m, 0, 4096))).isEqualTo(Errno.EINVAL);
        } finally {
            table.deregisterAll();
            NativeMemory.unmap(m);
        }
    }
}
