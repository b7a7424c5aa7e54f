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
 * {@link #abort} drops a batch. Builders need their bit in the QP's {@code sendOpsFlags}
 * ({@link SendOps}); one the QP was not created with latches EOPNOTSUPP. A setter called when no
 * request is open (none started yet, or after an error) does nothing. Requests are checked as
 * {@link QueuePair#postSend} checks them, at {@link #complete}; keys and ranges are checked when
 * they execute, and a bad one completes with an error status.
 *
 * <p>Thread safety: a QP has one {@code QpEx} ({@link QueuePair#ex()} returns the same object),
 * and a batch belongs to the thread that started it. {@link #start} takes the QP's send-queue
 * lock and {@link #complete}/{@link #abort} release it, so another thread's {@code start},
 * {@code postSend} or {@code trySend} on the QP waits meanwhile, and builders, {@code complete}
 * and {@code abort} from a thread without an open batch throw {@link IllegalStateException}.
 * Setters do not check the thread (outside any batch they do nothing) and {@link #wrId} and
 * {@link #wrFlags} are shared by all threads: use them only inside your own batch. Use {@code postSend} between batches, not inside one (on the
 * batch's own thread the lock is reentrant and the post would overwrite the batch's first slot).
 * The indirect-key builders of {@link MkeyEx} add their requests to the same batch.
 */
public final class QpEx {
    /** {@code qpx->wr_id}: the id the next builder gives its request, returned in its {@link WorkCompletion#wrId}. */
    public long wrId;
    /**
     * {@code qpx->wr_flags}: {@link SendFlags} bits ({@code IBV_SEND_SIGNALED}, {@code FENCE}, ...)
     * of the next builder's request.
     */
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

    /** {@return the QP this API posts to} */
    public QueuePair qp() {
        return qp;
    }

    /** {@return the {@link SendOps} bits the QP was created with ({@link QpInitAttr#sendOpsFlags})} */
    public int sendOpsFlags() {
        return sendOps;
    }

    /**
     * {@return the {@link dev.jrxe.ib.MkeySendOps} bits the QP was created with
     * ({@link QpInitAttr#mkeySendOpsFlags})}
     */
    public int mkeySendOpsFlags() {
        return mkeySendOps;
    }

    // ---------------------------------------------------------------- batch

    /**
     * {@code ibv_wr_start}: opens a batch on this thread, clearing any earlier error. Takes the
     * QP's send-queue lock, waiting while another thread's batch or post holds it, and keeps it
     * until {@link #complete} or {@link #abort}.
     *
     * @throws IllegalStateException when this thread has a batch open on the QP already, or the QP or
     *                               its device is closed
     */
    public void start() {
        qp.ensureUsable();
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
     * The batch is closed either way and the send-queue lock released. Allocates nothing when
     * it succeeds.
     *
     * @throws VerbsException        the first error: EINVAL (a bad request, or the QP in RESET,
     *                               INIT or RTR), ENOMEM (the send queue is full), EOPNOTSUPP (a
     *                               builder the QP was not created for), EFAULT (inline data not
     *                               readable)
     * @throws IllegalStateException when this thread has no batch open
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
            qp.engine().kick();
        }
    }

    /**
     * {@code ibv_wr_abort}: drops the batch; nothing of it is posted, windows it bound get their
     * rkeys back, and the send-queue lock is released.
     *
     * @throws IllegalStateException when this thread has no batch open
     */
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

    /** {@code ibv_wr_send}: a SEND of the data the setters give it, consuming a receive at the peer. */
    public void send() {
        beginWr(WrOpcode.SEND, SendOps.SEND);
    }

    /**
     * {@code ibv_wr_send_imm}: a SEND with immediate data.
     *
     * @param immData the immediate data, as a host-order int (libibverbs' {@code imm_data} is big-endian)
     */
    public void sendImm(int immData) {
        SendWqe w = beginWr(WrOpcode.SEND_WITH_IMM, SendOps.SEND_WITH_IMM);
        if (w != null) {
            w.immData = immData;
        }
    }

    /**
     * {@code ibv_wr_send_inv}: a SEND after which the peer invalidates {@code invalidateRkey} (RC only).
     *
     * @param invalidateRkey the peer's rkey to invalidate (a key that may be invalidated
     *                       remotely, such as a type 2 window's)
     */
    public void sendInv(int invalidateRkey) {
        SendWqe w = beginWr(WrOpcode.SEND_WITH_INV, SendOps.SEND_WITH_INV);
        if (w != null) {
            w.invalidateRkey = invalidateRkey;
        }
    }

    /**
     * {@code ibv_wr_rdma_write}: writes the request's data to the peer's memory.
     *
     * @param rkey       the peer region's (or window's) remote key
     * @param remoteAddr the first byte written, in the peer region's address space
     */
    public void rdmaWrite(int rkey, long remoteAddr) {
        remote(beginWr(WrOpcode.RDMA_WRITE, SendOps.RDMA_WRITE), rkey, remoteAddr);
    }

    /**
     * {@code ibv_wr_rdma_write_imm}: an RDMA WRITE that also consumes a receive at the peer,
     * which completes with the immediate data.
     *
     * @param rkey       the peer region's (or window's) remote key
     * @param remoteAddr the first byte written, in the peer region's address space
     * @param immData    the immediate data, as a host-order int
     */
    public void rdmaWriteImm(int rkey, long remoteAddr, int immData) {
        SendWqe w = beginWr(WrOpcode.RDMA_WRITE_WITH_IMM, SendOps.RDMA_WRITE_WITH_IMM);
        remote(w, rkey, remoteAddr);
        if (w != null) {
            w.immData = immData;
        }
    }

    /**
     * {@code ibv_wr_rdma_read}: reads the peer's memory into the request's SGEs (RC, SRD).
     *
     * @param rkey       the peer region's (or window's) remote key
     * @param remoteAddr the first byte read, in the peer region's address space
     */
    public void rdmaRead(int rkey, long remoteAddr) {
        remote(beginWr(WrOpcode.RDMA_READ, SendOps.RDMA_READ), rkey, remoteAddr);
    }

    /**
     * {@code ibv_wr_atomic_cmp_swp}: at the peer, if the 8 bytes at {@code remoteAddr} equal
     * {@code compare}, stores {@code swap}; the original value lands in the SGE, which must be
     * 8 bytes (RC only).
     *
     * @param rkey       the peer region's remote key (with {@code REMOTE_ATOMIC})
     * @param remoteAddr the 8-byte target, in the peer region's address space
     * @param compare    the value expected
     * @param swap       the value stored when it matches
     */
    public void atomicCmpSwp(int rkey, long remoteAddr, long compare, long swap) {
        SendWqe w = beginWr(WrOpcode.ATOMIC_CMP_AND_SWP, SendOps.ATOMIC_CMP_AND_SWP);
        remote(w, rkey, remoteAddr);
        if (w != null) {
            w.compareAdd = compare;
            w.swap = swap;
        }
    }

    /**
     * {@code ibv_wr_atomic_fetch_add}: adds {@code add} to the 8 bytes at the peer; the original
     * value lands in the SGE, which must be 8 bytes (RC only).
     *
     * @param rkey       the peer region's remote key (with {@code REMOTE_ATOMIC})
     * @param remoteAddr the 8-byte target, in the peer region's address space
     * @param add        the value added
     */
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
     * ({@code Flush.PERSISTENT}) at the peer. Takes no SGE (RC only).
     *
     * @param rkey       the peer region's remote key
     * @param remoteAddr the range's first byte, in the peer region's address space
     * @param len        the range's length, bytes
     * @param type       {@code Flush.GLOBAL} and/or {@code Flush.PERSISTENT} (else EINVAL)
     * @param level      {@code Flush.RANGE} or {@code Flush.MR} (else EINVAL)
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

    /**
     * {@code ibv_wr_atomic_write}: stores 8 bytes at the peer in one piece (RC only). Takes no SGE.
     *
     * @param rkey       the peer region's remote key
     * @param remoteAddr the 8-byte target, in the peer region's address space
     * @param value      the 8 bytes, as they lie in host memory (a host-order long)
     */
    public void atomicWrite(int rkey, long remoteAddr, long value) {
        SendWqe w = beginWr(WrOpcode.ATOMIC_WRITE, SendOps.ATOMIC_WRITE);
        remote(w, rkey, remoteAddr);
        if (w != null) {
            w.compareAdd = value;
            w.length = 8;
        }
    }

    /**
     * {@code ibv_wr_atomic_write} with the 8 bytes taken from {@code atomicWr} (as memcpy would).
     *
     * @param rkey       the peer region's remote key
     * @param remoteAddr the 8-byte target, in the peer region's address space
     * @param atomicWr   exactly 8 bytes (any other size latches EINVAL)
     */
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
     * says the new rkey at once (and gets the old one back if the batch is rolled back); it is
     * valid at the peer once the bind has executed. A bind the window cannot take completes with
     * {@code IBV_WC_MW_BIND_ERR}.
     *
     * @param mw      a window of this device (else EINVAL), normally type 2
     * @param newRkey the rkey the window gets (its low 8 bits are taken), usually
     *                {@link MemoryWindow#incRkey} of {@code mw.rkey()}
     * @param mr      the region to bind into, of this device
     * @param addr    the window's first byte, in the region's address space
     * @param length  the window's length, bytes
     * @param access  {@code Access.REMOTE_READ}, {@code REMOTE_WRITE}, {@code REMOTE_ATOMIC}, {@code ZERO_BASED}
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

    /**
     * {@code ibv_wr_local_inv}: invalidates {@code invalidateRkey} in send-queue order (RC, UC);
     * one that cannot be invalidated completes with {@code IBV_WC_LOC_QP_OP_ERR}.
     *
     * @param invalidateRkey the key to invalidate (a type 2 window or an indirect key)
     */
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

    /**
     * {@code ibv_wr_set_sge}: gives the current request one SGE (replacing any), checked when it
     * executes.
     *
     * @param lkey   the local key of the region
     * @param addr   the first byte, in the region's address space
     * @param length bytes (unsigned 32-bit)
     */
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

    /**
     * {@code ibv_wr_set_sge_list}: gives the current request the first {@code n} of {@code sges},
     * copied now; more than the QP's {@code maxSendSge} (or than {@code sges} holds) latches EINVAL.
     *
     * @param n    how many elements to take
     * @param sges the elements (may be reused once this returns)
     */
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
     * into the request now (no key needed; an unreadable address latches EFAULT). Only for SEND
     * and RDMA WRITE, and at most the QP's {@code maxInlineData} bytes (else EINVAL); sets
     * {@code IBV_SEND_INLINE}.
     *
     * @param addr   the process address of the bytes
     * @param length bytes
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

    /**
     * {@code ibv_wr_set_inline_data} from a segment: copies all of {@code data} into the request
     * now, with the limits of {@link #setInlineData(long, int)}.
     *
     * @param data the bytes (may be reused once this returns)
     */
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
     * copied into the request now, with the limits of {@link #setInlineData(long, int)} on the total.
     *
     * @param n    how many segments to take (more than {@code data} holds latches EINVAL)
     * @param data the segments (may be reused once this returns)
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
     * it is complete). rdma-core offers it on UD QPs (and EFA on SRD ones) only; on any other QP
     * it latches EINVAL, as it does for a destroyed address handle or one of another protection
     * domain.
     *
     * @param ah         the address handle of the destination
     * @param remoteQpn  the destination QP number (24 bits)
     * @param remoteQkey the Q_Key the destination QP checks
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
