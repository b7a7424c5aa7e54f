package dev.jrxe.verbs;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.SendOps;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Errno;
import dev.jrxe.transport.SendWqe;
import java.lang.foreign.MemorySegment;

/**
 * The extended post-send API of a QP ({@code ibv_qp_ex} and {@code ibv_wr_*}): {@link #start}
 * a batch, add work requests with the builders (each starts a new request from {@link #wrId}
 * and {@link #wrFlags}), give them data with the setters, then {@link #complete} the batch.
 *
 * <pre>{@code
 * QpEx x = qp.ex();
 * x.start();
 * x.wrId = 1;
 * x.wrFlags = SendFlags.SIGNALED;
 * x.rdmaWrite(rkey, remoteAddr);
 * x.setSge(mr.lkey(), buf.address(), 4096);
 * x.complete();          // throws with the errno of the first bad call; nothing was posted
 * }</pre>
 *
 * <p>Requests are written straight into the send queue's slots and published together by
 * {@link #complete}: the engine sees all of a batch or none of it, and nothing is allocated per
 * request. The first error of any builder or setter is latched (later calls are ignored) and
 * thrown by {@link #complete}, which then rolls the whole batch back, as {@code ibv_wr_complete}.
 * {@link #abort} drops a batch. A batch holds the send queue from {@code start} to
 * {@code complete}/{@code abort}; {@link QueuePair#postSend} may be used on the same QP between
 * batches. Builders need their bit in the QP's {@code sendOpsFlags} ({@link SendOps}); one
 * the QP was not created with latches EOPNOTSUPP.
 *
 * <p>New kinds of work request (the indirect-key builders) plug in through {@link #beginWr},
 * {@link #current} and {@link #fail} without changing this class.
 */
public final class QpEx {
    /** {@code qpx->wr_id}: the id the next builder gives its request. */
    public long wrId;
    /** {@code qpx->wr_flags}: {@link SendFlags} of the next builder's request. */
    public int wrFlags;

    private final QueuePair qp;
    private final int sendOps;
    private final int mkeySendOps;
    private boolean open;
    private int count;
    private SendWqe cur;
    private int error;
    private String reason;
    /** Windows bound in this batch and their rkeys before it, to undo a rolled-back batch. */
    private final MemoryWindow[] boundMw;
    private final int[] boundOldRkey;
    private int bound;

    QpEx(QueuePair qp, int sendOps, int mkeySendOps, int maxWr) {
        this.qp = qp;
        this.sendOps = sendOps;
        this.mkeySendOps = mkeySendOps;
        this.boundMw = new MemoryWindow[Math.max(1, maxWr)];
        this.boundOldRkey = new int[Math.max(1, maxWr)];
    }

    /** The QP this batch posts to. */
    public QueuePair qp() {
        return qp;
    }

    /** The {@link SendOps} bits the QP was created with. */
    public int sendOpsFlags() {
        return sendOps;
    }

    /** The {@link dev.jrxe.ib.MkeySendOps} bits the QP was created with. */
    public int mkeySendOpsFlags() {
        return mkeySendOps;
    }

    // ---------------------------------------------------------------- batch

    /** {@code ibv_wr_start}: opens a batch (and holds the send queue until complete or abort). */
    public void start() {
        qp.sqLock.lock();
        if (open) {
            qp.sqLock.unlock();
            throw new IllegalStateException("a batch is already open on this QP");
        }
        open = true;
        count = 0;
        cur = null;
        error = 0;
        reason = null;
        bound = 0;
    }

    /**
     * {@code ibv_wr_complete}: posts the batch, or, if any call latched an error, posts nothing
     * of it and throws that error.
     *
     * @throws VerbsException the first error: EINVAL (a bad request, or the QP not in RTS/SQD),
     *                        ENOMEM (the send queue is full), EOPNOTSUPP (a builder the QP was not
     *                        created for), EFAULT (inline data not readable)
     */
    public void complete() {
        requireOpen();
        try {
            int state = qp.state();
            if (error == 0 && count > 0 && !QueuePair.canPostSend(state)) {
                latch(Errno.EINVAL, "post_send in state " + dev.jrxe.ib.QpState.name(state));
            }
            for (int i = 0; error == 0 && i < count; i++) {
                SendWqe w = qp.qp().sq.claim(i);
                int err = qp.checkWqe(w);
                if (err != 0) {
                    latch(err, "work request " + i + " of the batch: " + qp.verdict);
                } else if (qp.copyInline(w) != 0) {
                    latch(Errno.EFAULT, "work request " + i + " of the batch: inline data not readable");
                }
            }
            if (error != 0) {
                rollback();
                throw new VerbsException(error, reason);
            }
            if (count > 0) {
                qp.qp().sq.publish(count);
            }
        } finally {
            close();
        }
        if (count > 0) {
            qp.device().engine().kick();
        }
    }

    /** {@code ibv_wr_abort}: drops the batch; nothing of it is posted. */
    public void abort() {
        requireOpen();
        try {
            rollback();
        } finally {
            close();
        }
    }

    private void rollback() {
        for (int i = bound - 1; i >= 0; i--) {
            boundMw[i].posted(boundOldRkey[i]);
            boundMw[i] = null;
        }
        bound = 0;
    }

    private void close() {
        open = false;
        cur = null;
        qp.sqLock.unlock();
    }

    private void requireOpen() {
        if (!open || !qp.sqLock.isHeldByCurrentThread()) {
            throw new IllegalStateException("no batch open on this thread (call start first)");
        }
    }

    // ---------------------------------------------------------------- extension points

    /**
     * Starts the next work request of the batch with {@code wrOpcode}, if the QP was created with
     * {@code sendOp} (a {@link SendOps} bit). Returns its WQE, or null after an error (latched).
     */
    SendWqe beginWr(int wrOpcode, int sendOp) {
        return beginWr(wrOpcode, sendOp, 0, 0);
    }

    /**
     * As {@link #beginWr(int, int)}, for a builder of an extension whose own send-ops bits
     * ({@code extOp} among {@code extOps}) decide instead ({@code sendOp} 0).
     */
    SendWqe beginWr(int wrOpcode, int sendOp, int extOp, int extOps) {
        requireOpen();
        cur = null;
        if (error != 0) {
            return null;
        }
        if (sendOp != 0 ? (sendOps & sendOp) == 0 : (extOps & extOp) == 0) {
            latch(Errno.EOPNOTSUPP, WrOpcode.name(wrOpcode) + ": the QP was not created with its send_ops_flags bit");
            return null;
        }
        SendWqe w = qp.qp().sq.claim(count);
        if (w == null) {
            latch(Errno.ENOMEM, "send queue full (" + qp.cap().maxSendWr + ")");
            return null;
        }
        qp.begin(w, wrOpcode, wrId, wrFlags);
        count++;
        cur = w;
        return w;
    }

    /** The request the setters apply to now, or null (none started, or an error latched). */
    SendWqe current() {
        return error == 0 ? cur : null;
    }

    /** Latches an error for {@link #complete} (the first one wins). */
    void fail(int errno, String why) {
        latch(errno, why);
    }

    private void latch(int errno, String why) {
        if (error == 0) {
            error = errno;
            reason = why;
        }
        cur = null;
    }

    // ---------------------------------------------------------------- builders (ibv_wr_*)

    /** {@code ibv_wr_send}. */
    public void send() {
        beginWr(WrOpcode.SEND, SendOps.SEND);
    }

    /** {@code ibv_wr_send_imm}. */
    public void sendImm(int immData) {
        SendWqe w = beginWr(WrOpcode.SEND_WITH_IMM, SendOps.SEND_WITH_IMM);
        if (w != null) {
            w.immData = immData;
        }
    }

    /** {@code ibv_wr_send_inv}: the peer invalidates {@code invalidateRkey} (a type 2 window). */
    public void sendInv(int invalidateRkey) {
        SendWqe w = beginWr(WrOpcode.SEND_WITH_INV, SendOps.SEND_WITH_INV);
        if (w != null) {
            w.invalidateRkey = invalidateRkey;
        }
    }

    /** {@code ibv_wr_rdma_write}. */
    public void rdmaWrite(int rkey, long remoteAddr) {
        remote(beginWr(WrOpcode.RDMA_WRITE, SendOps.RDMA_WRITE), rkey, remoteAddr);
    }

    /** {@code ibv_wr_rdma_write_imm}. */
    public void rdmaWriteImm(int rkey, long remoteAddr, int immData) {
        SendWqe w = beginWr(WrOpcode.RDMA_WRITE_WITH_IMM, SendOps.RDMA_WRITE_WITH_IMM);
        remote(w, rkey, remoteAddr);
        if (w != null) {
            w.immData = immData;
        }
    }

    /** {@code ibv_wr_rdma_read}. */
    public void rdmaRead(int rkey, long remoteAddr) {
        remote(beginWr(WrOpcode.RDMA_READ, SendOps.RDMA_READ), rkey, remoteAddr);
    }

    /** {@code ibv_wr_atomic_cmp_swp}: the original value lands in the SGE (8 bytes). */
    public void atomicCmpSwp(int rkey, long remoteAddr, long compare, long swap) {
        SendWqe w = beginWr(WrOpcode.ATOMIC_CMP_AND_SWP, SendOps.ATOMIC_CMP_AND_SWP);
        remote(w, rkey, remoteAddr);
        if (w != null) {
            w.compareAdd = compare;
            w.swap = swap;
        }
    }

    /** {@code ibv_wr_atomic_fetch_add}. */
    public void atomicFetchAdd(int rkey, long remoteAddr, long add) {
        SendWqe w = beginWr(WrOpcode.ATOMIC_FETCH_AND_ADD, SendOps.ATOMIC_FETCH_AND_ADD);
        remote(w, rkey, remoteAddr);
        if (w != null) {
            w.compareAdd = add;
        }
    }

    /**
     * {@code ibv_wr_flush}: makes {@code [remoteAddr, remoteAddr+len)} (level {@code Flush.RANGE})
     * or the whole region ({@code Flush.MR}) visible ({@code Flush.GLOBAL}) or durable
     * ({@code Flush.PERSISTENT}) at the peer. Takes no SGE.
     */
    public void flush(int rkey, long remoteAddr, long len, int type, int level) {
        SendWqe w = beginWr(WrOpcode.FLUSH, SendOps.FLUSH);
        remote(w, rkey, remoteAddr);
        if (w != null) {
            w.length = len;
            w.flushType = type;
            w.flushLevel = level;
        }
    }

    /** {@code ibv_wr_atomic_write}: stores 8 bytes at once; {@code value} as it lies in host memory. */
    public void atomicWrite(int rkey, long remoteAddr, long value) {
        SendWqe w = beginWr(WrOpcode.ATOMIC_WRITE, SendOps.ATOMIC_WRITE);
        remote(w, rkey, remoteAddr);
        if (w != null) {
            w.compareAdd = value;
            w.length = 8;
        }
    }

    /** {@code ibv_wr_atomic_write} with the 8 bytes taken from {@code atomicWr} (as memcpy would). */
    public void atomicWrite(int rkey, long remoteAddr, MemorySegment atomicWr) {
        if (atomicWr.byteSize() != 8) {
            beginWr(WrOpcode.ATOMIC_WRITE, SendOps.ATOMIC_WRITE);
            fail(Errno.EINVAL, "atomic write takes 8 bytes, not " + atomicWr.byteSize());
            return;
        }
        atomicWrite(rkey, remoteAddr, atomicWr.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }

    /**
     * {@code ibv_wr_bind_mw}: binds a type 2 window to {@code [addr, addr+length)} of {@code mr}
     * with {@code access}, giving it {@code newRkey}'s 8-bit key. {@link MemoryWindow#rkey()}
     * says the new rkey at once; it is valid once the bind has executed.
     */
    public void bindMw(MemoryWindow mw, int newRkey, MemoryRegion mr, long addr, long length, int access) {
        SendWqe w = beginWr(WrOpcode.BIND_MW, SendOps.BIND_MW);
        if (w == null) {
            return;
        }
        if (mw == null || mw.pd().device() != qp.device() || (mr != null && mr.pd().device() != qp.device())) {
            fail(Errno.EINVAL, "BIND_MW needs a window (and region) of this device");
            return;
        }
        qp.bindFields(w, mw, newRkey, mr, addr, length, access);
        boundMw[bound] = mw;
        boundOldRkey[bound++] = mw.rkey();
        mw.posted(w.rkey);
    }

    /** {@code ibv_wr_local_inv}: invalidates {@code invalidateRkey} (a type 2 window) in send-queue order. */
    public void localInv(int invalidateRkey) {
        SendWqe w = beginWr(WrOpcode.LOCAL_INV, SendOps.LOCAL_INV);
        if (w != null) {
            w.invalidateRkey = invalidateRkey;
        }
    }

    private static void remote(SendWqe w, int rkey, long remoteAddr) {
        if (w != null) {
            w.rkey = rkey;
            w.remoteAddr = remoteAddr;
        }
    }

    // ---------------------------------------------------------------- setters (ibv_wr_set_*)

    /** {@code ibv_wr_set_sge}: the request's one SGE. */
    public void setSge(int lkey, long addr, int length) {
        SendWqe w = current();
        if (w == null) {
            return;
        }
        w.numSge = 1;
        w.sgeAddr[0] = addr;
        w.sgeLength[0] = length;
        w.sgeLkey[0] = lkey;
        w.length = Integer.toUnsignedLong(length);
    }

    /** {@code ibv_wr_set_sge_list}: the first {@code n} of {@code sges}. */
    public void setSgeList(int n, Sge[] sges) {
        SendWqe w = current();
        if (w == null) {
            return;
        }
        if (n < 0 || n > sges.length || n > w.sgeAddr.length) {
            fail(Errno.EINVAL, "num_sge " + n + " > max_send_sge " + w.sgeAddr.length);
            return;
        }
        long length = 0;
        for (int i = 0; i < n; i++) {
            w.sgeAddr[i] = sges[i].addr;
            w.sgeLength[i] = sges[i].length;
            w.sgeLkey[i] = sges[i].lkey;
            length += Integer.toUnsignedLong(sges[i].length);
        }
        w.numSge = n;
        w.length = length;
    }

    /**
     * {@code ibv_wr_set_inline_data}: copies {@code length} bytes at process address {@code addr}
     * into the request now (no key needed; an unreadable address latches EFAULT).
     */
    public void setInlineData(long addr, int length) {
        SendWqe w = inlineTarget(length);
        if (w != null && length > 0) {
            if (dev.jrxe.memory.ProcessMemory.read(addr, w.inline, 0, length) != 0) {
                fail(Errno.EFAULT, "inline data not readable");
                return;
            }
            inlined(w, length);
        }
    }

    /** {@code ibv_wr_set_inline_data} from a segment. */
    public void setInlineData(MemorySegment data) {
        if (data.byteSize() > Integer.MAX_VALUE) {
            fail(Errno.EINVAL, "inline data too long");
            return;
        }
        int length = (int) data.byteSize();
        SendWqe w = inlineTarget(length);
        if (w != null && length > 0) {
            MemorySegment.copy(data, 0, w.inline, 0, length);
            inlined(w, length);
        }
    }

    /**
     * {@code ibv_wr_set_inline_data_list}: the bytes of {@code n} segments, one after the other,
     * copied into the request now.
     */
    public void setInlineDataList(int n, MemorySegment[] data) {
        long total = 0;
        for (int i = 0; i < n && i < data.length && total <= Integer.MAX_VALUE; i++) {
            total += data[i].byteSize();
        }
        if (n < 0 || n > data.length || total > Integer.MAX_VALUE) {
            fail(Errno.EINVAL, "bad inline data list");
            return;
        }
        SendWqe w = inlineTarget((int) total);
        if (w == null || total == 0) {
            return;
        }
        long at = 0;
        for (int i = 0; i < n; i++) {
            MemorySegment.copy(data[i], 0, w.inline, at, data[i].byteSize());
            at += data[i].byteSize();
        }
        inlined(w, (int) total);
    }

    /**
     * {@code ibv_wr_set_ud_addr}: the destination of the current UD request (required before
     * it is complete). rdma-core offers it on UD QPs (and EFA on SRD ones) only; on any other QP it latches EINVAL, as it
     * does for a destroyed address handle or one of another protection domain.
     */
    public void setUdAddr(AddressHandle ah, int remoteQpn, int remoteQkey) {
        SendWqe w = current();
        if (w == null) {
            return;
        }
        if (qp.qpType() != dev.jrxe.ib.QpType.UD && qp.qpType() != dev.jrxe.ib.QpType.DRIVER) {
            fail(Errno.EINVAL, "a UD address on a " + dev.jrxe.ib.QpType.name(qp.qpType()) + " QP");
            return;
        }
        int err = qp.udAddress(w, ah, remoteQpn, remoteQkey);
        if (err != 0) {
            fail(err, qp.verdict);
        }
    }

    private SendWqe inlineTarget(int length) {
        SendWqe w = current();
        if (w == null) {
            return null;
        }
        if (!WrOpcode.isSend(w.opcode) && !WrOpcode.isWrite(w.opcode)) {
            fail(Errno.EINVAL, "inline data only for SEND and RDMA WRITE");
            return null;
        }
        if (length < 0 || w.inline == null || length > w.inline.byteSize()) {
            fail(Errno.EINVAL, "inline data " + length + " > max_inline_data " + qp.cap().maxInlineData);
            return null;
        }
        w.sendFlags |= SendFlags.INLINE;
        w.numSge = 0;
        w.length = length;
        return w;
    }

    private static void inlined(SendWqe w, int length) {
        w.inlined = true;
        w.inlineLength = length;
    }
}
