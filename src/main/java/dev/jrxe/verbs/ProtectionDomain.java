package dev.jrxe.verbs;

import dev.jrxe.ib.Advice;
import dev.jrxe.ib.Errno;
import java.lang.foreign.MemorySegment;

/**
 * A protection domain ({@code ibv_pd}), from {@link Device#allocPd}: the scope of memory keys
 * (regions, windows, indirect keys), QPs, SRQs and address handles. A QP may use only the keys
 * of its own PD; a key of another PD fails the access as a bad key would.
 *
 * <pre>{@code
 * ProtectionDomain pd = device.allocPd();
 * MemoryRegion mr = pd.registerMemory(arena.allocate(4096, 4096), Access.LOCAL_WRITE | Access.REMOTE_READ);
 * QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap()));
 * // ...
 * qp.close(); mr.close(); pd.close();   // children first: a PD in use is EBUSY
 * }</pre>
 *
 * <p>Thread safe: every method may be called from any thread. Once the PD or its device is
 * closed, the creating methods throw {@link IllegalStateException}.
 */
public final class ProtectionDomain implements AutoCloseable {
    private final Device device;
    private final int handle;

    ProtectionDomain(Device device, int handle) {
        this.device = device;
        this.handle = handle;
    }

    /** {@return the device this PD was allocated on} */
    public Device device() {
        return device;
    }

    /** {@return the PD's number on its device, which memory keys record their PD by (the PD handle)} */
    public int handle() {
        return handle;
    }

    /**
     * {@code ibv_reg_mr} over a native segment the application owns, with iova = its address.
     * Without {@code Access.ON_DEMAND} the memory is pinned (populated and locked) now; with it,
     * explicit ODP (pages faulted in on first access).
     *
     * @param segment the memory; it must stay alive until the region is closed
     * @param access  {@link dev.jrxe.ib.Access} bits ({@code IBV_ACCESS_*}); REMOTE_WRITE or
     *                REMOTE_ATOMIC need LOCAL_WRITE
     * @return the region, with its lkey and rkey
     * @throws VerbsException EINVAL for a heap segment or bad access bits; EFAULT for a read-only
     *                        segment with write access or memory that is not mapped; ENOMEM when
     *                        pinning fails or max_mr is reached
     */
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        if (!segment.isNative()) {
            throw VerbsException.einval("memory regions need native memory");
        }
        ensureOpen();
        return MemoryRegion.register(this, segment, access);
    }

    /**
     * {@code ibv_reg_mr(pd, addr, length, access)}, with iova = {@code addr}. Address 0 with
     * length -1 ({@code SIZE_MAX}) and {@code Access.ON_DEMAND} registers implicit ODP: the whole
     * address space, backed by 2 MiB children made on first touch.
     *
     * @param addr   process address of the first byte
     * @param length bytes, or -1 for implicit ODP
     * @param access {@link dev.jrxe.ib.Access} bits
     * @return the region
     * @throws VerbsException as {@link #registerMemory(long, long, long, int)}
     */
    public MemoryRegion registerMemory(long addr, long length, int access) {
        return registerMemory(addr, length, addr, access);
    }

    /**
     * {@code ibv_reg_mr_iova2}: registers {@code [addr, addr + length)} of this process, which
     * work requests and peers then address as {@code [iova, iova + length)}.
     *
     * @param addr   process address of the first byte (0 with length -1: implicit ODP)
     * @param length bytes
     * @param iova   the address the keys give the first byte; same page offset as {@code addr}
     * @param access {@link dev.jrxe.ib.Access} bits
     * @return the region
     * @throws VerbsException EINVAL for bad access bits, length 0, a range that overflows, iova
     *                        and addr in different page offsets, or implicit ODP without
     *                        ON_DEMAND or with iova other than 0; EFAULT for a range outside user
     *                        space or not mapped; ENOMEM when pinning fails or max_mr is reached
     */
    public MemoryRegion registerMemory(long addr, long length, long iova, int access) {
        ensureOpen();
        return MemoryRegion.register(this, addr, length, iova, access);
    }

    /**
     * {@code ibv_advise_mr}: prefetch ranges of ODP regions ({@link dev.jrxe.ib.Advice}
     * PREFETCH, PREFETCH_WRITE, PREFETCH_NO_FAULT); synchronous with {@code Advice.FLAG_FLUSH},
     * best effort in the background otherwise. Errnos as man ibv_advise_mr.
     *
     * @param advice {@code Advice.PREFETCH}, {@code PREFETCH_WRITE} or {@code PREFETCH_NO_FAULT}
     *               (else EOPNOTSUPP)
     * @param flags  0 or {@code Advice.FLAG_FLUSH} (else EINVAL)
     * @param sges   the ranges: lkey, address and length of ODP regions of this PD (none: EINVAL)
     * @throws VerbsException EFAULT for an lkey that is no ODP region of this PD, a range outside
     *                        its region, PREFETCH_WRITE without LOCAL_WRITE, or (with FLAG_FLUSH)
     *                        memory that is not mapped
     */
    public void adviseMr(int advice, int flags, Sge... sges) {
        ensureOpen();
        dev.jrxe.memory.PrefetchRange[] ranges = new dev.jrxe.memory.PrefetchRange[sges.length];
        for (int i = 0; i < sges.length; i++) {
            ranges[i] = new dev.jrxe.memory.PrefetchRange(sges[i].lkey, sges[i].addr,
                Integer.toUnsignedLong(sges[i].length));
        }
        try {
            dev.jrxe.memory.MemoryRegions.advise(device.keys(), handle, advice, flags, ranges);
        } catch (dev.jrxe.memory.MemoryException e) {
            throw new VerbsException(e.errno(), e.getMessage());
        }
    }

    /**
     * {@code ibv_alloc_mw}: a type 1 or type 2 window ({@link MemoryWindow#TYPE_1}, {@code TYPE_2});
     * any other type fails with EINVAL.
     *
     * @param type {@code IBV_MW_TYPE_1} or {@code IBV_MW_TYPE_2}
     * @return the window, unbound
     * @throws VerbsException EINVAL for another type; ENOMEM when the key table is full
     */
    public MemoryWindow allocMw(int type) {
        ensureOpen();
        return MemoryWindow.alloc(this, type);
    }

    /**
     * {@code mlx5dv_create_mkey}: an indirect key, free until a UMR work request configures it.
     * {@code flags} must include {@link IndirectMemoryKey#INDIRECT} and may add
     * {@code REMOTE_INVALIDATE} (anything else: EOPNOTSUPP); {@code maxEntries} is rounded up to
     * a multiple of 4 ({@link IndirectMemoryKey#maxEntries}).
     *
     * @param flags      {@code mlx5dv_mkey_init_attr.create_flags}
     * @param maxEntries {@code max_entries}, 1..65536 (else EINVAL)
     * @return the key, free (not usable until configured)
     */
    public IndirectMemoryKey createIndirectKey(int flags, int maxEntries) {
        ensureOpen();
        return IndirectMemoryKey.create(this, flags, maxEntries);
    }

    /**
     * {@code ibv_create_srq}: max_wr 1..max_srq_wr, max_sge up to max_srq_sge (written back: at
     * least 1), srq_limit at most max_wr; EINVAL otherwise, ENOMEM past {@code max_srq}.
     *
     * @param attr {@code ibv_srq_init_attr.attr}; its {@code maxSge} is written back
     * @return the SRQ, empty; armed when {@code attr.srqLimit} is positive
     */
    public SharedReceiveQueue createSrq(SharedReceiveQueue.Attr attr) {
        ensureOpen();
        SharedReceiveQueue srq = new SharedReceiveQueue(this, attr);
        device.childCreated(srq);
        return srq;
    }

    /**
     * {@code ibv_create_qp}: a QP in RESET, of type RC, UC or UD (others: EOPNOTSUPP; SRD QPs
     * come from {@link SrdDv}).
     *
     * @param attr CQs (both required, else EINVAL), capabilities (beyond the device's: EINVAL),
     *             optional SRQ and extended-API flags; the SGE counts are written back (at least 1)
     * @return the QP
     * @throws VerbsException EINVAL or EOPNOTSUPP as above; ENOMEM past {@code max_qp}
     */
    public QueuePair createQp(QpInitAttr attr) {
        ensureOpen();
        return new QueuePair(this, attr);
    }

    /**
     * The device's QP1 (the GSI QP): a UD QP with QPN 1 and the GSI Q_Key 0x80010000, where
     * management datagrams (the connection manager's CM MADs) arrive and leave from UDP port 55410,
     * as rxe's. libibverbs has no such verb (the kernel owns QP1); jrxe's connection manager
     * ({@code dev.jrxe.cm}) creates it. Walk it to RTS with {@link UdSetup} (the Q_Key given there
     * is ignored: QP1 always uses the GSI one).
     *
     * @param attr the QP's attributes; {@code qpType} must be UD
     * @return QP1
     * @throws VerbsException EBUSY when the device has its QP1 already; EINVAL unless {@code attr} is UD
     */
    public QueuePair createGsiQp(QpInitAttr attr) {
        ensureOpen();
        if (attr.qpType != dev.jrxe.ib.QpType.UD) {
            throw VerbsException.einval("QP1 is a UD QP");
        }
        synchronized (device) {
            if (device.engineOf(dev.jrxe.transport.Qp.GSI_QPN).hasGsi()) {
                throw new VerbsException(dev.jrxe.ib.Errno.EBUSY, "the device has its QP1 already");
            }
            return new QueuePair(this, attr, true);
        }
    }

    /**
     * {@code ibv_create_ah}: EINVAL for attributes RoCEv2 cannot use (see {@link AddressHandle}),
     * ENOMEM past the device's {@code max_ah}.
     *
     * @param attr the destination: GRH with an IPv4-mapped GID, port 1
     * @return the address handle, for UD work requests
     */
    public AddressHandle createAh(AhAttr attr) {
        ensureOpen();
        return new AddressHandle(this, attr);
    }

    /**
     * {@code ibv_create_ah_from_wc}: a handle to the sender of a UD receive ({@code wc}, and the
     * GRH area at the start of its buffer); see {@link AddressHandle#initFromWc}.
     *
     * @param wc   the receive completion (it must have {@code IBV_WC_GRH}, else EINVAL)
     * @param grh  the first 40 bytes of the receive buffer, where the GRH area is
     * @param port the port the datagram came in on (1)
     * @return a handle that answers the sender
     */
    public AddressHandle createAhFromWc(WorkCompletion wc, java.lang.foreign.MemorySegment grh, int port) {
        return createAh(AddressHandle.initFromWc(device, port, wc, grh));
    }

    private boolean closed;

    /**
     * {@code ibv_dealloc_pd}: EBUSY while a QP, SRQ, address handle, memory region, memory window
     * or indirect key of this PD exists (rdma-core's rule: destroy them first); closing twice is
     * harmless. {@link Device#close()} closes a device's PDs after everything in them.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (!device.isClosed()) {
            int qps = device.qpsOf(this);
            int keys = device.keys().countForPd(handle);
            int others = device.childrenOf(this);
            if (qps + keys + others > 0) {
                throw new VerbsException(Errno.EBUSY, "PD " + handle + " is in use by " + qps + " QP(s), " + keys
                    + " memory key(s) and " + others + " SRQ(s)/address handle(s)");
            }
        }
        closed = true;
        device.pdClosed(this);
    }

    synchronized boolean isClosed() {
        return closed;
    }

    /** IllegalStateException once this PD or its device is closed. */
    private void ensureOpen() {
        device.ensureOpen();
        if (isClosed()) {
            throw new IllegalStateException("PD " + handle + " is deallocated");
        }
    }
}
