package dev.jrxe.transport;

import java.security.SecureRandom;

/**
 * The QP numbers of one engine. A QP gets a dense slot (1, 2, 3, ...: an array index for the
 * receive path) and its QPN is that slot put through a keyed permutation of the 24-bit QPN space
 * (a four-round Feistel network over 12-bit halves, keys from {@link SecureRandom}, cycle-walked
 * so that QPNs 0..0x10 and 0xFFFFFF, which IBTA reserves, never come out). So QPNs are
 * unpredictable to a host that was not told one, while finding the QP of a packet stays two
 * array reads and a little arithmetic. rxe hands QPNs out in order from 0x11; nothing in the
 * protocol depends on the order.
 *
 * <p>Engine {@code i} of a device of {@code K} engines owns only the QPNs with {@code qpn % K == i}
 * (the kernel steers packets to engines by that rule): its slots map into that class and the
 * permutation is cycle-walked until it lands in the class again, K rounds on average. With
 * {@code K = 1} every QPN is in the class and nothing changes.
 */
final class QpNumbers {
    /** QPNs below this are reserved (0 SMI, 1 GSI, the rest as rxe keeps them). */
    static final int FIRST_QPN = 0x11;
    /** The multicast QPN. */
    static final int MULTICAST_QPN = 0xFFFFFF;
    private static final int ROUNDS = 4;
    private final int[] keys = new int[ROUNDS];
    private final int residue;
    private final int modulus;
    /** The slot-1 input, {@code modulus * base + residue}: the class's first value at or above FIRST_QPN. */
    private final int base;

    QpNumbers() {
        this(0, 1);
    }

    /** Unpredictable QPNs of class {@code residue} modulo {@code modulus}. */
    QpNumbers(int residue, int modulus) {
        this(residue, modulus, keysFrom(new SecureRandom()));
    }

    /** A permutation with fixed keys, for tests that want repeatable QPNs. */
    QpNumbers(long seed) {
        this(0, 1, seed);
    }

    /** Repeatable QPNs of class {@code residue} modulo {@code modulus}. */
    QpNumbers(int residue, int modulus, long seed) {
        this(residue, modulus, keysFrom(new java.util.SplittableRandom(seed)));
    }

    private QpNumbers(int residue, int modulus, int[] keys) {
        if (modulus < 1 || residue < 0 || residue >= modulus) {
            throw new IllegalArgumentException("class " + residue + " mod " + modulus);
        }
        this.residue = residue;
        this.modulus = modulus;
        this.base = (FIRST_QPN - residue + modulus - 1) / modulus;
        System.arraycopy(keys, 0, this.keys, 0, ROUNDS);
    }

    private static int[] keysFrom(java.util.random.RandomGenerator r) {
        int[] k = new int[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
            k[i] = r.nextInt();
        }
        return k;
    }

    /** The QPN of slot {@code slot} (1 .. 2^24 / modulus - 19). */
    int qpn(int slot) {
        int x = modulus * (slot - 1 + base) + residue;
        do {
            x = encrypt(x);
        } while (!ours(x));
        return x;
    }

    /** The slot of {@code qpn}, or -1 when it is reserved, out of range or of another engine. */
    int slot(int qpn) {
        if ((qpn & ~0xFFFFFF) != 0 || !ours(qpn)) {
            return -1;
        }
        int x = qpn;
        do {
            x = decrypt(x);
        } while (!ours(x));
        return x / modulus - base + 1;
    }

    /** In this engine's class and not reserved: where the cycle walk may stop. */
    private boolean ours(int x) {
        return !reserved(x) && (modulus == 1 || x % modulus == residue);
    }

    private static boolean reserved(int x) {
        return x < FIRST_QPN || x == MULTICAST_QPN;
    }

    private int encrypt(int x) {
        int l = x >>> 12;
        int r = x & 0xFFF;
        for (int i = 0; i < ROUNDS; i++) {
            int t = l ^ round(r, keys[i]);
            l = r;
            r = t;
        }
        return l << 12 | r;
    }

    private int decrypt(int x) {
        int l = x >>> 12;
        int r = x & 0xFFF;
        for (int i = ROUNDS - 1; i >= 0; i--) {
            int t = r ^ round(l, keys[i]);
            r = l;
            l = t;
        }
        return l << 12 | r;
    }

    private static int round(int half, int key) {
        int h = (half ^ key) * 0x9E3779B1;
        h ^= h >>> 15;
        h *= 0x85EBCA77;
        return (h >>> 13) & 0xFFF;
    }
}
