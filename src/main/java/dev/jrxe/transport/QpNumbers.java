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
 */
final class QpNumbers {
    /** QPNs below this are reserved (0 SMI, 1 GSI, the rest as rxe keeps them). */
    static final int FIRST_QPN = 0x11;
    /** The multicast QPN. */
    static final int MULTICAST_QPN = 0xFFFFFF;
    private static final int ROUNDS = 4;
    private final int[] keys = new int[ROUNDS];

    QpNumbers() {
        SecureRandom r = new SecureRandom();
        for (int i = 0; i < ROUNDS; i++) {
            keys[i] = r.nextInt();
        }
    }

    /** A permutation with fixed keys, for tests that want repeatable QPNs. */
    QpNumbers(long seed) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        for (int i = 0; i < ROUNDS; i++) {
            keys[i] = r.nextInt();
        }
    }

    /** The QPN of slot {@code slot} (1 .. 2^24 - 19). */
    int qpn(int slot) {
        int x = slot + FIRST_QPN - 1;
        do {
            x = encrypt(x);
        } while (reserved(x));
        return x;
    }

    /** The slot of {@code qpn}, or -1 when it is reserved or out of range. */
    int slot(int qpn) {
        if ((qpn & ~0xFFFFFF) != 0 || reserved(qpn)) {
            return -1;
        }
        int x = qpn;
        do {
            x = decrypt(x);
        } while (reserved(x));
        return x - FIRST_QPN + 1;
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
