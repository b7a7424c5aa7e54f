package dev.jrxe.tools;

import dev.jrxe.memory.RegionKind;
import dev.jrxe.memory.MemoryConfig;

import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RegistrationBenchmarkTest {
    @Test
    void shouldProduceOneRowPerKindAndSizeWithOrderedStatistics() {
        List<String> progress = new java.util.ArrayList<>();
        List<RegistrationBenchmark.Row> rows = RegistrationBenchmark.run(RegistrationBenchmark.Options.defaults()
                .withSizes(4096, 1 << 20).withRuns(5).withJitWarmup(20).withProgress(progress::add));
        assertThat(rows).extracting(RegistrationBenchmark.Row::kind)
                .containsExactly("pinned", "pinned", "odp", "odp", "implicit", "implicit");
        for (RegistrationBenchmark.Row r : rows) {
            assertThat(r.runs()).isEqualTo(5);
            assertThat(r.failures()).isZero();
            assertThat(r.minNs()).isPositive();
            assertThat(r.minNs()).isLessThanOrEqualTo(r.medianNs());
            assertThat(r.medianNs()).isLessThanOrEqualTo(r.p95Ns());
            assertThat(r.p95Ns()).isLessThanOrEqualTo(r.p99Ns());
            assertThat(r.p99Ns()).isLessThanOrEqualTo(r.maxNs());
            assertThat(r.rssDuringKib()).isPositive();
            assertThat(r.csv().split(",")).hasSize(RegistrationBenchmark.CSV_HEADER.split(",").length);
        }
        assertThat(progress).isNotEmpty();
    }

    @Test
    void shouldShowPinningPopulateUntouchedMemoryByDefaultAndNotWhenTouchedFirst() {
        long size = 64L << 20;
        List<RegistrationBenchmark.Row> untouched = RegistrationBenchmark.run(RegistrationBenchmark.Options.defaults()
                .withSizes(size).withRuns(3).withJitWarmup(5)
                .withKinds(EnumSet.of(RegionKind.PINNED, RegionKind.IMPLICIT_ODP)));
        long pinnedGrowth = untouched.get(0).rssDuringKib() - untouched.get(0).rssBeforeKib();
        long implicitGrowth = untouched.get(1).rssDuringKib() - untouched.get(1).rssBeforeKib();
        // 64 MiB = 65536 KiB pinned while registered; the implicit region populates nothing
        assertThat(pinnedGrowth).as("untouched: pinning populates the region").isGreaterThan(48 * 1024);
        assertThat(implicitGrowth).isLessThan(16 * 1024);
        List<RegistrationBenchmark.Row> touched = RegistrationBenchmark.run(RegistrationBenchmark.Options.defaults()
                .withSizes(size).withRuns(3).withJitWarmup(5).withKinds(EnumSet.of(RegionKind.PINNED))
                .withTouchPinned(true));
        assertThat(touched.get(0).rssDuringKib() - touched.get(0).rssBeforeKib())
                .as("touched first (the RFC's method): the pages were there before").isLessThan(16 * 1024);
        assertThat(touched.get(0).rssBeforeKib()).as("and RSS already holds them").isGreaterThan(48 * 1024);
    }

    @Test
    void shouldRecordFailuresWithTheirErrno() {
        List<RegistrationBenchmark.Row> rows = RegistrationBenchmark.run(RegistrationBenchmark.Options.defaults()
                .withSizes(64 * 1024).withRuns(3).withJitWarmup(20).withKinds(EnumSet.of(RegionKind.PINNED, RegionKind.IMPLICIT_ODP))
                .withConfig(MemoryConfig.fromConfiguration().withPinLimitBytes(4096)));
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0).kind()).isEqualTo("pinned");
        assertThat(rows.get(0).failures()).isEqualTo(3);
        assertThat(rows.get(0).errno()).isEqualTo(dev.jrxe.ib.Errno.ENOMEM);
        assertThat(rows.get(1).failures()).isZero();
        assertThat(rows.get(1).errno()).isZero();
    }

    @Test
    void shouldReadTheResidentSetSize() {
        long statm = RegistrationBenchmark.rssKib();
        long status = vmRssKib();
        assertThat(statm).isPositive();
        assertThat((double) statm).isCloseTo(status, org.assertj.core.data.Percentage.withPercentage(10));
    }

    @Test
    void shouldTakeNearestRankPercentiles() {
        assertThat(RegistrationBenchmark.rank(new long[]{1, 2, 3, 4}, 0.5)).isEqualTo(2);
        assertThat(RegistrationBenchmark.rank(new long[]{1, 2, 3, 4}, 0.99)).isEqualTo(4);
        assertThat(RegistrationBenchmark.rank(new long[]{1, 2, 3, 4}, 0)).isEqualTo(1);
        assertThat(RegistrationBenchmark.rank(new long[0], 0.5)).isZero();
    }

    @Test
    void shouldMeasureEveryAccessPath() {
        List<RegistrationBenchmark.CopyRow> rows = RegistrationBenchmark.copyCosts(new long[]{4096}, 200);
        assertThat(rows).extracting(RegistrationBenchmark.CopyRow::path)
                .containsExactly("direct", "direct", "scoped", "scoped", "kernel", "kernel");
        assertThat(rows).allSatisfy(r -> assertThat(r.nsPerCopy()).isPositive());
        assertThat(RegistrationBenchmark.firstTouch(4)).hasSize(2);
    }

    /** VmRSS from /proc/self/status, the second source the statm reading is checked against. */
    private static long vmRssKib() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new IllegalStateException("VmRSS not found");
    }
}
