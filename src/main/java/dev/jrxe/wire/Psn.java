package dev.jrxe.wire;

/**
 * 24-bit packet sequence number arithmetic with wrap-around. Comparisons use the signed distance
 * in 24 bits, so they are meaningful for PSNs less than 2^23 apart (IBTA 9.7.1).
 */
public final class Psn {
    private Psn() {
    }

    public static final int MASK = 0xFFFFFF;
    /** Half the PSN space: the largest forward distance {@link #diff} reports as positive, plus one. */
    public static final int HALF = 1 << 23;

    /** The wire PSN (low 24 bits) of an extended PSN that counts on past 2^24. */
    public static int of(long extended) {
        return (int) extended & MASK;
    }

    /**
     * The extended PSN that {@code psn} stands for in a window of extended PSNs starting at
     * {@code from}: the first value at or after {@code from} whose low 24 bits are {@code psn}.
     */
    public static long extend(int psn, long from) {
        return from + ((psn - (int) from) & MASK);
    }

    /** {@code psn + n} modulo 2^24 ({@code n} may be negative). */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** {@code psn + 1} modulo 2^24. */
    public static int next(int psn) {
        return (psn + 1) & MASK;
    }

    /**
     * Signed distance {@code a - b} in 24 bits, in {@code [-2^23, 2^23)}: positive when {@code a}
     * is after {@code b}.
     */
    public static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /** Negative, zero or positive as {@code a} is before, equal to or after {@code b}. */
    public static int compare(int a, int b) {
        return Integer.signum(diff(a, b));
    }

    public static boolean isBefore(int a, int b) {
        return diff(a, b) < 0;
    }

    public static boolean isAfter(int a, int b) {
        return diff(a, b) > 0;
    }

    /** Whether {@code psn} fits in 24 bits. */
    public static boolean isValid(int psn) {
        return (psn & ~MASK) == 0;
    }
}
