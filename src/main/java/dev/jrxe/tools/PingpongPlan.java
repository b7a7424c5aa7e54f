package dev.jrxe.tools;

import java.util.List;

/**
 * What one ping-pong benchmark run does, shared by the initiator and the responder process: message
 * sizes in order, and per size {@code warmup} unrecorded then {@code iters} recorded round trips.
 */
record PingpongPlan(List<Integer> sizes, int warmup, int iters) {
    PingpongPlan {
        sizes = List.copyOf(sizes);
        if (sizes.isEmpty() || warmup < 0 || iters < 1) {
            throw new IllegalArgumentException("need sizes, warmup >= 0 and iters >= 1");
        }
        for (int s : sizes) {
            if (s < 1 || s > 65000) {
                throw new IllegalArgumentException("size " + s + " outside 1..65000");
            }
        }
    }

    int maxSize() {
        return sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    /** Round trips the responder answers in all. */
    long totalRoundTrips() {
        return (long) sizes.size() * (warmup + iters);
    }
}
