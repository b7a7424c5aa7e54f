package dev.jrxe.verbs;

import dev.jrxe.ib.WcStatus;

/** A work completion ({@code struct ibv_wc}); {@link CompletionQueue#poll} fills reusable ones. */
public final class WorkCompletion {
    public long wrId;
    /** {@link WcStatus}. */
    public int status;
    /** {@link dev.jrxe.ib.WcOpcode}. */
    public int opcode;
    public int vendorErr;
    public int byteLen;
    /** Immediate data (host order) when {@code wcFlags} has WITH_IMM. */
    public int immData;
    public int invalidatedRkey;
    public int qpNum;
    public int srcQp;
    /** {@link dev.jrxe.ib.WcFlags}. */
    public int wcFlags;
    public int pkeyIndex;
    public int slid;
    public int sl;
    public int dlidPathBits;

    /** SRD: the completion of a WRITE_WITH_IMM that consumed no receive WQE (efadv_wc_is_unsolicited). */
    public boolean isUnsolicited() {
        return (wcFlags & dev.jrxe.ib.WcFlags.UNSOLICITED) != 0;
    }

    public boolean ok() {
        return status == WcStatus.SUCCESS;
    }

    @Override
    public String toString() {
        return "wc{wr_id=" + wrId + ", status=" + WcStatus.str(status) + ", opcode=" + opcode + ", byte_len="
            + byteLen + ", qp=0x" + Integer.toHexString(qpNum) + "}";
    }
}
