package dev.jrxe.tools;

/**
 * The clock of a latency test in duration mode (perftest's {@code -D} for ib_write_lat,
 * ib_read_lat and ib_send_lat): from {@link #start} the run lasts the duration, its first and
 * last quarter not measured (perftest's margin, which it rounds down to whole seconds), and the
 * iterations that complete in the half between are {@link #counted}. With {@code --cpu_util} the
 * CPUs are sampled over that half. Not thread safe: one traffic loop's.
 */
final class PerftestWindow {
    private final long durationNanos;
    private final boolean cpuUtil;
    private boolean started;
    private long measureFrom;
    private long measureUntil;
    private long stop;
    private long counted;
    private PerftestCpuUtil cpu;

    /** A window of {@code durationNanos} that starts with the first {@link #start}; {@code cpuUtil}: sample the CPUs. */
    PerftestWindow(long durationNanos, boolean cpuUtil) {
        this.durationNanos = durationNanos;
        this.cpuUtil = cpuUtil;
    }

    /** Starts the clock at {@code now} ({@link System#nanoTime()}) unless it runs already. */
    void start(long now) {
        if (started) {
            return;
        }
        started = true;
        long margin = durationNanos / 4;
        measureFrom = now + margin;
        measureUntil = now + durationNanos - margin;
        stop = now + durationNanos;
        if (cpuUtil) {
            cpu = PerftestCpuUtil.between(measureFrom, measureUntil);
        }
    }

    /** Whether the run is over at {@code now}: started, and the duration has passed. */
    boolean over(long now) {
        return started && now - stop >= 0;
    }

    /** One iteration completed at {@code now}: counted when that is inside the measured half. */
    void count(long now) {
        if (started && now - measureFrom >= 0 && now - measureUntil < 0) {
            counted++;
        }
    }

    /** The iterations completed in the measured half. */
    long counted() {
        return counted;
    }

    /** How long the measured half is, in nanoseconds. */
    long measuredNanos() {
        return durationNanos - 2 * (durationNanos / 4);
    }

    /** The CPUs' utilization over the measured half (waits for its end); NaN without --cpu_util. */
    double cpuPercent() {
        return cpu == null ? Double.NaN : cpu.percent();
    }
}
