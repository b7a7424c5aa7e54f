package dev.jrxe.transport;

import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.memory.MemoryKey;
import java.lang.foreign.MemorySegment;

/**
 * Gather from and scatter into a scatter/gather list through the memory keys the SGEs name.
 * Every byte goes through a checked {@link MemoryKey} access (key, PD, access and range);
 * returns a {@link MemStatus}. A zero-length SGE names no memory: its key is never looked up,
 * whatever it is (rxe skips such SGEs too).
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
        for (; done < n; i++) {
            if (i >= count) {
                return MemStatus.OUT_OF_RANGE;
            }
            if (len[i] == 0) {
                continue;
            }
            long chunk = Math.min(Integer.toUnsignedLong(len[i]) - skip, n - done);
            MemoryKey k = keys.lookup(lkey[i]);
            if (k == null) {
                return MemStatus.INVALID_KEY;
            }
            long va = addr[i] + skip;
            int st = toList ? k.write(pd, Access.LOCAL_WRITE, va, seg, segOffset + done, chunk)
                : k.read(pd, 0, va, seg, segOffset + done, chunk);
            if (st != MemStatus.OK) {
                return st;
            }
            done += chunk;
            skip = 0;
        }
        return MemStatus.OK;
    }
}
