package dev.jrxe.verbs;

import dev.jrxe.ib.Access;
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
    /**
     * BIND_MW ({@code wr.bind_mw}): the window, and its binding: region, first address, length
     * and access ({@code Access.REMOTE_*}, {@code ZERO_BASED}); {@link #rkey} is the rkey the
     * window gets (usually {@link MemoryWindow#incRkey} of its current one).
     */
    public MemoryWindow mw;
    public MemoryRegion bindMr;
    public long bindAddr;
    public long bindLength;
    public int bindAccess;
    /** FLUSH: placement type ({@code Flush.GLOBAL}, {@code PERSISTENT}) and level ({@code Flush.RANGE}, {@code MR});
     *  {@link #remoteAddr}, {@link #rkey} and {@link #flushLength} name the range. */
    public int flushType;
    public int flushLevel;
    public long flushLength;
    /** ATOMIC_WRITE: the 8 bytes to store, as a host-order long. */
    public long atomicWriteValue;
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

    /**
     * Back to a new request's state (SEND, no flags, no SGEs, every field zero, no chain), so one
     * object serves any operation without allocating; the SGE objects are kept.
     */
    public SendWr reset() {
        wrId = 0;
        opcode = WrOpcode.SEND;
        sendFlags = 0;
        numSge = 0;
        immData = 0;
        invalidateRkey = 0;
        remoteAddr = 0;
        rkey = 0;
        compareAdd = 0;
        swap = 0;
        mw = null;
        bindMr = null;
        bindAddr = 0;
        bindLength = 0;
        bindAccess = 0;
        flushType = 0;
        flushLevel = 0;
        flushLength = 0;
        atomicWriteValue = 0;
        ah = null;
        remoteQpn = 0;
        remoteQkey = 0;
        next = null;
        for (Sge s : sgList) {
            s.set(0, 0, 0);
        }
        return this;
    }

    /**
     * One SGE over {@code [offset, offset + length)} of {@code mr}, checked against the region.
     *
     * @throws IndexOutOfBoundsException when the range is not inside the region
     */
    public SendWr sge(MemoryRegion mr, long offset, int length) {
        sgList[0].set(mr.addressAt(offset, length), length, mr.lkey());
        numSge = 1;
        return this;
    }

    /** The RDMA target: a peer's buffer ({@link RemoteBuffer#at} for a part of it). */
    public SendWr remote(RemoteBuffer buffer) {
        remoteAddr = buffer.address();
        rkey = buffer.rkey();
        return this;
    }

    /** Convenience: one SGE. */
    public SendWr sge(long addr, int length, int lkey) {
        sgList[0].set(addr, length, lkey);
        numSge = 1;
        return this;
    }

    /** Convenience: a BIND_MW request of {@code mw} to {@code [addr, addr+length)} of {@code mr}. */
    public SendWr bindMw(MemoryWindow mw, int newRkey, MemoryRegion mr, long addr, long length, int access) {
        this.opcode = WrOpcode.BIND_MW;
        this.mw = mw;
        this.rkey = newRkey;
        this.bindMr = mr;
        this.bindAddr = addr;
        this.bindLength = length;
        this.bindAccess = access;
        this.numSge = 0;
        return this;
    }

    public SendWr rdma(long remoteAddr, int rkey) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }
}
