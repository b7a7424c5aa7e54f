package dev.jrxe.tools;

import java.util.List;

/**
 * What one ping-pong benchmark run does, shared by the initiator and the responder process: message
 * sizes in order, and per size {@code warmup} unrecorded then {@code iters} recorded round trips.
 */
record PingpongPlan(List<Integer> sizes, int warmup, int iters) {
    /** Most round trips of either kind per size: the initiator keeps every measured one (8 bytes each). */
    static final int MAX_ITERS = 10_000_000;

    PingpongPlan {
        sizes = List.copyOf(sizes);
        if (sizes.isEmpty() || warmup < 0 || iters < 1 || warmup > MAX_ITERS || iters > MAX_ITERS) {
            throw new IllegalArgumentException("need sizes, 0 <= warmup <= " + MAX_ITERS + " and 1 <= iters <= " + MAX_ITERS);
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
