package dev.jrxe.verbs;

import dev.jrxe.transport.Cqe;

/**
 * The extended poll API of a CQ ({@code ibv_cq_ex}): {@link #startPoll} takes the oldest
 * completion, {@link #nextPoll} moves to the next one, {@link #endPoll} ends the pass; between
 * them the readers return the fields of the current completion. Reading a field the CQ was not
 * created with ({@link WcFlagsEx}) throws {@link IllegalStateException} (in C the reader does
 * not exist), as does any reader outside a pass or after {@code nextPoll} returned false.
 * Completions are consumed as the pass moves past them; nothing is copied or allocated.
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
 * <p>Thread safety: {@link CompletionQueue#ex()} returns one {@code CqEx} per CQ, shared by its
 * threads. A pass holds the CQ's consumer lock from {@code startPoll} (when it returns true) to
 * {@code endPoll}, on one thread: passes of several threads, and {@link CompletionQueue#poll},
 * wait for each other. {@code nextPoll}, {@code endPoll} and the readers work only on the thread
 * whose pass is open ({@link IllegalStateException} on any other).
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

    /** {@return the {@link WcFlagsEx} bits the CQ was created with ({@code wc_flags} of {@code ibv_create_cq_ex})} */
    public int wcFlags() {
        return wcFlags;
    }

    /**
     * {@code ibv_start_poll}: true with the oldest completion current (then call
     * {@link #endPoll} after the pass), false when the CQ is empty (ENOENT: no pass is open).
     * Like {@link CompletionQueue#poll}, an empty CQ lets this thread drive the device once.
     *
     * @return whether a completion is current and the pass is open
     * @throws IllegalStateException when this thread has a pass open already, or the CQ (or its device) is closed
     */
    public boolean startPoll() {
        cq.ensureUsable();
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

    /**
     * {@code ibv_next_poll}: consumes the current completion and makes the next one current. It
     * does not drive the device; on false (ENOENT) the pass stays open until {@link #endPoll}.
     *
     * @return whether there is another completion
     * @throws IllegalStateException when no pass is open on this thread
     */
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

    /**
     * {@code ibv_end_poll}: consumes the current completion (if any) and ends the pass, releasing
     * the CQ's consumer lock.
     *
     * @throws IllegalStateException when no pass is open on this thread
     */
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

    /** {@return {@code cq_ex->wr_id} of the current completion} */
    public long wrId() {
        return current().wrId;
    }

    /** {@return {@code cq_ex->status} of the current completion: a {@link dev.jrxe.ib.WcStatus}} */
    public int status() {
        return current().status;
    }

    /** {@return {@code ibv_wc_read_opcode}: a {@link dev.jrxe.ib.WcOpcode}} */
    public int readOpcode() {
        return current().opcode;
    }

    /** {@return {@code ibv_wc_read_vendor_err}: always 0 in jrxe} */
    public int readVendorErr() {
        return current().vendorErr;
    }

    /** {@return {@code ibv_wc_read_wc_flags}: {@link dev.jrxe.ib.WcFlags} bits} */
    public int readWcFlags() {
        return current().wcFlags;
    }

    // ---------------------------------------------------------------- by creation flag

    /**
     * {@return {@code ibv_wc_read_byte_len}: bytes received, or read by an RDMA_READ, as
     * {@link WorkCompletion#byteLen}} Needs {@link WcFlagsEx#WITH_BYTE_LEN}.
     */
    public int readByteLen() {
        return current(WcFlagsEx.WITH_BYTE_LEN, "WITH_BYTE_LEN").byteLen;
    }

    /**
     * {@return {@code ibv_wc_read_imm_data}: immediate data (host order), meaningful when
     * {@link #readWcFlags()} has WITH_IMM} Needs {@link WcFlagsEx#WITH_IMM}.
     */
    public int readImmData() {
        return current(WcFlagsEx.WITH_IMM, "WITH_IMM").immData;
    }

    /**
     * {@return {@code ibv_wc_read_invalidated_rkey}: the rkey a SEND_WITH_INV invalidated, when
     * {@link #readWcFlags()} has WITH_INV} Needs {@link WcFlagsEx#WITH_IMM}, as in rdma-core.
     */
    public int readInvalidatedRkey() {
        return current(WcFlagsEx.WITH_IMM, "WITH_IMM").invalidatedRkey;
    }

    /** {@return {@code ibv_wc_read_qp_num}: the local QP number} Needs {@link WcFlagsEx#WITH_QP_NUM}. */
    public int readQpNum() {
        return current(WcFlagsEx.WITH_QP_NUM, "WITH_QP_NUM").qpNum;
    }

    /**
     * {@return {@code ibv_wc_read_src_qp}: on a receive, the sending QP number (see
     * {@link WorkCompletion#srcQp})} Needs {@link WcFlagsEx#WITH_SRC_QP}.
     */
    public int readSrcQp() {
        return current(WcFlagsEx.WITH_SRC_QP, "WITH_SRC_QP").srcQp;
    }

    /** {@return {@code ibv_wc_read_slid}: always 0 over RoCE} Needs {@link WcFlagsEx#WITH_SLID}. */
    public int readSlid() {
        return current(WcFlagsEx.WITH_SLID, "WITH_SLID").slid;
    }

    /** {@return {@code ibv_wc_read_sl}: always 0 in jrxe} Needs {@link WcFlagsEx#WITH_SL}. */
    public int readSl() {
        return current(WcFlagsEx.WITH_SL, "WITH_SL").sl;
    }

    /**
     * {@return {@code ibv_wc_read_dlid_path_bits}: always 0 over RoCE} Needs
     * {@link WcFlagsEx#WITH_DLID_PATH_BITS}.
     */
    public int readDlidPathBits() {
        return current(WcFlagsEx.WITH_DLID_PATH_BITS, "WITH_DLID_PATH_BITS").dlidPathBits;
    }

    /**
     * {@code ibv_wc_read_completion_ts}: when the device produced the completion, in its clock's
     * units (nanoseconds: {@code hca_core_clock} 1,000,000 kHz, mask all 64 bits).
     *
     * @return the device's clock ({@link DeviceConfig#clock}, by default {@link System#nanoTime()})
     *         at the duty cycle that produced the completion; its origin is arbitrary, so compare
     *         it only with other readings of that clock. Needs
     *         {@link WcFlagsEx#WITH_COMPLETION_TIMESTAMP}.
     */
    public long readCompletionTs() {
        return current(WcFlagsEx.WITH_COMPLETION_TIMESTAMP, "WITH_COMPLETION_TIMESTAMP").timestamp;
    }
}
