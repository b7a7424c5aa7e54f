package dev.jrxe.transport;

import dev.jrxe.memory.Access;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.memory.MemoryKey;
import java.lang.foreign.MemorySegment;

/**
 * Gather from and scatter into a scatter/gather list through the memory keys the SGEs name.
 * Every byte goes through {@link MemoryKey} (key, PD, access and range checks); returns a
 * {@link MemStatus}.
 */
final class Sgl {
    private Sgl() {
    }

    /** Checks every SGE once: key exists, same PD, access, range. */
    static int check(KeyResolver keys, int pd, long[] addr, int[] len, int[] lkey, int n, int access) {
        for (int i = 0; i < n; i++) {
            if (len[i] == 0) {
                continue;
            }
            MemoryKey k = keys.lookup(lkey[i]);
            if (k == null) {
                return MemStatus.INVALID_KEY;
            }
            int st = k.check(pd, access, addr[i], Integer.toUnsignedLong(len[i]));
            if (st != MemStatus.OK) {
                return st;
            }
        }
        return MemStatus.OK;
    }

    /** Copies {@code n} bytes starting {@code offset} bytes into the list to {@code dst}. */
    static int gather(KeyResolver keys, int pd, long[] addr, int[] len, int[] lkey, int count,
                      long offset, MemorySegment dst, long dstOffset, long n) {
        return move(keys, pd, addr, len, lkey, count, offset, dst, dstOffset, n, false);
    }

    /** Copies {@code n} bytes from {@code src} into the list, starting {@code offset} bytes in. */
    static int scatter(KeyResolver keys, int pd, long[] addr, int[] len, int[] lkey, int count,
                       long offset, MemorySegment src, long srcOffset, long n) {
        return move(keys, pd, addr, len, lkey, count, offset, src, srcOffset, n, true);
    }

    private static int move(KeyResolver keys, int pd, long[] addr, int[] len, int[] lkey, int count,
                            long offset, MemorySegment seg, long segOffset, long n, boolean toList) {
        int i = 0;
        long skip = offset;
        while (i < count && skip >= Integer.toUnsignedLong(len[i])) {
            skip -= Integer.toUnsignedLong(len[i]);
            i++;
        }
        long done = 0;
        while (done < n) {
            if (i >= count) {
                return MemStatus.OUT_OF_RANGE;
            }
            long room = Integer.toUnsignedLong(len[i]) - skip;
            long chunk = Math.min(room, n - done);
            MemoryKey k = keys.lookup(lkey[i]);
            if (k == null) {
                return MemStatus.INVALID_KEY;
            }
            long va = addr[i] + skip;
            int st = k.check(pd, toList ? Access.LOCAL_WRITE : 0, va, chunk);
            if (st == MemStatus.OK) {
                st = toList ? k.write(va, seg, segOffset + done, chunk) : k.read(va, seg, segOffset + done, chunk);
            }
            if (st != MemStatus.OK) {
                return st;
            }
            done += chunk;
            skip = 0;
            i++;
        }
        return MemStatus.OK;
    }
}
