package dev.jrxe.tools;

import org.HdrHistogram.Histogram;

/**
 * One size's round trips of a ping-pong benchmark, kept as they come and put in a histogram
 * once the loop is over: the measured loop stores one number per round trip and takes no branch
 * that changes at the warm-up's end. It recorded into a histogram from the warm-up's end on, and
 * both that test of the round trip's index and the histogram's rare paths (a new minimum or
 * maximum) were branches the JIT had compiled as never taken: when one was taken, the compiled
 * loop, with the whole inlined jrxe path, was thrown away, and its round trips ran interpreted
 * while the compiler threads took a core from the two busy processes. jrxe's 4 KiB figures then
 * carried 30-95 ms of stalls of 0.2-12 ms each in their first 2,000 measured round trips.
 */
final class RoundTripRecorder {
    private final long[] nanos;
    private final int warmup;

    /** Room for {@code iters} measured round trips (the warm-up's all land in the first slot, then overwritten). */
    RoundTripRecorder(int warmup, int iters) {
        this.warmup = warmup;
        this.nanos = new long[iters];
    }

    /** Round trip {@code i} (from 0, the warm-up's first) took {@code rttNanos}. */
    void record(int i, long rttNanos) {
        nanos[Math.max(i - warmup, 0)] = rttNanos; // (a conditional move, not a branch)
    }

    /** The measured round trips (those after the warm-up), each capped at the histogram's range. */
    Histogram measured() {
        Histogram h = new Histogram(BenchPingpongCommand.HIGHEST_NANOS, 3);
        for (long n : nanos) {
            h.recordValue(Math.min(n, BenchPingpongCommand.HIGHEST_NANOS));
        }
        return h;
    }
}
