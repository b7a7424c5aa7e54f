package dev.jrxe.verbs;

import dev.jrxe.ib.Advice;
import dev.jrxe.ib.Errno;
import java.lang.foreign.MemorySegment;

/** A protection domain ({@code ibv_pd}): the scope of memory keys, QPs and address handles. */
public final class ProtectionDomain implements AutoCloseable {
    private final Device device;
    private final int handle;

    ProtectionDomain(Device device, int handle) {
        this.device = device;
        this.handle = handle;
    }

    public Device device() {
        return device;
    }

    /** The handle memory keys record their PD by. */
    public int handle() {
        return handle;
    }

    /** {@code ibv_reg_mr} over a native segment the application owns. */
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        if (!segment.isNative()) {
            throw VerbsException.einval("memory regions need native memory");
        }
        ensureOpen();
        return MemoryRegion.register(this, segment, access);
    }

    /** {@code ibv_reg_mr(pd, addr, length, access)}; addr 0 + length -1 with ON_DEMAND is implicit ODP. */
    public MemoryRegion registerMemory(long addr, long length, int access) {
        return registerMemory(addr, length, addr, access);
    }

    /** {@code ibv_reg_mr_iova2}. */
    public MemoryRegion registerMemory(long addr, long length, long iova, int access) {
        ensureOpen();
        return MemoryRegion.register(this, addr, length, iova, access);
    }

    /**
     * {@code ibv_advise_mr}: prefetch ranges of ODP regions ({@link dev.jrxe.ib.Advice}
     * PREFETCH, PREFETCH_WRITE, PREFETCH_NO_FAULT); synchronous with {@code Advice.FLAG_FLUSH},
     * best effort in the background otherwise. Errnos as man ibv_advise_mr.
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
     */
    public IndirectMemoryKey createIndirectKey(int flags, int maxEntries) {
        ensureOpen();
        return IndirectMemoryKey.create(this, flags, maxEntries);
    }

    /**
     * {@code ibv_create_srq}: max_wr 1..max_srq_wr, max_sge up to max_srq_sge (written back: at
     * least 1), srq_limit at most max_wr; EINVAL otherwise.
     */
    public SharedReceiveQueue createSrq(SharedReceiveQueue.Attr attr) {
        ensureOpen();
        SharedReceiveQueue srq = new SharedReceiveQueue(this, attr);
        device.childCreated(srq);
        return srq;
    }

    /** {@code ibv_create_qp}. */
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
     * @throws VerbsException EBUSY when the device has its QP1 already; EINVAL unless {@code attr} is UD
     */
    public QueuePair createGsiQp(QpInitAttr attr) {
        ensureOpen();
        if (attr.qpType != dev.jrxe.ib.QpType.UD) {
            throw VerbsException.einval("QP1 is a UD QP");
        }
        synchronized (device) {
            if (device.engine().hasGsi()) {
                throw new VerbsException(dev.jrxe.ib.Errno.EBUSY, "the device has its QP1 already");
            }
            return new QueuePair(this, attr, true);
        }
    }

    /**
     * {@code ibv_create_ah}: EINVAL for attributes RoCEv2 cannot use (see {@link AddressHandle}),
     * ENOMEM past the device's {@code max_ah}.
     */
    public AddressHandle createAh(AhAttr attr) {
        ensureOpen();
        return new AddressHandle(this, attr);
    }

    /**
     * {@code ibv_create_ah_from_wc}: a handle to the sender of a UD receive ({@code wc}, and the
     * GRH area at the start of its buffer); see {@link AddressHandle#initFromWc}.
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
