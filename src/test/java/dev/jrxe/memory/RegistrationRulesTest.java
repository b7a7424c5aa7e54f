package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.sys.Mem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.jrxe.memory.TestSupport.KIB;
import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.PD;
import static dev.jrxe.memory.TestSupport.errnoOf;
import static org.assertj.core.api.Assertions.assertThat;

/** The registration matrix: rdma-core's access rules, the implicit ODP RFC's cases, jrxe's choices. */
class RegistrationRulesTest {
    private KeyTable table;
    private MemorySegment mem;

    @BeforeEach
    void setUp() {
        table = TestSupport.table();
        mem = NativeMemory.map(64 * KIB);
    }

    @AfterEach
    void tearDown() {
        table.deregisterAll();
        NativeMemory.unmap(mem);
    }

    /**
     * The RFC's implicit_odp_reg_test, with jrxe's answers: LOCAL_WRITE and nothing are accepted;
     * REMOTE_WRITE and REMOTE_ATOMIC without LOCAL_WRITE fail with EINVAL (ib core's rule, before any
     * driver); REMOTE_READ is accepted, because jrxe serves remote operations on implicit memory
     * (the RFC's rxe refuses every remote bit with EOPNOTSUPP).
     */
    @ParameterizedTest(name = "implicit + {0} -> {1}")
    @CsvSource({
            "LOCAL_WRITE, 0",
            "NONE, 0",
            "REMOTE_WRITE, 22",
            "REMOTE_READ, 0",
            "REMOTE_ATOMIC, 22",
            "LOCAL_WRITE|REMOTE_WRITE, 0",
            "LOCAL_WRITE|REMOTE_ATOMIC, 0",
            "LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC, 0",
    })
    void shouldApplyRfcImplicitRegistrationMatrix(String flags, int errno) {
        int access = parse(flags) | Access.ON_DEMAND;
        if (errno == 0) {
            Region r = MemoryRegions.register(table, PD, 0, -1L, 0, access);
            assertThat(r.kind()).isEqualTo(RegionKind.IMPLICIT_ODP);
            assertThat(r.start()).isZero();
            assertThat(r.length()).isEqualTo(-1L);
            assertThat(r.access()).isEqualTo(access);
            assertThat(table.lookup(r.key())).isSameAs(r);
        } else {
            assertThat(errnoOf(() -> MemoryRegions.register(table, PD, 0, -1L, 0, access))).isEqualTo(errno);
            assertThat(table.size()).isZero();
        }
    }

    /** rdma-core test_reg_mr_bad_flags: REMOTE_WRITE or REMOTE_ATOMIC alone fail, for every kind. */
    @ParameterizedTest
    @ValueSource(ints = {Access.REMOTE_WRITE, Access.REMOTE_ATOMIC, Access.REMOTE_WRITE | Access.REMOTE_ATOMIC,
            Access.REMOTE_WRITE | Access.REMOTE_READ})
    void shouldRejectRemoteWriteOrAtomicWithoutLocalWrite(int access) {
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, mem, access))).isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, mem, access | Access.ON_DEMAND)))
                .isEqualTo(Errno.EINVAL);
        assertThat(table.size()).isZero();
        assertThat(table.counters().pinnedBytes()).isZero();
    }

    /** Bits outside the supported set and outside the optional range: EINVAL (rxe: EOPNOTSUPP). */
    @ParameterizedTest
    @ValueSource(ints = {Access.ZERO_BASED, 1 << 10, 1 << 15, 1 << 19, 1 << 30, 1 << 31})
    void shouldRejectUnknownAccessBitsWithEinval(int bit) {
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | bit)))
                .isEqualTo(Errno.EINVAL);
        assertThat(table.size()).isZero();
    }

    @Test
    void shouldIgnoreOptionalAccessBits() {
        int access = Access.LOCAL_WRITE | Access.ON_DEMAND | Access.RELAXED_ORDERING | (1 << 29);
        Region r = MemoryRegions.register(table, PD, mem, access);
        assertThat(r.access()).isEqualTo(Access.LOCAL_WRITE | Access.ON_DEMAND);
    }

    @Test
    void shouldAcceptFlushPersistentOnlyOnMemoryMappedSharedFromAFile() throws Exception {
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, mem, Access.FLUSH_PERSISTENT)))
                .as("anonymous memory cannot be made durable").isEqualTo(Errno.EINVAL);
        java.nio.file.Path file = java.nio.file.Files.createTempFile("jrxe-persist", ".bin");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE);
             Arena arena = Arena.ofConfined()) {
            MemorySegment shared = ch.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, 64 * KIB, arena);
            Region r = MemoryRegions.register(table, PD, shared, Access.LOCAL_WRITE | Access.FLUSH_PERSISTENT);
            assertThat(r.flush(PD, Access.FLUSH_PERSISTENT, shared.address(), 64 * KIB)).isEqualTo(MemStatus.OK);
            r.close();
            MemorySegment priv = ch.map(java.nio.channels.FileChannel.MapMode.PRIVATE, 0, 64 * KIB, arena);
            assertThat(errnoOf(() -> MemoryRegions.register(table, PD, priv, Access.FLUSH_PERSISTENT)))
                    .as("a private mapping never reaches the file").isEqualTo(Errno.EINVAL);
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
        Region implicit = MemoryRegions.registerImplicit(table, PD, Access.ON_DEMAND | Access.FLUSH_PERSISTENT);
        assertThat(implicit.access() & Access.FLUSH_PERSISTENT).isNotZero();
    }

    @Test
    void shouldAcceptEverySupportedBit() {
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC
                | Access.MW_BIND | Access.FLUSH_GLOBAL;
        assertThat(MemoryRegions.register(table, PD, mem, access).kind()).isEqualTo(RegionKind.PINNED);
        Region odp = MemoryRegions.register(table, PD, mem, access | Access.ON_DEMAND | Access.HUGETLB);
        assertThat(odp.kind()).isEqualTo(RegionKind.ODP);
        assertThat(odp.rkey()).isEqualTo(odp.lkey());
    }

    @Test
    void shouldGiveNoRkeyWithoutRemoteAccess() {
        Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
        assertThat(r.rkey()).isZero();
        assertThat(r.lkey()).isEqualTo(r.key());
    }

    @Test
    void shouldRejectImplicitWithNonZeroIova() {
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, 0, -1L, 0x1000, Access.ON_DEMAND)))
                .isEqualTo(Errno.EINVAL);
    }

    @Test
    void shouldRejectWholeAddressSpaceWithoutOnDemand() {
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, 0, -1L, 0, Access.LOCAL_WRITE)))
                .isEqualTo(Errno.EINVAL);
    }

    @Test
    void shouldRejectHugetlbOutsideExplicitOdp() {
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, 0, -1L, 0, Access.ON_DEMAND | Access.HUGETLB)))
                .isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, mem, Access.HUGETLB))).isEqualTo(Errno.EINVAL);
    }

    @Test
    void shouldRejectBadRanges() {
        long a = mem.address();
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, a, 0, a, Access.ON_DEMAND))).isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, a, -2L, a, Access.ON_DEMAND)))
                .isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, a, 4096, a + 8, Access.ON_DEMAND)))
                .isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, a, 4096, -4096L, Access.ON_DEMAND)))
                .isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, AccessRules.USER_END, 4096, 0, Access.ON_DEMAND)))
                .isEqualTo(Errno.EFAULT);
        assertThat(table.size()).isZero();
    }

    @Test
    void shouldAcceptAnIovaThatDiffersFromTheAddressInWholePages() {
        Region r = MemoryRegions.register(table, PD, mem.address(), mem.byteSize(), 0x10000, Access.LOCAL_WRITE);
        assertThat(r.start()).isEqualTo(0x10000);
        assertThat(r.address()).isEqualTo(mem.address());
        assertThat(r.check(PD, 0, 0x10000, mem.byteSize())).isEqualTo(MemStatus.OK);
        assertThat(r.check(PD, 0, mem.address(), 8)).isEqualTo(MemStatus.OUT_OF_RANGE);
    }

    @Test
    void shouldFailPinningUnmappedMemoryWithEfaultAndLeakNothing() {
        long hole = TestSupport.unmappedAddress(64 * KIB);
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, hole, 64 * KIB, hole, Access.LOCAL_WRITE)))
                .isEqualTo(Errno.EFAULT);
        assertThat(table.size()).isZero();
        assertThat(table.counters().pinnedBytes()).isZero();
        assertThat(PinLedger.count(hole)).isZero();
    }

    @Test
    void shouldFailPinningReadOnlyMemoryForWritingWithEfault() {
        long addr = TestSupport.rawMap(64 * KIB);
        try {
            assertThat(Mem.mprotect(addr, 64 * KIB, Mem.PROT_READ)).isZero();
            assertThat(errnoOf(() -> MemoryRegions.register(table, PD, addr, 64 * KIB, addr, Access.LOCAL_WRITE)))
                    .isEqualTo(Errno.EFAULT);
            Region readOnly = MemoryRegions.register(table, PD, addr, 64 * KIB, addr, Access.REMOTE_READ);
            assertThat(readOnly.kind()).isEqualTo(RegionKind.PINNED);
            readOnly.close();
        } finally {
            Mem.munmap(addr, 64 * KIB);
        }
    }

    @Test
    void shouldRegisterOdpOverUnmappedMemoryLikeTheKernel() {
        long hole = TestSupport.unmappedAddress(64 * KIB);
        Region r = MemoryRegions.register(table, PD, hole, 64 * KIB, hole, Access.LOCAL_WRITE | Access.ON_DEMAND);
        assertThat(r.read(hole, MemorySegment.ofArray(new byte[16]), 0, 16)).isEqualTo(MemStatus.FAULT);
    }

    @Test
    void shouldRejectHeapAndReadOnlyWritableSegments() {
        assertThat(errnoOf(() -> MemoryRegions.register(table, PD, MemorySegment.ofArray(new byte[64]), 0)))
                .isEqualTo(Errno.EINVAL);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment ro = arena.allocate(4096).asReadOnly();
            assertThat(errnoOf(() -> MemoryRegions.register(table, PD, ro, Access.LOCAL_WRITE))).isEqualTo(Errno.EFAULT);
            assertThat(MemoryRegions.register(table, PD, ro, Access.REMOTE_READ).kind()).isEqualTo(RegionKind.PINNED);
        }
    }

    @Test
    void shouldFailWithEnomemAtThePinLimitAndLeakNothing() {
        KeyTable limited = new KeyTable(MemoryConfig.fromConfiguration().withPinLimitBytes(32 * KIB));
        assertThat(errnoOf(() -> MemoryRegions.register(limited, PD, mem, Access.LOCAL_WRITE))).isEqualTo(Errno.ENOMEM);
        assertThat(limited.size()).isZero();
        assertThat(limited.counters().pinnedBytes()).isZero();
        assertThat(PinLedger.count(mem.address())).isZero();
        Region small = MemoryRegions.register(limited, PD, mem.asSlice(0, 32 * KIB), Access.LOCAL_WRITE);
        assertThat(limited.counters().pinnedBytes()).isEqualTo(32 * KIB);
        small.close();
        assertThat(limited.counters().pinnedBytes()).isZero();
    }

    @Test
    void shouldNotCountOdpAgainstThePinLimit() {
        KeyTable limited = new KeyTable(MemoryConfig.fromConfiguration().withPinLimitBytes(0));
        MemorySegment big = NativeMemory.map(64 * MIB);
        try {
            Region r = MemoryRegions.register(limited, PD, big, Access.LOCAL_WRITE | Access.ON_DEMAND);
            assertThat(r.kind()).isEqualTo(RegionKind.ODP);
            r.close();
        } finally {
            NativeMemory.unmap(big);
        }
    }

    private static int parse(String flags) {
        int access = 0;
        for (String f : flags.split("\\|")) {
            access |= switch (f.trim()) {
                case "LOCAL_WRITE" -> Access.LOCAL_WRITE;
                case "REMOTE_WRITE" -> Access.REMOTE_WRITE;
                case "REMOTE_READ" -> Access.REMOTE_READ;
                case "REMOTE_ATOMIC" -> Access.REMOTE_ATOMIC;
                case "NONE" -> 0;
                default -> throw new IllegalArgumentException(f);
            };
        }
        return access;
    }
}
