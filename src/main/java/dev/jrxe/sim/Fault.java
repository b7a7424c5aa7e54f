package dev.jrxe.sim;

/**
 * What the simulated network does to one datagram, the {@code seq}-th sent in the run.
 *
 * @param seq   which datagram (0, 1, 2, ... in the order the devices sent them)
 * @param kind  {@link #DROP}, {@link #DUPLICATE}, {@link #DELAY} or {@link #CORRUPT}
 * @param value DELAY: extra nanoseconds in flight; CORRUPT: the bit flipped; else 0
 */
public record Fault(long seq, int kind, long value) {
    public static final int DROP = 1;
    public static final int DUPLICATE = 2;
    public static final int DELAY = 3;
    public static final int CORRUPT = 4;

    @Override
    public String toString() {
        return switch (kind) {
            case DROP -> "drop #" + seq;
            case DUPLICATE -> "duplicate #" + seq;
            case DELAY -> "delay #" + seq + " by " + value / 1000 + " us";
            default -> "corrupt #" + seq + " bit " + value;
        };
    }
}
