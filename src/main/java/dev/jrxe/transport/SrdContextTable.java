package dev.jrxe.transport;

/**
 * Open-addressing map from a peer (IPv4 address, QPN) to its SRD context, for one side of one
 * QP. Linear probing with backward-shift deletion: lookups never allocate; the arrays grow (by
 * doubling, allocating once) only when a new peer appears, up to the bound the caller enforces.
 * Engine thread only.
 */
final class SrdContextTable<T> {
    private long[] keys;
    private Object[] values;
    private int size;
    /** Per-table secret hash parameters: a peer cannot choose keys that all land in one run. */
    private final long seed;
    private final long multiplier;

    SrdContextTable(java.util.random.RandomGenerator random) {
        keys = new long[16];
        values = new Object[16];
        seed = random.nextLong();
        multiplier = random.nextLong() | 1;
    }

    /** The key of a peer: address in the high 32 bits, QPN in the low 24. */
    static long key(int addr, int qpn) {
        return ((long) addr << 32) | (qpn & 0xFFFFFFL);
    }

    int size() {
        return size;
    }

    private int hash(long k, int mask) {
        long h = (k ^ seed) * multiplier;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h >>> 40) & mask;
    }

    @SuppressWarnings("unchecked")
    T get(long k) {
        int mask = keys.length - 1;
        for (int i = hash(k, mask); ; i = (i + 1) & mask) {
            Object v = values[i];
            if (v == null) {
                return null;
            }
            if (keys[i] == k) {
                return (T) v;
            }
        }
    }

    /** Adds or replaces the context of {@code k}. */
    void put(long k, T v) {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = hash(k, mask); ; i = (i + 1) & mask) {
            if (values[i] == null) {
                keys[i] = k;
                values[i] = v;
                size++;
                return;
            }
            if (keys[i] == k) {
                values[i] = v;
                return;
            }
        }
    }

    /** Removes the context of {@code k} if present. */
    void remove(long k) {
        int mask = keys.length - 1;
        int i = hash(k, mask);
        while (values[i] != null && keys[i] != k) {
            i = (i + 1) & mask;
        }
        if (values[i] == null) {
            return;
        }
        values[i] = null;
        size--;
        // shift back the entries of the probe run behind the hole
        for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
            int home = hash(keys[j], mask);
            boolean between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (!between) {
                keys[i] = keys[j];
                values[i] = values[j];
                values[j] = null;
                i = j;
            }
        }
    }

    /** The context in slot {@code i} of the backing array (null when empty): for scans. */
    @SuppressWarnings("unchecked")
    T at(int i) {
        return (T) values[i];
    }

    /** Slots of the backing array (for {@link #at}). */
    int capacity() {
        return keys.length;
    }

    void clear() {
        java.util.Arrays.fill(values, null);
        size = 0;
    }

    private void grow() {
        long[] ok = keys;
        Object[] ov = values;
        keys = new long[ok.length * 2];
        values = new Object[ok.length * 2];
        size = 0;
        for (int i = 0; i < ok.length; i++) {
            if (ov[i] != null) {
                @SuppressWarnings("unchecked")
                T v = (T) ov[i];
                put(ok[i], v);
            }
        }
    }
}
