package dev.jrxe.verbs;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.WrOpcode;

/**
 * A send work request ({@code struct ibv_send_wr}): a SEND, RDMA WRITE or READ, atomic, FLUSH,
 * ATOMIC_WRITE, memory-window bind or local invalidate, posted with {@link QueuePair#postSend}
 * or {@link QueuePair#trySend}. Reusable: posting copies it into the send queue, so the same
 * object may be filled and posted again at once, and posting allocates nothing; {@link #reset}
 * clears it for another operation. Chain several with {@link #next}. Fields that the opcode does
 * not use are ignored.
 *
 * <p>Not thread safe: one per thread; posting copies it.
 *
 * <pre>{@code
 * SendWr wr = new SendWr(1);
 * wr.sge(mr, 0, 64).remote(peerBuffer).opcode = WrOpcode.RDMA_WRITE;
 * wr.sendFlags = SendFlags.SIGNALED;
 * qp.postSend(wr);                      // wr may be refilled at once
 * }</pre>
 */
public final class SendWr {
    /** {@code wr_id}: the application's tag, returned in the request's {@link WorkCompletion#wrId}. */
    public long wrId;
    /**
     * {@code opcode}: a {@link WrOpcode} ({@code IBV_WR_*}), SEND by default; one the QP type does
     * not allow is EINVAL.
     */
    public int opcode = WrOpcode.SEND;
    /**
     * {@code send_flags}: {@link dev.jrxe.ib.SendFlags} bits ({@code IBV_SEND_SIGNALED},
     * {@code FENCE}, {@code SOLICITED}, {@code INLINE}).
     */
    public int sendFlags;
    /**
     * {@code sg_list}: the gather list (for READ and atomics, where the result lands), allocated
     * once; the first {@link #numSge} are posted.
     */
    public final Sge[] sgList;
    /**
     * {@code num_sge}: elements of {@link #sgList} in use; above the QP's {@code maxSendSge} or the
     * array is EINVAL.
     */
    public int numSge;
    /**
     * {@code imm_data} of SEND_WITH_IMM and RDMA_WRITE_WITH_IMM, as a host-order int (libibverbs'
     * field is big-endian).
     */
    public int immData;
    /** {@code invalidate_rkey}: the rkey the peer invalidates (SEND_WITH_INV) or this QP invalidates (LOCAL_INV). */
    public int invalidateRkey;
    /**
     * {@code wr.rdma.remote_addr} / {@code wr.atomic.remote_addr}: the target, in the peer region's
     * address space (RDMA, atomics, FLUSH).
     */
    public long remoteAddr;
    /** {@code wr.rdma.rkey} / {@code wr.atomic.rkey}: the peer's remote key; for BIND_MW, the rkey the window gets. */
    public int rkey;
    /** {@code wr.atomic.compare_add}: the value compared (ATOMIC_CMP_AND_SWP) or added (ATOMIC_FETCH_AND_ADD). */
    public long compareAdd;
    /** {@code wr.atomic.swap}: the value stored by ATOMIC_CMP_AND_SWP when the compare matches. */
    public long swap;
    /**
     * BIND_MW ({@code wr.bind_mw.mw}): the window to bind; {@link #rkey} is the rkey it gets (only
     * its low 8 bits are taken; usually {@link MemoryWindow#incRkey} of the current one).
     */
    public MemoryWindow mw;
    /**
     * BIND_MW ({@code bind_info.mr}): the region the window covers; null with length 0 only
     * unbinds a type 1 window (what {@link QueuePair#bindMw} posts).
     */
    public MemoryRegion bindMr;
    /** BIND_MW ({@code bind_info.addr}): the window's first byte, in the region's address space. */
    public long bindAddr;
    /** BIND_MW ({@code bind_info.length}): the window's length, bytes. */
    public long bindLength;
    /** BIND_MW ({@code bind_info.mw_access_flags}): {@code Access.REMOTE_*} and {@code ZERO_BASED}. */
    public int bindAccess;
    /**
     * FLUSH: placement type, {@code Flush.GLOBAL} and/or {@code Flush.PERSISTENT};
     * {@link #remoteAddr}, {@link #rkey} and {@link #flushLength} name the range.
     */
    public int flushType;
    /** FLUSH: level, {@code Flush.RANGE} (the range) or {@code Flush.MR} (the whole region). */
    public int flushLevel;
    /** FLUSH: bytes of the range at {@link #remoteAddr}. */
    public long flushLength;
    /** ATOMIC_WRITE: the 8 bytes to store, as a host-order long. */
    public long atomicWriteValue;
    /** UD and SRD ({@code wr.ud.ah}): the address handle of the destination; required (else EINVAL). */
    public AddressHandle ah;
    /** UD and SRD ({@code wr.ud.remote_qpn}): the destination QP number (24 bits). */
    public int remoteQpn;
    /** UD and SRD ({@code wr.ud.remote_qkey}): the Q_Key the destination QP checks. */
    public int remoteQkey;
    /** {@code next}: the next request of a chain, or null; a chain is posted in order, up to the first bad one. */
    public SendWr next;

    /** A SEND request with room for 4 SGEs. */
    public SendWr() {
        this(4);
    }

    /**
     * A SEND request with room for {@code maxSge} SGEs, all allocated now.
     *
     * @param maxSge the length of {@link #sgList}
     */
    public SendWr(int maxSge) {
        sgList = new Sge[maxSge];
        for (int i = 0; i < maxSge; i++) {
            sgList[i] = new Sge();
        }
    }

    /**
     * Back to a new request's state (SEND, no flags, no SGEs, every field zero, no chain), so one
     * object serves any operation without allocating; the SGE objects are kept.
     *
     * @return this request
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
     * One SGE over {@code [offset, offset + length)} of {@code mr}, checked against the region:
     * sets {@code sgList[0]} and {@link #numSge} = 1.
     *
     * @param mr     the local region to gather from (or, for READ and atomics, to write into)
     * @param offset the first byte, from the region's start
     * @param length bytes
     * @return this request
     * @throws IndexOutOfBoundsException when the range is not inside the region
     */
    public SendWr sge(MemoryRegion mr, long offset, int length) {
        sgList[0].set(mr.addressAt(offset, length), length, mr.lkey());
        numSge = 1;
        return this;
    }

    /**
     * The RDMA or atomic target: sets {@link #remoteAddr} and {@link #rkey} from a peer's buffer
     * ({@link RemoteBuffer#at} for a part of it). The buffer's length is not checked here; the
     * peer checks the access against its region.
     *
     * @param buffer the peer's buffer
     * @return this request
     */
    public SendWr remote(RemoteBuffer buffer) {
        remoteAddr = buffer.address();
        rkey = buffer.rkey();
        return this;
    }

    /**
     * One SGE, unchecked: sets {@code sgList[0]} and {@link #numSge} = 1. The key and range are
     * checked when the request executes (a bad one completes with {@code IBV_WC_LOC_PROT_ERR}).
     *
     * @param addr   the first byte, in the region's address space
     * @param length bytes
     * @param lkey   the local key of the region
     * @return this request
     */
    public SendWr sge(long addr, int length, int lkey) {
        sgList[0].set(addr, length, lkey);
        numSge = 1;
        return this;
    }

    /**
     * Makes this a BIND_MW request ({@code IBV_WR_BIND_MW}, a type 2 window) of {@code mw} to
     * {@code [addr, addr+length)} of {@code mr}, with no SGEs; {@link #wrId} and
     * {@link #sendFlags} are left as they are.
     *
     * @param mw      the window
     * @param newRkey the rkey the window gets (its low 8 bits are taken), usually
     *                {@link MemoryWindow#incRkey} of {@code mw.rkey()}
     * @param mr      the region to bind into (a bind the window cannot take completes with
     *                {@code IBV_WC_MW_BIND_ERR})
     * @param addr    the window's first byte, in the region's address space
     * @param length  the window's length, bytes
     * @param access  {@code Access.REMOTE_READ}, {@code REMOTE_WRITE}, {@code REMOTE_ATOMIC}, {@code ZERO_BASED}
     * @return this request
     */
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

    /**
     * The RDMA or atomic target by address and key: sets {@link #remoteAddr} and {@link #rkey}.
     *
     * @param remoteAddr the target, in the peer region's address space
     * @param rkey       the peer's remote key
     * @return this request
     */
    public SendWr rdma(long remoteAddr, int rkey) {
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        return this;
    }
}
