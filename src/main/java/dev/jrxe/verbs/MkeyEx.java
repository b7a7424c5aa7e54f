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
 *
 * <pre>{@code
 * QpEx x = qp.ex();                 // an RC QP with mkeySendOpsFlags and cap.maxInlineData >= 60
 * MkeyEx mx = MkeyEx.from(x);       // once per QP
 * x.start();
 * x.wrId = 7;
 * x.wrFlags = SendFlags.INLINE | SendFlags.SIGNALED;
 * mx.mrList(mkey, Access.LOCAL_WRITE | Access.REMOTE_READ, sgeA, sgeB);
 * x.complete();                     // throws the first latched errno; then nothing was posted
 * }</pre>
 *
 * <p>Not thread safe: use it only on the thread that holds the {@link QpEx} batch (which holds
 * the QP's send queue); a {@link #mkeyConfigure} and its setters must go through the same
 * {@code MkeyEx}. Errors latch in the batch, as {@link QpEx}'s builders' do.
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

    /**
     * {@code mlx5dv_qp_ex_from_ibv_qp_ex}: the indirect-key builders over {@code x}'s batches.
     * Allocates a new object; keep it for the QP's life.
     *
     * @param x the QP's extended API ({@link QueuePair#ex()})
     * @return builders limited by the QP's {@code mkeySendOpsFlags} and {@code max_inline_data}
     */
    public static MkeyEx from(QpEx x) {
        return new MkeyEx(x, x.mkeySendOpsFlags(), x.qp().cap().maxInlineData);
    }

    /**
     * {@code struct mlx5dv_mr_interleaved}: {@code bytesCount} bytes at {@code addr}, then skip
     * {@code bytesSkip}, per repeat. Immutable.
     *
     * @param addr       {@code addr}: where the entry starts, in the region's address space (its iova)
     * @param bytesCount {@code bytes_count}: bytes taken per repeat (unsigned, at most 0xFFFF)
     * @param bytesSkip  {@code bytes_skip}: bytes skipped after them (count + skip at most 0xFFFF)
     * @param lkey       {@code lkey}: the region's lkey, a region of the key's PD
     */
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

    /**
     * {@code mlx5dv_wr_mr_interleaved}: access flags and an interleaved layout in one request. The
     * key's bytes are the entries' {@code bytesCount} slices one after the other, the group
     * {@code repeatCount} times, each repeat advancing every entry by its count + skip.
     *
     * @param mkey        a free key of this device
     * @param accessFlags LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC (others: EINVAL)
     * @param repeatCount how many times the group repeats, at least 1 (else EINVAL)
     * @param data        the entries, 1 up to one fewer than the list limit (0: EINVAL; more: ENOMEM)
     */
    public void mrInterleaved(IndirectMemoryKey mkey, int accessFlags, int repeatCount, Interleaved... data) {
        SendWqe w = begin(mkey, MkeySendOps.MR_INTERLEAVED);
        if (w != null && access(w, accessFlags)) {
            interleaved(w, mkey, repeatCount, data);
        }
    }

    /**
     * {@code mlx5dv_wr_mr_list}: access flags and a list layout in one request: the key's bytes
     * are the SGEs' bytes one after the other.
     *
     * @param mkey        a free key of this device
     * @param accessFlags LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC (others: EINVAL)
     * @param sges        the entries: address, length and lkey of regions of the key's PD, 1 up
     *                    to the list limit (0: EINVAL; more: ENOMEM)
     */
    public void mrList(IndirectMemoryKey mkey, int accessFlags, Sge... sges) {
        SendWqe w = begin(mkey, MkeySendOps.MR_LIST);
        if (w != null && access(w, accessFlags)) {
            list(w, mkey, sges);
        }
    }

    /**
     * {@code mlx5dv_wr_mkey_configure}: a request completed by exactly {@code numSetters} setters
     * ({@link #setMkeyAccessFlags}, one of the layout setters), called next on this object.
     *
     * @param mkey       a free key of this device
     * @param numSetters 1 or 2 (else EINVAL)
     */
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

    /**
     * {@code mlx5dv_wr_set_mkey_access_flags}: the access of the request {@link #mkeyConfigure}
     * began; at most once (EINVAL).
     *
     * @param accessFlags LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC (others: EINVAL)
     */
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

    /**
     * {@code mlx5dv_wr_set_mkey_layout_list}: a list layout for the request {@link #mkeyConfigure}
     * began, as {@link #mrList}; one layout per request (EINVAL).
     *
     * @param sges the entries, 1 up to the list limit (0: EINVAL; more: ENOMEM)
     */
    public void setMkeyLayoutList(Sge... sges) {
        SendWqe w = layoutSetter();
        if (w != null && list(w, configuringKey, sges)) {
            w.umrSettersLeft--;
        }
    }

    /**
     * {@code mlx5dv_wr_set_mkey_layout_interleaved}: an interleaved layout for the request
     * {@link #mkeyConfigure} began, as {@link #mrInterleaved}; one layout per request (EINVAL).
     *
     * @param repeatCount how many times the group repeats, at least 1 (else EINVAL)
     * @param data        the entries, 1 up to one fewer than the list limit (0: EINVAL; more: ENOMEM)
     */
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
