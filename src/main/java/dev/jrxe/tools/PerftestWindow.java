package dev.jrxe.tools;

/**
 * The clock of perftest's duration mode ({@code -D}), the same for the BW and the latency tests
 * (perftest 4.5's catch_alarm, src/perftest_resources.c, and force_dependecies'
 * {@code margin = duration / 4}, src/perftest_parameters.c): from {@link #start} the run lasts
 * the duration; a margin at each end, a quarter of the duration rounded down to whole seconds
 * ({@link #marginNanos}), is not measured, and what completes in between is. With
 * {@code cpuUtil} the CPUs are sampled over the measured part. Once started, its times may be
 * read by several threads; {@link #count} and {@link #counted} are one traffic loop's.
 */
final class PerftestWindow {
    private final long durationNanos;
    private final long marginNanos;
    private final boolean cpuUtil;
    /** Written last by {@link #start}: who sees it true sees the times below. */
    private volatile boolean started;
    private long measureFrom;
    private long measureUntil;
    private long stop;
    private long counted;
    private volatile PerftestCpuUtil cpu;

    /** A window of {@code durationNanos} with {@code marginNanos} unmeasured at each end; {@code cpuUtil}: sample the CPUs. */
    PerftestWindow(long durationNanos, long marginNanos, boolean cpuUtil) {
        if (durationNanos <= 2 * marginNanos) {
            throw new IllegalArgumentException("the duration must be longer than its two margins"); // perftest's DURATION > 2*MARGIN
        }
        this.durationNanos = durationNanos;
        this.marginNanos = marginNanos;
        this.cpuUtil = cpuUtil;
    }

    /** perftest's window for {@code -D seconds}: its margin is {@link #marginNanos}. */
    static PerftestWindow ofSeconds(int seconds, boolean cpuUtil) {
        return new PerftestWindow(seconds * 1_000_000_000L, marginNanos(seconds), cpuUtil);
    }

    /** perftest's margin for {@code -D seconds}: {@code seconds / 4} in whole seconds (0 below 4 s). */
    static long marginNanos(int seconds) {
        return seconds / 4 * 1_000_000_000L;
    }

    /** Starts the clock at {@code now} ({@link System#nanoTime()}) unless it runs already. */
    synchronized void start(long now) {
        if (started) {
            return;
        }
        measureFrom = now + marginNanos;
        measureUntil = now + durationNanos - marginNanos;
        stop = now + durationNanos;
        if (cpuUtil) {
            cpu = PerftestCpuUtil.between(measureFrom, measureUntil);
        }
        started = true;
    }

    /** Whether {@link #start} was called. */
    boolean started() {
        return started;
    }

    /** Whether the run is over at {@code now}: started, and the duration has passed. */
    boolean over(long now) {
        return started && now - stop >= 0;
    }

    /** Whether {@code now} lies in the measured part: started, past the first margin and before the last. */
    boolean measuring(long now) {
        return started && now - measureFrom >= 0 && now - measureUntil < 0;
    }

    /** One iteration completed at {@code now}: counted when that is in the measured part. */
    void count(long now) {
        if (measuring(now)) {
            counted++;
        }
    }

    /** The iterations {@link #count} counted. */
    long counted() {
        return counted;
    }

    /** How long the measured part is, in nanoseconds: the duration less its two margins. */
    long measuredNanos() {
        return durationNanos - 2 * marginNanos;
    }

    /** The CPUs' utilization over the measured part (waits for its end); NaN without --cpu_util or before the start. */
    double cpuPercent() {
        PerftestCpuUtil c = cpu;
        return c == null ? Double.NaN : c.percent();
    }
}
