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
        int product = 0;
        for (int bit = ONE; bit != 0; bit >>>= 1) { // coefficients of a from x^0 upwards
            if ((a & bit) != 0) {
                product ^= b;
            }
            b = (b >>> 1) ^ ((b & 1) != 0 ? POLY : 0); // b *= x
        }
        return product;
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
