package dev.jrxe.tools;

import dev.jrxe.verbs.CompletionChannel;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.CqEx;
import java.io.PrintWriter;

/**
 * rc_pingpong {@code -t}: completions read through the extended CQ (start_poll, at most one
 * next_poll, end_poll), and the spacing of the receive completions' time stamps, which the tool
 * prints after its run. The run and its warm-up ({@link HotPathWarmup}) poll through this one
 * class, so that the loop the run times is the one the warm-up compiled.
 */
final class PingpongTimestamps {
    private final long mask;
    private long max;
    private long min = 0xffffffffL;
    private long total;
    private long prev;
    private boolean last;
    private long iters;
    private long reads;

    /** @param mask the device's completion time stamp mask (where its clock wraps) */
    PingpongTimestamps(long mask) {
        this.mask = mask;
    }

    /**
     * Busy-polls {@code cq} (an extended CQ with completion time stamps) until the run is complete.
     *
     * @return 0 when it is; else the run failed (the reason printed)
     */
    int busyPoll(PingpongCompletions wcs, CompletionQueue cq, CompletionWatch watch) {
        while (wcs.running()) {
            if (!poll(wcs, cq, false, watch)) {
                return 1;
            }
        }
        return 0;
    }

    /**
     * {@code -e -t}: waits for each completion event of {@code cq} (an extended CQ with completion
     * time stamps), then reads it as {@link #poll} does after an event, until the run is complete.
     * Counts the events in {@code wcs} (the caller acknowledges them).
     *
     * @return 0 when the run is complete; else it failed (the reason printed)
     */
    int eventLoop(PingpongCompletions wcs, CompletionChannel channel, CompletionQueue cq, CompletionWatch watch)
            throws InterruptedException {
        while (wcs.running()) {
            if (!awaitAndPoll(wcs, channel, cq, watch)) {
                return 1;
            }
        }
        return 0;
    }

    /** One turn of {@link #eventLoop}: a method of its own, compiled within a warm-up episode. */
    private boolean awaitAndPoll(PingpongCompletions wcs, CompletionChannel channel, CompletionQueue cq,
                                 CompletionWatch watch) throws InterruptedException {
        return wcs.awaitEvent(channel, cq) && poll(wcs, cq, true, watch);
    }

    /**
     * One round: one completion from start_poll (busy polling until there is one unless
     * {@code afterEvent}), at most one more from next_poll, each handed to {@code wcs}. False
     * when the run must end (the reason printed); true after an event that brought nothing.
     */
    boolean poll(PingpongCompletions wcs, CompletionQueue cq, boolean afterEvent, CompletionWatch watch) {
        CqEx x = cq.ex();
        boolean got;
        do {
            got = x.startPoll();
        } while (!afterEvent && !got && watch.keepPolling());
        if (!got) {
            return afterEvent;
        }
        boolean ok = complete(wcs, x);
        if (ok && x.nextPoll()) {
            ok = complete(wcs, x);
        }
        x.endPoll();
        return ok;
    }

    private boolean complete(PingpongCompletions wcs, CqEx x) {
        long wrId = x.wrId();
        long ts = x.readCompletionTs();
        reads++;
        if (!wcs.complete(wrId, x.status(), 0)) {
            return false;
        }
        if (wrId == PingpongCommand.RECV_WRID) {
            if (last) {
                // a wrapped clock counts on from the mask
                long delta = Long.compareUnsigned(ts, prev) >= 0 ? ts - prev : mask - prev + ts + 1;
                max = Long.compareUnsigned(delta, max) > 0 ? delta : max;
                min = Long.compareUnsigned(delta, min) < 0 ? delta : min;
                total += delta;
                iters++;
            }
            prev = ts;
            last = true;
        }
        return true;
    }

    /** Completions read with their time stamps so far. */
    long reads() {
        return reads;
    }

    /** rc_pingpong's three lines, when it measured any spacing. */
    void print(PrintWriter out) {
        if (iters > 0) {
            out.printf("Max receive completion clock cycles = %s%n", Long.toUnsignedString(max));
            out.printf("Min receive completion clock cycles = %s%n", Long.toUnsignedString(min));
            out.printf("Average receive completion clock cycles = %f%n", (double) total / iters);
        }
    }
}
