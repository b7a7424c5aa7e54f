package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RoundTripRecorderTest {
    @Test
    void shouldReportOnlyTheRoundTripsAfterTheWarmUp() {
        RoundTripRecorder r = new RoundTripRecorder(3, 2);
        r.record(0, 9_000_000);
        r.record(1, 9_000_000);
        r.record(2, 9_000_000);
        r.record(3, 1_000);
        r.record(4, 2_000);
        assertThat(r.measured().getTotalCount()).isEqualTo(2);
        assertThat(r.measured().getMaxValue()).isLessThan(3_000);
        assertThat(r.measured().getMinValue()).isGreaterThan(900);
    }

    @Test
    void shouldKeepOnlyTheMeasuredRoundTripsWhateverTheWarmUp() {
        RoundTripRecorder r = new RoundTripRecorder(1_000, 3);
        for (int i = 0; i < 1_000; i++) {
            r.record(i, 5_000_000 + i);
        }
        r.record(1_000, 1_000);
        r.record(1_001, 2_000);
        r.record(1_002, 3_000);
        assertThat(r.measured().getTotalCount()).isEqualTo(3);
        assertThat(r.measured().getMaxValue()).isLessThan(4_000);
    }

    @Test
    void shouldReportEveryRoundTripWithoutWarmUp() {
        RoundTripRecorder r = new RoundTripRecorder(0, 1);
        r.record(0, 1_000);
        assertThat(r.measured().getTotalCount()).isEqualTo(1);
    }

    @Test
    void shouldCapARoundTripAtTheHistogramsRange() {
        RoundTripRecorder r = new RoundTripRecorder(0, 1);
        r.record(0, Long.MAX_VALUE);
        assertThat(r.measured().getTotalCount()).isEqualTo(1);
        assertThat(r.measured().getMaxValue())
            .isEqualTo(r.measured().highestEquivalentValue(BenchPingpongCommand.HIGHEST_NANOS));
    }
}
