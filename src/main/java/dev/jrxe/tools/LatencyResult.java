package dev.jrxe.tools;

import org.HdrHistogram.Histogram;

/**
 * Round-trip statistics of one mode and size, in nanoseconds; travels from the measuring child
 * process to the parent as one "RESULT ..." line.
 */
record LatencyResult(String mode, int size, long count, long medianNs, long p99Ns, double meanNs, long minNs,
                     long maxNs) {
    static final String PREFIX = "RESULT ";

    static LatencyResult of(String mode, int size, Histogram h) {
        return new LatencyResult(mode, size, h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(99),
            h.getMean(), h.getMinValue(), h.getMaxValue());
    }

    String line() {
        return PREFIX + mode + " " + size + " " + count + " " + medianNs + " " + p99Ns + " " + Math.round(meanNs) + " "
            + minNs + " " + maxNs;
    }

    /** Parses {@link #line()}; null when {@code line} is not a result. */
    static LatencyResult parse(String line) {
        if (!line.startsWith(PREFIX)) {
            return null;
        }
        String[] f = line.substring(PREFIX.length()).trim().split(" ");
        if (f.length != 8) {
            return null;
        }
        return new LatencyResult(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
            Long.parseLong(f[4]), Double.parseDouble(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]));
    }
}
