package dev.jrxe.verbs;

import java.util.concurrent.locks.LockSupport;

/**
 * What a polling thread does when a poll found no work, as Aeron's idle strategies: called with
 * the work the last poll did ({@code 0}: none), it may spin, yield or park, and {@link #reset}s
 * when work came. jrxe's own waits take one ({@link CompletionQueue#poll(WorkCompletion[], int,
 * IdleStrategy, long)}); an application's duty loop can call it the same way:
 *
 * <pre>{@code
 * IdleStrategy idle = IdleStrategy.backoff();
 * while (running) {
 *     int n = cq.poll(wc);          // also drives the device
 *     handle(wc, n);
 *     idle.idle(n);
 * }
 * }</pre>
 *
 * <p>Busy spinning gives the lowest latency and costs a core; on a machine with fewer cores than
 * busy threads, {@link #yielding()} or {@link #backoff()} let the others (the peer, the JIT) run.
 * An instance keeps per-thread state: one per polling thread.
 */
public interface IdleStrategy {
    /**
     * Called after a poll that did {@code workCount} units of work; idles when it was 0.
     *
     * @param workCount what the last poll did (completions taken, packets moved); 0 for nothing
     */
    void idle(int workCount);

    /** Work came: the next idle starts from its first, cheapest step. */
    default void reset() {
    }

    /** {@return a strategy that never gives up the CPU: {@link Thread#onSpinWait()} between polls, the lowest latency} */
    static IdleStrategy busySpin() {
        return work -> {
            if (work == 0) {
                Thread.onSpinWait();
            }
        };
    }

    /** {@return a strategy that calls {@link Thread#yield()} between empty polls, so other runnable threads get the CPU} */
    static IdleStrategy yielding() {
        return work -> {
            if (work == 0) {
                Thread.yield();
            }
        };
    }

    /**
     * Parks {@code nanos} after each empty poll: the least CPU, a latency of about that much.
     *
     * @param nanos how long each park lasts (positive)
     * @return the strategy
     * @throws IllegalArgumentException when {@code nanos} is not positive
     */
    static IdleStrategy sleeping(long nanos) {
        if (nanos <= 0) {
            throw new IllegalArgumentException("nanos " + nanos);
        }
        return work -> {
            if (work == 0) {
                LockSupport.parkNanos(nanos);
            }
        };
    }

    /** {@return {@link #backoff(int, int, long, long)} with 100 spins, 10 yields, then parks of 1 us doubling to 1 ms} */
    static IdleStrategy backoff() {
        return backoff(100, 10, 1_000, 1_000_000);
    }

    /**
     * Spins {@code spins} empty polls, then yields {@code yields}, then parks from
     * {@code minParkNanos}, doubling up to {@code maxParkNanos}; any work starts over (Aeron's
     * BackoffIdleStrategy).
     *
     * @param spins        empty polls that spin ({@link Thread#onSpinWait()}), 0 or more
     * @param yields       empty polls after those that yield, 0 or more
     * @param minParkNanos the first park (positive)
     * @param maxParkNanos the longest park, at least {@code minParkNanos}
     * @return a new strategy (it has state: one per polling thread)
     * @throws IllegalArgumentException for a negative count or a park range that is empty
     */
    static IdleStrategy backoff(int spins, int yields, long minParkNanos, long maxParkNanos) {
        if (spins < 0 || yields < 0 || minParkNanos <= 0 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("spins " + spins + ", yields " + yields + ", park "
                + minParkNanos + ".." + maxParkNanos);
        }
        return new Backoff(spins, yields, minParkNanos, maxParkNanos);
    }

    /** The state of {@link #backoff(int, int, long, long)}: how many empty polls so far, and the park. */
    final class Backoff implements IdleStrategy {
        private final int spins;
        private final int yields;
        private final long minPark;
        private final long maxPark;
        private int empty;
        private long park;

        Backoff(int spins, int yields, long minPark, long maxPark) {
            this.spins = spins;
            this.yields = yields;
            this.minPark = minPark;
            this.maxPark = maxPark;
            this.park = minPark;
        }

        @Override
        public void idle(int workCount) {
            if (workCount > 0) {
                reset();
                return;
            }
            if (empty < spins) {
                empty++;
                Thread.onSpinWait();
            } else if (empty < spins + yields) {
                empty++;
                Thread.yield();
            } else {
                LockSupport.parkNanos(park);
                park = Math.min(maxPark, park * 2);
            }
        }

        @Override
        public void reset() {
            empty = 0;
            park = minPark;
        }

        /** {@return the park the next empty poll makes, in nanoseconds; 0 while it still spins or yields} */
        public long currentParkNanos() {
            return empty < spins + yields ? 0 : park;
        }
    }
}
