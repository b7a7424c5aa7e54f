package dev.jrxe.sim;

import java.util.function.LongSupplier;

/** Virtual nanoseconds: time passes only when the simulation moves it. */
public final class SimClock implements LongSupplier {
    private long now = 1_000_000_000L;

    @Override
    public long getAsLong() {
        return now;
    }

    /** Moves the clock to {@code t} (never back). */
    void advanceTo(long t) {
        if (t > now) {
            now = t;
        }
    }

    void advance(long nanos) {
        now += nanos;
    }
}
