package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** perftest's duration mode (-D) for the latency tests: the clock, the table, and each test between two processes. */
class PerftestLatencyDurationTest {
    private static final String HEADER = " #bytes        #iterations       t_avg[usec]    tps average";

    @Test
    void shouldMeasureBetweenTheMarginsOfTheDuration() {
        PerftestWindow w = new PerftestWindow(4_000, 1_000, false);
        w.count(1_000);
        assertThat(w.started()).isFalse();
        assertThat(w.over(1_000_000)).as("not started").isFalse();
        assertThat(w.measuring(2_500)).as("not started").isFalse();
        w.start(1_000);
        w.start(1_500); // started once: the second call does nothing
        for (long t : new long[] {1_999, 2_000, 3_999, 4_000, 4_999}) {
            w.count(t);
        }
        assertThat(w.counted()).as("2000 and 3999: inside [start + margin, start + duration - margin)").isEqualTo(2);
        assertThat(w.measuredNanos()).isEqualTo(2_000);
        assertThat(w.over(4_999)).isFalse();
        assertThat(w.over(5_000)).as("the run ends after the duration, not after a margin more").isTrue();
        assertThat(w.cpuPercent()).isNaN();
        assertThatThrownBy(() -> new PerftestWindow(2_000, 1_000, false)).as("perftest: DURATION > 2*MARGIN")
            .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest(name = "-D {0}: margin {1} s")
    @CsvSource({"1, 0", "2, 0", "3, 0", "4, 1", "5, 1", "7, 1", "8, 2", "10, 2"})
    void shouldTakePerftestsMarginOfAQuarterRoundedDownToWholeSeconds(int seconds, long marginSeconds) {
        // force_dependecies: margin = duration / 4 (ints); catch_alarm runs margin, duration - 2 margin, margin
        assertThat(PerftestWindow.marginNanos(seconds)).isEqualTo(marginSeconds * 1_000_000_000L);
        PerftestWindow w = PerftestWindow.ofSeconds(seconds, false);
        assertThat(w.measuredNanos()).isEqualTo((seconds - 2 * marginSeconds) * 1_000_000_000L);
        w.start(0);
        assertThat(w.over(seconds * 1_000_000_000L - 1)).isFalse();
        assertThat(w.over(seconds * 1_000_000_000L)).isTrue();
        assertThat(w.measuring(marginSeconds * 1_000_000_000L)).isTrue();
        assertThat(w.measuring((seconds - marginSeconds) * 1_000_000_000L)).isFalse();
    }

    @Test
    void shouldPrintTheDurationTableAsPerftestDoes() {
        StringWriter s = new StringWriter();
        PrintWriter o = new PrintWriter(s);
        PerftestOutput.latDurationHeader(o, false);
        // 1000 round trips of WRITEs in 0.5 s: 250 usec one way, 2000 per second
        PerftestOutput.latDurationRow(o, 2, 1000, 500_000_000L, 2, Double.NaN);
        PerftestOutput.latDurationHeader(o, true);
        PerftestOutput.latDurationRow(o, 2, 1000, 500_000_000L, 1, 12.5);
        o.flush();
        assertThat(s.toString().lines().toList()).containsExactly(
            HEADER,
            " 2      " + "       1000" + "            250.00 " + "        2000.00",
            HEADER + "    CPU_Util[%]",
            " 2      " + "       1000" + "            500.00 " + "        2000.00" + "\t    12.50");
    }

    @ParameterizedTest
    @EnumSource(value = PerftestTest.class, names = {"WRITE_LAT", "READ_LAT", "SEND_LAT"})
    void shouldRunALatencyTestForADurationWithEveryByteChecked(PerftestTest test) throws Exception {
        List<List<String>> out = PerftestPair.run("perftest " + test.command, "-D", "2", "--check", "--cpu_util");
        List<String> client = out.get(1);
        // the READ server only waits: the others measure on both sides, each on its own clock
        List<List<String>> measured = test == PerftestTest.READ_LAT ? List.of(client) : out;
        for (List<String> side : measured) {
            assertThat(side).as("%s", side).contains(HEADER + "    CPU_Util[%]");
            String[] f = PerftestPair.row(side, " 2 ").trim().split("\\s+");
            assertThat(Long.parseLong(f[1])).as("iterations in the measured second: %s", side).isPositive();
            assertThat(Double.parseDouble(f[2])).as("t_avg").isPositive();
            assertThat(Double.parseDouble(f[3])).as("tps").isPositive();
            assertThat(Double.parseDouble(f[4])).as("CPU_Util").isBetween(0.0, 100.0);
            assertThat(side).as("%s", side).anyMatch(l -> l.startsWith(" data check: ") && l.endsWith("as the peer sent them"));
        }
    }
}
