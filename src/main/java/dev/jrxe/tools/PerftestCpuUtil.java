package dev.jrxe.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * perftest's {@code --cpu_util}: how busy the machine's CPUs were over the measured seconds of a
 * duration run, from the first line of {@code /proc/stat} read when they begin and when they end:
 * {@code 100 * busy / (busy + idle)} with busy = user + nice + system (+ irq, softirq, steal) and
 * idle = idle + iowait, all CPUs together (so 50% on 2 cores is one core's worth). A thread of its
 * own takes the two readings at their times, off the traffic loop.
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
                long busy = b[0] - a[0];
                long idle = b[1] - a[1];
                percent = busy + idle > 0 ? 100.0 * busy / (busy + idle) : 0;
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

    /** {busy, idle} jiffies of all CPUs, or null. */
    static long[] read() {
        try {
            String first = Files.readAllLines(STAT).get(0);
            return parse(first);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {busy, idle} of a {@code cpu  user nice system idle iowait irq softirq steal ...} line. */
    static long[] parse(String cpuLine) {
        String[] f = cpuLine.trim().split("\\s+");
        if (!f[0].equals("cpu") || f.length < 5) {
            throw new IllegalArgumentException("not /proc/stat's cpu line: " + cpuLine);
        }
        long busy = 0;
        long idle = 0;
        for (int i = 1; i < Math.min(f.length, 9); i++) {
            long v = Long.parseLong(f[i]);
            if (i == 4 || i == 5) {
                idle += v; // idle, iowait
            } else {
                busy += v; // user, nice, system, irq, softirq, steal
            }
        }
        return new long[] {busy, idle};
    }
}
