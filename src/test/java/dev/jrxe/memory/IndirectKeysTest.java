package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import static dev.jrxe.memory.TestSupport.KIB;
import static dev.jrxe.memory.TestSupport.PD;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Errno;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The memory layer's indirect keys without the verbs' builder limits: layouts whose arithmetic
 * would overflow, inconsistent specs, entries of another PD or beyond their region, and the
 * offset resolution at every entry and repeat boundary.
 */
class IndirectKeysTest {
    private KeyTable table;
    private MemorySegment mem;
    private Region mr;

    @BeforeEach
    void setUp() {
        table = TestSupport.table();
        mem = NativeMemory.map(64 * KIB);
        mr = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
    }

    @AfterEach
    void tearDown() {
        table.deregisterAll();
        NativeMemory.unmap(mem);
    }

    private IndirectKeys.Spec interleaved(long repeat, long[] addr, long[] count, long[] skip) {
        int[] lkeys = new int[addr.length];
        java.util.Arrays.fill(lkeys, mr.key());
        return new IndirectKeys.Spec(true, repeat, addr, count, skip, lkeys);
    }

    @Test
    void shouldRefuseLayoutsWhoseArithmeticOverflowsOrDoesNotAddUp() {
        IndirectKey k = IndirectKeys.create(table, PD, IndirectKey.INDIRECT, 4);
        long a = mem.address();
        // repeat 5 of 1 byte every 2^62: the span would wrap round to 1 byte
        assertThat(IndirectKeys.configure(k, PD, Access.LOCAL_WRITE,
            interleaved(5, new long[]{a}, new long[]{1}, new long[]{(1L << 62) - 1}))).isEqualTo(Errno.EINVAL);
        assertThat(IndirectKeys.configure(k, PD, Access.LOCAL_WRITE,
            interleaved(1L << 62, new long[]{a}, new long[]{8}, new long[]{0}))).isEqualTo(Errno.EINVAL);
        assertThat(IndirectKeys.configure(k, PD, Access.LOCAL_WRITE,
            interleaved(2, new long[]{a}, new long[]{8}, new long[]{-4}))).as("negative skip").isEqualTo(Errno.EINVAL);
        assertThat(IndirectKeys.configure(k, PD, Access.LOCAL_WRITE,
            new IndirectKeys.Spec(false, 1, new long[]{a, a}, new long[]{8}, new long[2], new int[]{mr.key(), mr.key()})))
            .as("arrays of different lengths").isEqualTo(Errno.EINVAL);
        assertThat(IndirectKeys.configure(k, PD, Access.LOCAL_WRITE,
            interleaved(2, new long[]{a + 64 * KIB - 8}, new long[]{8}, new long[]{0}))).as("past the region")
            .isEqualTo(Errno.EINVAL);
        assertThat(IndirectKeys.configure(k, PD + 1, Access.LOCAL_WRITE,
            interleaved(1, new long[]{a}, new long[]{8}, new long[]{0}))).as("another PD's QP").isEqualTo(Errno.EINVAL);
        assertThat(k.isConfigured()).isFalse();
        assertThat(mr.heldByKeys()).isZero();
    }

    @Test
    void shouldResolveEveryOffsetAtEntryAndRepeatBoundaries() {
        IndirectKey k = IndirectKeys.create(table, PD, IndirectKey.INDIRECT, 4);
        long a = mem.address();
        for (int i = 0; i < 64 * KIB; i++) {
            mem.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + (i >>> 8)));
        }
        // entries of 3, 5 and 1 bytes with skips 1, 0, 6 (strides 4, 5, 7), 9 times
        long[] addr = {a + 100, a + 1000, a + 5000};
        long[] count = {3, 5, 1};
        long[] skip = {1, 0, 6};
        assertThat(IndirectKeys.configure(k, PD, Access.LOCAL_WRITE | Access.REMOTE_READ,
            interleaved(9, addr, count, skip))).isZero();
        assertThat(k.length()).isEqualTo(81);
        MemorySegment out = MemorySegment.ofArray(new byte[81]);
        assertThat(k.read(PD, Access.REMOTE_READ, 0, out, 0, 81)).isEqualTo(MemStatus.OK);
        int o = 0;
        for (int r = 0; r < 9; r++) {
            for (int e = 0; e < 3; e++) {
                for (int b = 0; b < count[e]; b++) {
                    long at = addr[e] - a + r * (count[e] + skip[e]) + b;
                    assertThat(out.get(ValueLayout.JAVA_BYTE, o)).as("offset %d", o)
                        .isEqualTo(mem.get(ValueLayout.JAVA_BYTE, at));
                    // and every single byte on its own, at every boundary
                    MemorySegment one = MemorySegment.ofArray(new byte[1]);
                    assertThat(k.read(PD, 0, o, one, 0, 1)).isEqualTo(MemStatus.OK);
                    assertThat(one.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo(mem.get(ValueLayout.JAVA_BYTE, at));
                    o++;
                }
            }
        }
        assertThat(k.read(PD, 0, 80, out, 0, 2)).isEqualTo(MemStatus.OUT_OF_RANGE);
        assertThat(k.read(PD, 0, -1, out, 0, 1)).isEqualTo(MemStatus.OUT_OF_RANGE);
        assertThat(k.read(PD, Access.REMOTE_WRITE, 0, out, 0, 1)).isEqualTo(MemStatus.ACCESS_DENIED);
        assertThat(k.read(PD + 1, 0, 0, out, 0, 1)).isEqualTo(MemStatus.PD_MISMATCH);
        assertThat(mr.heldByKeys()).isEqualTo(3);
        IndirectKeys.destroy(k);
        IndirectKeys.destroy(k); // a second close does nothing
        assertThat(mr.heldByKeys()).isZero();
        assertThat(k.read(PD, 0, 0, out, 0, 1)).isEqualTo(MemStatus.INVALID_STATE);
    }
}
