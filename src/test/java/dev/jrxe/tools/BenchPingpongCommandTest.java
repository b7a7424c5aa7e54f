package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code jrxe bench pingpong}, run for real with few iterations; only the shape of the report is checked. */
class BenchPingpongCommandTest {
    @Test
    void shouldReportRawAndRcRoundTripsPerSizeWithRatios() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute("bench", "pingpong", "--iters", "300", "--warmup", "100", "--sizes", "4096,8",
            "--rounds", "2", "--timeout", "120", "--verbose");
        String text = out.toString();
        assertThat(rc).as("%s%n%s", text, err).isZero();
        List<String> lines = text.lines().toList();
        assertThat(lines.get(0)).startsWith("jrxe bench pingpong: two processes (127.0.0.2 <-> 127.0.0.3)")
            .contains("300 round trips measured after 100 warm-up").contains("2 rounds");
        String number = "\\s+\\d+\\.\\d\\d";
        String ratio = "\\s+\\d+\\.\\d\\dx";
        String figures = number.repeat(6) + ratio.repeat(2);
        for (String round : List.of("1", "2", "median")) {
            assertThat(lines).anyMatch(l -> l.matches("\\s*" + round + "\\s+4096" + figures));
            assertThat(lines).anyMatch(l -> l.matches("\\s*" + round + "\\s+8" + figures));
        }
        assertThat(lines).anyMatch(l -> l.startsWith("initiator counters:") && l.contains("rdma_sends=800"));
        assertThat(lines).anyMatch(l -> l.startsWith("responder counters:") && l.contains("rdma_recvs=800"));
    }

    @Test
    void shouldCarryResultsAsOneLine() {
        Histogram h = new Histogram(BenchPingpongCommand.HIGHEST_NANOS, 3);
        for (int i = 1; i <= 100; i++) {
            h.recordValue(i * 1000L);
        }
        LatencyResult r = LatencyResult.of("rc", 4096, h);
        assertThat(r.count()).isEqualTo(100);
        assertThat(r.medianNs()).isBetween(49_000L, 51_000L);
        assertThat(r.p99Ns()).isBetween(98_000L, 100_000L);
        LatencyResult back = LatencyResult.parse(r.line());
        assertThat(back).isNotNull();
        assertThat(back.mode()).isEqualTo("rc");
        assertThat(back.size()).isEqualTo(4096);
        assertThat(back.medianNs()).isEqualTo(r.medianNs());
        assertThat(back.p99Ns()).isEqualTo(r.p99Ns());
        assertThat(LatencyResult.parse("INFO x")).isNull();
    }

    @Test
    void shouldSummariseRoundsByTheirMedian() {
        assertThat(BenchPingpongCommand.median(new double[] {3, 1, 2})).isEqualTo(2);
        assertThat(BenchPingpongCommand.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
        assertThat(BenchPingpongCommand.median(new double[] {5, -1, 3})).as("a round without the figure").isEqualTo(-1);
    }

    @Test
    void shouldRejectPlansThatCannotRun() {
        assertThatThrownBy(() -> new PingpongPlan(List.of(), 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PingpongPlan(List.of(0), 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PingpongPlan(List.of(8), 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PingpongPlan(List.of(8), 0, PingpongPlan.MAX_ITERS + 1))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PingpongPlan(List.of(8), PingpongPlan.MAX_ITERS + 1, 1))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(new PingpongPlan(List.of(8, 4096), 10, 20).totalRoundTrips()).isEqualTo(60);
    }

    @Test
    void shouldRefuseMoreRoundTripsThanItKeepsAsABadCommandLine() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new PrintWriter(new StringWriter(), true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("bench", "pingpong", "--iters", "10000001")).isEqualTo(2);
        assertThat(err.toString()).contains("--iters must be 1..10000000");
        assertThat(cl.execute("bench", "pingpong", "--warmup", "10000001")).isEqualTo(2);
        assertThat(err.toString()).contains("--warmup must be 0..10000000");
    }
}
