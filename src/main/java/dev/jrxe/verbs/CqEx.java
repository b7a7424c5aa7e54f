package dev.jrxe.verbs;

import dev.jrxe.transport.Cqe;

/**
 * The extended poll API of a CQ ({@code ibv_cq_ex}): {@link #startPoll} takes the oldest
 * completion, {@link #nextPoll} moves to the next one, {@link #endPoll} ends the pass; between
 * them the readers return the fields of the current completion. Reading a field the CQ was not
 * created with ({@link WcFlagsEx}) throws {@link IllegalStateException} (in C the reader does
 * not exist). Completions are consumed as the pass moves past them; nothing is copied or
 * allocated.
 *
 * <pre>{@code
 * CqEx x = cq.ex();
 * if (x.startPoll()) {
 *     do {
 *         handle(x.wrId(), x.status(), x.readByteLen(), x.readCompletionTs());
 *     } while (x.nextPoll());
 *     x.endPoll();
 * }
 * }</pre>
 *
 * <p>A pass holds the CQ's consumer lock from {@code startPoll} (when it returns true) to
 * {@code endPoll}, on one thread.
 */
public final class CqEx {
    private final CompletionQueue cq;
    private final int wcFlags;
    private Cqe cur;
    private boolean open;

    CqEx(CompletionQueue cq, int wcFlags) {
        this.cq = cq;
        this.wcFlags = wcFlags;
    }

    /** The {@link WcFlagsEx} bits the CQ was created with. */
    public int wcFlags() {
        return wcFlags;
    }

    /**
     * {@code ibv_start_poll}: true with the oldest completion current (then call
     * {@link #endPoll} after the pass), false when the CQ is empty (ENOENT: no pass is open).
     * Like {@link CompletionQueue#poll}, an empty CQ lets this thread drive the device once.
     */
    public boolean startPoll() {
        if (open && cq.lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("a poll pass is already open (call endPoll)");
        }
        if (cq.ring().peek() == null && !cq.drive()) {
            return false;
        }
        cq.lock.lock();
        Cqe e = cq.ring().peek();
        if (e == null) {
            cq.lock.unlock();
            return false;
        }
        open = true;
        cur = e;
        return true;
    }

    /** {@code ibv_next_poll}: consumes the current completion; true when there is another. */
    public boolean nextPoll() {
        requireOpen();
        if (cur != null) {
            cq.ring().pop();
            cur = null;
        }
        Cqe e = cq.ring().peek();
        if (e == null) {
            return false;
        }
        cur = e;
        return true;
    }

    /** {@code ibv_end_poll}: consumes the current completion (if any) and ends the pass. */
    public void endPoll() {
        requireOpen();
        if (cur != null) {
            cq.ring().pop();
            cur = null;
        }
        open = false;
        cq.lock.unlock();
    }

    private void requireOpen() {
        if (!open || !cq.lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("no poll pass open on this thread (startPoll returned false?)");
        }
    }

    private Cqe current() {
        requireOpen();
        if (cur == null) {
            throw new IllegalStateException("no current completion (nextPoll returned false)");
        }
        return cur;
    }

    private Cqe current(int flag, String name) {
        if ((wcFlags & flag) == 0) {
            throw new IllegalStateException("the CQ was created without " + name);
        }
        return current();
    }

    // ---------------------------------------------------------------- always there

    public long wrId() {
        return current().wrId;
    }

    /** {@link dev.jrxe.ib.WcStatus}. */
    public int status() {
        return current().status;
    }

    /** {@code ibv_wc_read_opcode}: {@link dev.jrxe.ib.WcOpcode}. */
    public int readOpcode() {
        return current().opcode;
    }

    public int readVendorErr() {
        return current().vendorErr;
    }

    /** {@code ibv_wc_read_wc_flags}: {@link dev.jrxe.ib.WcFlags}. */
    public int readWcFlags() {
        return current().wcFlags;
    }

    // ---------------------------------------------------------------- by creation flag

    public int readByteLen() {
        return current(WcFlagsEx.WITH_BYTE_LEN, "WITH_BYTE_LEN").byteLen;
    }

    public int readImmData() {
        return current(WcFlagsEx.WITH_IMM, "WITH_IMM").immData;
    }

    /** {@code ibv_wc_read_invalidated_rkey} (it comes with WITH_IMM, as in rdma-core). */
    public int readInvalidatedRkey() {
        return current(WcFlagsEx.WITH_IMM, "WITH_IMM").invalidatedRkey;
    }

    public int readQpNum() {
        return current(WcFlagsEx.WITH_QP_NUM, "WITH_QP_NUM").qpNum;
    }

    public int readSrcQp() {
        return current(WcFlagsEx.WITH_SRC_QP, "WITH_SRC_QP").srcQp;
    }

    public int readSlid() {
        return current(WcFlagsEx.WITH_SLID, "WITH_SLID").slid;
    }

    public int readSl() {
        return current(WcFlagsEx.WITH_SL, "WITH_SL").sl;
    }

    public int readDlidPathBits() {
        return current(WcFlagsEx.WITH_DLID_PATH_BITS, "WITH_DLID_PATH_BITS").dlidPathBits;
    }

    /**
     * {@code ibv_wc_read_completion_ts}: when the device produced the completion, in its clock's
     * units (nanoseconds: {@code hca_core_clock} 1,000,000 kHz, mask all 64 bits).
     */
    public long readCompletionTs() {
        return current(WcFlagsEx.WITH_COMPLETION_TIMESTAMP, "WITH_COMPLETION_TIMESTAMP").timestamp;
    }
}
