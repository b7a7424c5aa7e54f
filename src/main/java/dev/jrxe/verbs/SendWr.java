package dev.jrxe.verbs;

import dev.jrxe.ib.WrOpcode;

/**
 * A send work request ({@code struct ibv_send_wr}), reusable: posting copies it into the send
 * queue, so the same object may be filled and posted again at once. Chain several with
 * {@link #next}.
 */
public final class SendWr {
    public long wrId;
    public int opcode = WrOpcode.SEND;
    /** {@link dev.jrxe.ib.SendFlags}. */
    public int sendFlags;
    public final Sge[] sgList;
    public int numSge;
    /** Immediate data (host order) for *_WITH_IMM. */
    public int immData;
    /** The rkey to invalidate for SEND_WITH_INV / LOCAL_INV. */
    public int invalidateRkey;
    /** RDMA and atomic: remote address and key. */
    public long remoteAddr;
    public int rkey;
    /** Atomic: compare (CMP_AND_SWP) or add (FETCH_AND_ADD) value, and swap value. */
    public long compareAdd;
    public long swap;
    /** UD: address handle, remote QPN and Q_Key. */
    public AddressHandle ah;
    public int remoteQpn;
    public int remoteQkey;
    /** Next request of a chain, or null. */
    public SendWr next;

    public SendWr() {
        this(4);
    }

    public SendWr(int maxSge) {
        sgList = new Sge[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sgList[i] = new Sge();
        }
    }

    /** Convenience: one SGE. */
    public SendWr sge(long addr, int length, int lkey) {
        sgList[0].set(addr, length, lkey);
        numSge = 1;
        return this;
    }

    public SendWr rdma(long remoteAddr, int rkey) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }
}
