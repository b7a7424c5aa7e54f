package dev.jrxe.memory;

import dev.jrxe.sys.Mem;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Helpers shared by the memory tests. */
final class TestSupport {
    static final long KIB = 1024;
    static final long MIB = 1024 * KIB;
    static final long GIB = 1024 * MIB;
    static final int PD = 7;

    private TestSupport() {
    }

    /** A clock the test moves by hand. */
    static final class ManualClock implements LongSupplier {
        private final AtomicLong now = new AtomicLong(1_000_000_000L);

        @Override
        public long getAsLong() {
            return now.get();
        }

        void advance(long nanos) {
            now.addAndGet(nanos);
        }
    }

    static KeyTable table() {
        return new KeyTable(MemoryConfig.fromConfiguration());
    }

    /** A field of /proc/self/status in KiB (VmRSS, VmLck). */
    /**
     * KiB locked (mlock) in {@code [addr, addr+len)}, summed from the "Locked:" lines of the
     * mappings /proc/self/smaps lists there. Unlike VmLck this sees only that range, so other
     * activity of the JVM cannot change it.
     */
    static long lockedKib(long addr, long len) {
        long end = addr + len;
        long sum = 0;
        boolean inRange = false;
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/smaps"))) {
                int dash = line.indexOf('-');
                int space = line.indexOf(' ');
                if (dash > 0 && space > dash && line.substring(0, dash).matches("[0-9a-f]+")) {
                    long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
                    long stop = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
                    inRange = start < end && stop > addr;
                } else if (inRange && line.startsWith("Locked:")) {
                    sum += Long.parseLong(line.substring(7).trim().split("\\s+")[0]);
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return sum;
    }

    static long lockedKib(MemorySegment s) {
        return lockedKib(s.address(), s.byteSize());
    }

    static long statusKib(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException(field + " not found");
    }

    static long resident(MemorySegment segment) {
        long r = Mem.residentPages(segment.address(), segment.byteSize());
        assertThat(r).isGreaterThanOrEqualTo(0);
        return r;
    }

    /** Raw anonymous memory jrxe does not own (as an application's own mmap would be). */
    static long rawMap(long length) {
        long addr = Mem.mmap(0, length, Mem.PROT_READ | Mem.PROT_WRITE,
                Mem.MAP_PRIVATE | Mem.MAP_ANONYMOUS | Mem.MAP_NORESERVE, -1, 0);
        assertThat(addr).isPositive();
        return addr;
    }

    /** An address range that is certainly not mapped (mapped, then unmapped). */
    static long unmappedAddress(long length) {
        long addr = rawMap(length);
        assertThat(Mem.munmap(addr, length)).isZero();
        return addr;
    }

    static int errnoOf(Runnable action) {
        MemoryException e = catchThrowableOfType(MemoryException.class, action::run);
        assertThat(e).as("expected a MemoryException").isNotNull();
        return e.errno();
    }
}
