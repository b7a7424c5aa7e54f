package dev.jrxe.verbs;

import dev.jrxe.ib.MkeySendOps;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.memory.IndirectKeys;
import dev.jrxe.ib.Errno;
import dev.jrxe.transport.SendWqe;

/**
 * The indirect-key builders of an extended-API batch ({@code mlx5dv_qp_ex}): configure an
 * {@link IndirectMemoryKey} by a UMR work request, as mlx5dv does, with its limits and errors.
 * Plugs into {@link QpEx} through its extension points; get one with {@link #from(QpEx)} and use
 * it between {@link QpEx#start} and {@link QpEx#complete}.
 *
 * <ul>
 *   <li>Every configuring request needs {@code SendFlags.INLINE} in {@link QpEx#wrFlags} (else
 *       EOPNOTSUPP) and its bit in the QP's {@code mkeySendOpsFlags} (else EOPNOTSUPP).</li>
 *   <li>Entries: a list takes at most {@code min((max_inline_data + 4) / 16, max_entries)} SGEs,
 *       an interleaving one fewer (its repeat header takes a slot); more: ENOMEM.</li>
 *   <li>Interleaved {@code bytes_count} and {@code bytes_count + bytes_skip} must fit 16 bits
 *       (EINVAL); access flags are LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC only.</li>
 *   <li>{@link #mkeyConfigure} announces its setters: each setter at most once, one layout, and
 *       exactly as many setters as announced (EINVAL otherwise, by {@code complete}).</li>
 *   <li>A signaled configure completes with WC opcode DRIVER1 (MLX5DV_WC_UMR, 135); work requests
 *       posted after it on the QP may use the key at once. A configure the key cannot take (not
 *       free, an entry that names no region of the PD or lies outside it) completes with
 *       MW_BIND_ERR.</li>
 * </ul>
 * Building a layout allocates it (a control operation); using the key allocates nothing.
 */
public final class MkeyEx {
    private final QpEx x;
    private final int dvOps;
    private final int maxInline;
    // the configure-with-setters request being built
    private SendWqe configuring;
    private IndirectMemoryKey configuringKey;
    private boolean accessSet;
    private boolean layoutSet;

    private MkeyEx(QpEx x, int dvOps, int maxInline) {
        this.x = x;
        this.dvOps = dvOps;
        this.maxInline = maxInline;
    }

    /** {@code mlx5dv_qp_ex_from_ibv_qp_ex}. */
    public static MkeyEx from(QpEx x) {
        return new MkeyEx(x, x.mkeySendOpsFlags(), x.qp().cap().maxInlineData);
    }

    /** {@code struct mlx5dv_mr_interleaved}: {@code bytesCount} bytes at {@code addr}, then skip {@code bytesSkip}. */
    public record Interleaved(long addr, int bytesCount, int bytesSkip, int lkey) {
    }

    private int listLimit(IndirectMemoryKey mkey) {
        return Math.min((maxInline + 4) / 16, mkey.maxEntries());
    }

    private SendWqe begin(IndirectMemoryKey mkey, int dvOp) {
        configuring = null;
        SendWqe w = x.beginWr(WrOpcode.DRIVER1, 0, dvOp, dvOps);
        if (w == null) {
            return null;
        }
        if ((x.wrFlags & SendFlags.INLINE) == 0) {
            x.fail(Errno.EOPNOTSUPP, "indirect key work requests need IBV_SEND_INLINE");
            return null;
        }
        if (mkey == null || mkey.pd().device() != x.qp().device()) {
            x.fail(Errno.EINVAL, "an indirect key of this device");
            return null;
        }
        w.umrKey = mkey.lkey();
        w.umrAccess = 0;
        w.umrSpec = null;
        w.umrSettersLeft = 0;
        return w;
    }

    /** {@code mlx5dv_wr_mr_interleaved}: access flags and an interleaved layout in one request. */
    public void mrInterleaved(IndirectMemoryKey mkey, int accessFlags, int repeatCount, Interleaved... data) {
        SendWqe w = begin(mkey, MkeySendOps.MR_INTERLEAVED);
        if (w != null && access(w, accessFlags)) {
            interleaved(w, mkey, repeatCount, data);
        }
    }

    /** {@code mlx5dv_wr_mr_list}: access flags and a list layout in one request. */
    public void mrList(IndirectMemoryKey mkey, int accessFlags, Sge... sges) {
        SendWqe w = begin(mkey, MkeySendOps.MR_LIST);
        if (w != null && access(w, accessFlags)) {
            list(w, mkey, sges);
        }
    }

    /** {@code mlx5dv_wr_mkey_configure}: a request completed by exactly {@code numSetters} setters. */
    public void mkeyConfigure(IndirectMemoryKey mkey, int numSetters) {
        SendWqe w = begin(mkey, MkeySendOps.MKEY_CONFIGURE);
        if (w == null) {
            return;
        }
        if (numSetters < 1 || numSetters > 2) {
            x.fail(Errno.EINVAL, "num_setters " + numSetters + " (access and one layout)");
            return;
        }
        w.umrSettersLeft = numSetters;
        configuring = w;
        accessSet = false;
        layoutSet = false;
        configuringKey = mkey;
    }

    /** {@code mlx5dv_wr_set_mkey_access_flags}. */
    public void setMkeyAccessFlags(int accessFlags) {
        SendWqe w = setter();
        if (w == null) {
            return;
        }
        if (accessSet) {
            x.fail(Errno.EINVAL, "access flags set twice");
            return;
        }
        accessSet = true;
        if (access(w, accessFlags)) {
            w.umrSettersLeft--;
        }
    }

    /** {@code mlx5dv_wr_set_mkey_layout_list}. */
    public void setMkeyLayoutList(Sge... sges) {
        SendWqe w = layoutSetter();
        if (w != null && list(w, configuringKey, sges)) {
            w.umrSettersLeft--;
        }
    }

    /** {@code mlx5dv_wr_set_mkey_layout_interleaved}. */
    public void setMkeyLayoutInterleaved(int repeatCount, Interleaved... data) {
        SendWqe w = layoutSetter();
        if (w != null && interleaved(w, configuringKey, repeatCount, data)) {
            w.umrSettersLeft--;
        }
    }

    private SendWqe setter() {
        SendWqe w = x.current();
        if (w == null) {
            return null;
        }
        if (w != configuring || w.umrSettersLeft == 0) {
            x.fail(Errno.EINVAL, "a setter without mkey_configure, or more setters than announced");
            return null;
        }
        return w;
    }

    private SendWqe layoutSetter() {
        SendWqe w = setter();
        if (w == null) {
            return null;
        }
        if (layoutSet) {
            x.fail(Errno.EINVAL, "one layout per work request");
            return null;
        }
        layoutSet = true;
        return w;
    }

    private boolean access(SendWqe w, int accessFlags) {
        if ((accessFlags & ~IndirectKeys.ACCESS) != 0) {
            x.fail(Errno.EINVAL, "indirect key access 0x" + Integer.toHexString(accessFlags));
            return false;
        }
        w.umrAccess = accessFlags;
        return true;
    }

    private boolean list(SendWqe w, IndirectMemoryKey mkey, Sge[] sges) {
        int n = sges.length;
        if (n == 0 || n > listLimit(mkey)) {
            x.fail(n == 0 ? Errno.EINVAL : Errno.ENOMEM, n + " list entries; this QP and key take "
                + listLimit(mkey));
            return false;
        }
        long[] addr = new long[n];
        long[] count = new long[n];
        int[] lkey = new int[n];
        for (int i = 0; i < n; i++) {
            addr[i] = sges[i].addr;
            count[i] = Integer.toUnsignedLong(sges[i].length);
            lkey[i] = sges[i].lkey;
        }
        w.umrSpec = new IndirectKeys.Spec(false, 1, addr, count, new long[n], lkey);
        return true;
    }

    private boolean interleaved(SendWqe w, IndirectMemoryKey mkey, int repeatCount, Interleaved[] data) {
        int n = data.length;
        int limit = listLimit(mkey) - 1;
        if (n == 0 || n > limit) {
            x.fail(n == 0 ? Errno.EINVAL : Errno.ENOMEM, n + " interleaved entries; this QP and key take " + limit);
            return false;
        }
        if (repeatCount <= 0) {
            x.fail(Errno.EINVAL, "repeat_count " + repeatCount);
            return false;
        }
        long[] addr = new long[n];
        long[] count = new long[n];
        long[] skip = new long[n];
        int[] lkey = new int[n];
        for (int i = 0; i < n; i++) {
            Interleaved d = data[i];
            long stride = Integer.toUnsignedLong(d.bytesCount()) + Integer.toUnsignedLong(d.bytesSkip());
            if (Integer.toUnsignedLong(d.bytesCount()) > 0xFFFF || stride > 0xFFFF) {
                // the UMR's interleaved entry has 16-bit byte_count and stride fields
                x.fail(Errno.EINVAL, "bytes_count " + d.bytesCount() + " / stride " + stride + " beyond 16 bits");
                return false;
            }
            addr[i] = d.addr();
            count[i] = d.bytesCount();
            skip[i] = d.bytesSkip();
            lkey[i] = d.lkey();
        }
        w.umrSpec = new IndirectKeys.Spec(true, repeatCount, addr, count, skip, lkey);
        return true;
    }
}
