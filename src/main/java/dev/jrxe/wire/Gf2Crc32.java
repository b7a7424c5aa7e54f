package dev.jrxe.wire;

/**
 * Polynomial arithmetic modulo the CRC-32 (IEEE 802.3) generator P(x), in the reflected bit order
 * {@link java.util.zip.CRC32} uses: bit 31 holds the coefficient of x^0, bit 0 that of x^31.
 * Used by {@link Icrc} to solve for the IPv4 Identification.
 */
final class Gf2Crc32 {
    private Gf2Crc32() {
    }

    /** P(x) without its x^32 term, reflected. */
    static final int POLY = 0xEDB88320;
    /** The polynomial 1. */
    static final int ONE = 1 << 31;
    /** The polynomial x. */
    static final int X = 1 << 30;
    /**
     * x^-1 mod P. P(0) = 1, so x * (P(x) - 1) / x = P(x) - 1 = 1 (mod P): the inverse is P without
     * its constant term, divided by x. Reflected, dividing by x shifts left, and x^32 becomes x^31
     * (bit 0).
     */
    static final int X_INVERSE = ((POLY & ~ONE) << 1) | 1;

    /**
     * What the four bits shifted out of a register (bits 3..0: x^28..x^31) contribute once the
     * register is multiplied by x^4: their multiple of x^32, reduced mod P.
     */
    private static final int[] TIMES_X4 = new int[16];

    static { // (before INVERSE_POW2, whose initialiser multiplies)
        for (int n = 0; n < 16; n++) {
            int r = n;
            for (int k = 0; k < 4; k++) {
                r = timesX(r);
            }
            TIMES_X4[n] = r;
        }
    }

    /** (x^-1)^(2^k) mod P, for k = 0..62. */
    private static final int[] INVERSE_POW2 = new int[63];

    static {
        INVERSE_POW2[0] = X_INVERSE;
        for (int k = 1; k < INVERSE_POW2.length; k++) {
            INVERSE_POW2[k] = multiply(INVERSE_POW2[k - 1], INVERSE_POW2[k - 1]);
        }
    }

    /** a(x) * b(x) mod P. */
    static int multiply(int a, int b) {
        // Horner over a's nibbles, highest degrees (lowest bits) first: p = p * x^4 + n(x) * b,
        // with b, bx, bx^2, bx^3 selected by masks. Without the branch on each of a's 32 bits,
        // which a random syndrome mispredicts half the time: 18 against 38 ns per solve here.
        int b1 = timesX(b);
        int b2 = timesX(b1);
        int b3 = timesX(b2);
        int p = 0;
        for (int shift = 0; shift < 32; shift += 4) {
            int n = a >>> shift; // bit 3: the nibble's lowest degree, bit 0: its highest
            p = (p >>> 4) ^ TIMES_X4[p & 0xF];
            p ^= (b & -((n >>> 3) & 1)) ^ (b1 & -((n >>> 2) & 1)) ^ (b2 & -((n >>> 1) & 1)) ^ (b3 & -(n & 1));
        }
        return p;
    }

    /** b(x) * x mod P. */
    static int timesX(int b) {
        return (b >>> 1) ^ (POLY & -(b & 1));
    }

    /** x^-n mod P, for n >= 0. */
    static int inversePower(long n) {
        int result = ONE;
        for (int k = 0; n != 0; k++, n >>>= 1) {
            if ((n & 1) != 0) {
                result = multiply(result, INVERSE_POW2[k]);
            }
        }
        return result;
    }
}
