package dev.jrxe.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * perftest's {@code --cpu_util}: how busy the machine's CPUs were over the measured seconds of a
 * duration run, from the first line of {@code /proc/stat} read when they begin and when they end,
 * as perftest 4.5's get_cpu_stats and calc_cpu_util compute it (src/perftest_resources.c,
 * src/perftest_parameters.c): {@code 100 * user / (user + idle)} from the line's user and idle
 * fields alone, all CPUs together (so 50% on 2 cores is one core's worth of user time). A thread
 * of its own takes the two readings at their times, off the traffic loop.
 */
final class PerftestCpuUtil {
    private static final Path STAT = Path.of("/proc/stat");
    private final Thread sampler;
    private volatile double percent = Double.NaN;

    private PerftestCpuUtil(long startNanos, long endNanos) {
        sampler = Thread.ofPlatform().daemon().name("perftest-cpu-util").start(() -> {
            sleepUntil(startNanos);
            long[] a = read();
            sleepUntil(endNanos);
            long[] b = read();
            if (a != null && b != null) {
                long user = b[0] - a[0];
                long idle = b[1] - a[1];
                percent = user + idle != 0 ? 100.0 * user / (user + idle) : 0;
            }
        });
    }

    /** Samples at {@code startNanos} and {@code endNanos} ({@link System#nanoTime()}). */
    static PerftestCpuUtil between(long startNanos, long endNanos) {
        return new PerftestCpuUtil(startNanos, endNanos);
    }

    /** The utilization in percent once the window has ended (waits for it), NaN when /proc/stat could not be read. */
    double percent() {
        try {
            sampler.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return percent;
    }

    private static void sleepUntil(long t) {
        long left;
        while ((left = t - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    /** {user, idle} jiffies of all CPUs, or null. */
    static long[] read() {
        try {
            String first = Files.readAllLines(STAT).get(0);
            return parse(first);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {user, idle} of a {@code cpu  user nice system idle ...} line: its second and fifth words, as perftest reads them. */
    static long[] parse(String cpuLine) {
        String[] f = cpuLine.trim().split("\\s+");
        if (!f[0].equals("cpu") || f.length < 5) {
            throw new IllegalArgumentException("not /proc/stat's cpu line: " + cpuLine);
        }
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[4])};
    }
}
