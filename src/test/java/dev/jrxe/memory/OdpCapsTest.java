package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.PD;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every RC capability bit jrxe advertises for ODP is backed by the memory operation the transport
 * performs for it, on explicit and on implicit ODP memory (the transport-level tests exercise the
 * same bits end to end).
 */
class OdpCapsTest {
    enum Kind { ODP, IMPLICIT_ODP }

    private final KeyTable table = TestSupport.table();
    private final MemorySegment mem = NativeMemory.map(4 * MIB);
    private final MemorySegment buf = Arena.ofAuto().allocate(64 * 1024);

    @AfterEach
    void tearDown() {
        table.deregisterAll();
        NativeMemory.unmap(mem);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void shouldSupportEveryAdvertisedRcOperation(Kind kind) {
        // FLUSH_PERSISTENT needs a shared file mapping, except on implicit regions (FlushTest has both)
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC
                | Access.FLUSH_GLOBAL | (kind == Kind.ODP ? 0 : Access.FLUSH_PERSISTENT) | Access.ON_DEMAND;
        Region r = kind == Kind.ODP ? MemoryRegions.register(table, PD, mem, access)
                : MemoryRegions.registerImplicit(table, PD, access);
        assertThat(OdpCaps.GENERAL).isEqualTo(OdpCaps.ODP_SUPPORT | OdpCaps.ODP_SUPPORT_IMPLICIT);
        int exercised = 0;
        long a = mem.address();
        long cross = a + 2 * MIB - 1000; // every data operation also crosses a chunk boundary
        for (int bit = 1; bit <= 128; bit <<= 1) {
            if ((OdpCaps.RC & bit) == 0) {
                continue;
            }
            switch (bit) {
                case OdpCaps.SEND, OdpCaps.READ -> { // local gather for SEND; READ response source
                    mem.asSlice(cross - a, 2000).fill((byte) bit);
                    assertThat(r.check(PD, bit == OdpCaps.READ ? Access.REMOTE_READ : 0, cross, 2000)).isZero();
                    assertThat(r.read(cross, buf, 0, 2000)).isEqualTo(MemStatus.OK);
                    assertThat(buf.get(JAVA_BYTE, 1999)).isEqualTo((byte) bit);
                }
                case OdpCaps.RECV, OdpCaps.SRQ_RECV, OdpCaps.WRITE -> { // scatter of a receive; remote write
                    buf.asSlice(0, 2000).fill((byte) bit);
                    int needed = bit == OdpCaps.WRITE ? Access.REMOTE_WRITE : Access.LOCAL_WRITE;
                    assertThat(r.check(PD, needed, cross, 2000)).isZero();
                    assertThat(r.write(cross, buf, 0, 2000)).isEqualTo(MemStatus.OK);
                    assertThat(mem.get(JAVA_BYTE, cross - a + 1999)).isEqualTo((byte) bit);
                }
                case OdpCaps.ATOMIC -> {
                    long[] original = new long[1];
                    long word = a + 2 * MIB + 4096;
                    assertThat(r.check(PD, Access.REMOTE_ATOMIC, word, 8)).isZero();
                    assertThat(r.fetchAndAdd(word, 5, original)).isEqualTo(MemStatus.OK);
                    assertThat(r.compareAndSwap(word, 5, 6, original)).isEqualTo(MemStatus.OK);
                    assertThat(mem.get(JAVA_LONG, word - a)).isEqualTo(6);
                }
                case OdpCaps.FLUSH -> {
                    assertThat(r.check(PD, Access.FLUSH_GLOBAL, cross, 2000)).isZero();
                    assertThat(r.flush(cross, 2000)).isEqualTo(MemStatus.OK);
                    assertThat(r.flush(cross, 0)).isEqualTo(MemStatus.OK);
                }
                case OdpCaps.ATOMIC_WRITE -> {
                    assertThat(r.check(PD, Access.REMOTE_WRITE, a + 3 * MIB, 8)).isZero();
                    assertThat(r.atomicWrite(a + 3 * MIB, 0x1122334455667788L)).isEqualTo(MemStatus.OK);
                    assertThat(mem.get(JAVA_LONG, 3 * MIB)).isEqualTo(0x1122334455667788L);
                }
                default -> throw new AssertionError("advertised bit without an exercise: " + bit);
            }
            exercised |= bit;
        }
        assertThat(exercised).isEqualTo(OdpCaps.RC);
        assertThat(OdpCaps.RC).isEqualTo(255);
        assertThat(table.counters().pageFaults()).isPositive();
    }
}
