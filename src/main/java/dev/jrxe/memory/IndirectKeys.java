package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;

/**
 * Creation, configuration (UMR), invalidation and destruction of {@link IndirectKey}s, with
 * mlx5dv's rules. Configuration and invalidation run on the engine thread when the requester
 * reaches their work request, and return 0 or an errno (the transport turns it into an error
 * completion).
 */
public final class IndirectKeys {
    /** Access an indirect key may grant (mlx5dv_wr_set_mkey_access_flags: LW/RW/RR/RA). */
    public static final int ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
        | Access.REMOTE_ATOMIC;
    private static final int WRITES = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;

    private IndirectKeys() {
    }

    /**
     * A layout as a work request carries it: list (SGEs {@code addr, count, lkey}) or interleaved
     * (entries {@code addr, count, skip, lkey}, {@code repeat} times).
     */
    public record Spec(boolean interleaved, long repeat, long[] addr, long[] count, long[] skip, int[] lkey) {
        public int entries() {
            return addr.length;
        }
    }

    /**
     * mlx5dv_create_mkey: {@code flags} must include INDIRECT and nothing beyond INDIRECT and
     * REMOTE_INVALIDATE (else EOPNOTSUPP: signatures, crypto and tag updates are not offered);
     * {@code maxEntries} is rounded up to a multiple of 4. Created free.
     */
    public static IndirectKey create(KeyTable table, int pdHandle, int flags, int maxEntries) {
        if ((flags & IndirectKey.INDIRECT) == 0
            || (flags & ~(IndirectKey.INDIRECT | IndirectKey.REMOTE_INVALIDATE)) != 0) {
            throw new MemoryException(Errno.EOPNOTSUPP, "mkey create_flags 0x" + Integer.toHexString(flags));
        }
        if (maxEntries <= 0 || maxEntries > 1 << 16) {
            throw new MemoryException(Errno.EINVAL, "max_entries " + maxEntries);
        }
        int entries = (maxEntries + 3) & ~3;
        int key = table.reserve();
        IndirectKey k = new IndirectKey(table, key, pdHandle, flags, entries);
        table.publish(key, k);
        return k;
    }

    /**
     * Gives a free key its layout (the UMR work request of QP PD {@code qpPd}). EINVAL when the key
     * is not free (reconfiguring needs LOCAL_INV first), of another PD, destroyed; when an entry
     * names no registered region of the PD, lies outside its region, or the key's write rights
     * meet a region without LOCAL_WRITE; ENOMEM beyond max_entries.
     */
    public static int configure(IndirectKey k, int qpPd, int access, Spec spec) {
        synchronized (k) {
            if (k.destroyed() || k.layout() != null || k.pdHandle() != qpPd) {
                return Errno.EINVAL;
            }
            int n = spec.entries();
            if (n == 0 || n > k.maxEntries()) {
                return n == 0 ? Errno.EINVAL : Errno.ENOMEM;
            }
            if ((access & ~ACCESS) != 0 || (spec.interleaved() && spec.repeat() <= 0)) {
                return Errno.EINVAL;
            }
            long[] addr = spec.addr();
            long[] count = spec.count();
            long[] skip = spec.skip();
            int[] lkey = spec.lkey();
            if (count.length != n || skip.length != n || lkey.length != n) {
                return Errno.EINVAL;
            }
            Region[] regions = new Region[n];
            long[] stride = new long[n];
            long[] span = new long[n];
            try {
                long group = 0;
                for (int i = 0; i < n; i++) {
                    if (count[i] <= 0 || skip[i] < 0) {
                        return Errno.EINVAL;
                    }
                    stride[i] = spec.interleaved() ? Math.addExact(count[i], skip[i]) : 0;
                    span[i] = spec.interleaved()
                        ? Math.addExact(Math.multiplyExact(spec.repeat() - 1, stride[i]), count[i]) : count[i];
                    group = Math.addExact(group, count[i]);
                    MemoryKey mk = k.table().lookup(lkey[i]);
                    if (!(mk instanceof Region r)) {
                        return Errno.EINVAL;
                    }
                    regions[i] = r;
                }
                Math.multiplyExact(group, spec.interleaved() ? spec.repeat() : 1);
            } catch (ArithmeticException e) {
                return Errno.EINVAL; // a layout whose arithmetic overflows (MkeyEx's limits keep clear of it)
            }
            // Each region is checked and held under its lock, against one snapshot of its binding,
            // so no rereg can slip between the check and the hold.
            int held = 0;
            int err = 0;
            for (; held < n; held++) {
                Region r = regions[held];
                synchronized (r) {
                    Region.Binding b = r.binding();
                    if (!r.valid || b.pdHandle() != qpPd
                        || ((access & WRITES) != 0 && (b.access() & Access.LOCAL_WRITE) == 0)
                        || !b.translation().inRange(addr[held], span[held])) {
                        err = Errno.EINVAL;
                        break;
                    }
                    r.keyHolds++;
                }
            }
            if (err != 0) {
                release(regions, held);
                return err;
            }
            k.setLayout(k.new Layout(access, regions, addr.clone(), count.clone(), stride, spec.repeat(),
                spec.interleaved()));
            return 0;
        }
    }

    /** LOCAL_INV, or a peer's SEND_WITH_INV: EINVAL unless configured and of {@code pdHandle}. */
    public static int invalidate(IndirectKey k, int pdHandle) {
        synchronized (k) {
            IndirectKey.Layout l = k.layout();
            if (l == null || k.pdHandle() != pdHandle) {
                return Errno.EINVAL;
            }
            k.setLayout(null);
            l.inFlight.awaitQuiet(); // no access through the old layout is still landing
            release(l.regions, l.regions.length);
            return 0;
        }
    }

    /** mlx5dv_destroy_mkey: frees the key (and its layout, if any). A second call does nothing. */
    public static void destroy(IndirectKey k) {
        synchronized (k) {
            if (k.destroyed()) {
                return; // device close and the key's own close may race: one of them frees it
            }
            k.markDestroyed();
            IndirectKey.Layout l = k.layout();
            k.setLayout(null);
            if (l != null) {
                l.inFlight.awaitQuiet();
                release(l.regions, l.regions.length);
            }
            k.table().free(k.key());
        }
    }

    private static void release(Region[] regions, int n) {
        for (int i = 0; i < n; i++) {
            synchronized (regions[i]) {
                regions[i].keyHolds--;
            }
        }
    }
}
