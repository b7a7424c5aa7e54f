package dev.jrxe.verbs;

import dev.jrxe.ib.WcStatus;

/**
 * A work completion ({@code struct ibv_wc}): what {@link CompletionQueue#poll} copies out of the
 * CQ, into objects the application allocates once and reuses. Fields jrxe never produces (it has
 * no vendor errors, P_Keys, LIDs or SLs over RoCE) read 0; fields a completion does not carry
 * (for example {@code byteLen} of a successful SEND) are 0 as well.
 *
 * <p>Not thread safe: a plain mutable object, one array per polling thread; each poll overwrites it.
 *
 * <pre>{@code
 * WorkCompletion[] wc = new WorkCompletion[16];
 * java.util.Arrays.setAll(wc, i -> new WorkCompletion());
 * int n = cq.poll(wc);
 * for (int i = 0; i < n; i++) {
 *     if (!wc[i].ok()) System.err.println(wc[i] + " " + WcStatus.str(wc[i].status));
 * }
 * }</pre>
 */
public final class WorkCompletion {
    /** An all-zero completion, for the array that {@link CompletionQueue#poll} fills. */
    public WorkCompletion() {
    }

    /** {@code wr_id}: the id of the work request this completes (0 for an unsolicited SRD WRITE_WITH_IMM). */
    public long wrId;
    /** {@link WcStatus}. */
    public int status;
    /** {@link dev.jrxe.ib.WcOpcode}. */
    public int opcode;
    /** {@code vendor_err}: always 0 (jrxe reports no vendor syndromes). */
    public int vendorErr;
    /**
     * {@code byte_len}: bytes received (a UD receive counts its 40-byte GRH area), read by an
     * RDMA_READ or FLUSH, or 8 for an atomic; 0 for other send completions.
     */
    public int byteLen;
    /** Immediate data (host order) when {@code wcFlags} has WITH_IMM. */
    public int immData;
    /** {@code invalidated_rkey}: the rkey a peer's SEND_WITH_INV invalidated, when {@code wcFlags} has WITH_INV. */
    public int invalidatedRkey;
    /** {@code qp_num}: the local QP the completion belongs to. */
    public int qpNum;
    /**
     * {@code src_qp}: on a receive, the sending QP (from the DETH for UD and SRD, the connected
     * peer for RC and UC); 0 on a send completion.
     */
    public int srcQp;
    /** {@link dev.jrxe.ib.WcFlags}. */
    public int wcFlags;
    /** {@code pkey_index}: always 0 (jrxe has the default P_Key only). */
    public int pkeyIndex;
    /** {@code slid}: always 0 (RoCE has no LIDs). */
    public int slid;
    /** {@code sl}: always 0. */
    public int sl;
    /** {@code dlid_path_bits}: always 0 (RoCE has no LIDs). */
    public int dlidPathBits;

    /**
     * SRD: the completion of a WRITE_WITH_IMM that consumed no receive WQE (efadv_wc_is_unsolicited).
     *
     * @return whether {@code wcFlags} has {@link dev.jrxe.ib.WcFlags#UNSOLICITED}
     */
    public boolean isUnsolicited() {
        return (wcFlags & dev.jrxe.ib.WcFlags.UNSOLICITED) != 0;
    }

    /** {@return whether {@code status} is {@code IBV_WC_SUCCESS}} */
    public boolean ok() {
        return status == WcStatus.SUCCESS;
    }

    @Override
    public String toString() {
        return "wc{wr_id=" + wrId + ", status=" + WcStatus.str(status) + ", opcode=" + opcode + ", byte_len="
            + byteLen + ", qp=0x" + Integer.toHexString(qpNum) + "}";
    }
}
