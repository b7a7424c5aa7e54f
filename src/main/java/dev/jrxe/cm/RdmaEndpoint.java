package dev.jrxe.cm;

import dev.jrxe.ib.QpType;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.VerbsException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One connected RC queue pair, as the endpoint API hands it out ({@link RdmaClient#connect},
 * {@link RdmaServer#accept}): its own protection domain, one CQ for sends and receives, a
 * registry of the buffers registered through it, and the peer's address and private data. The
 * QP is in RTS when the endpoint is handed out; post to {@link #qp()} and poll {@link #cq()} with
 * the ordinary verbs. {@link #close()} disconnects (DREQ, waiting a bounded time for the peer's
 * DREP) and releases everything in reverse order: CM id with its QP, regions, CQ, PD.
 *
 * <p>Thread safe: {@link #register} and {@link #close()} are serialized on the endpoint; the
 * accessors may be called from any thread; the QP, CQ and PD follow the verbs rules (posts
 * serialize on the QP's send or receive queue, {@code CompletionQueue.poll} is thread safe).
 *
 * <pre>{@code
 * try (RdmaEndpoint ep = RdmaClient.connect(device, serverAddr, 7471)) {
 *     MemoryRegion mr = ep.register(buf, Access.LOCAL_WRITE);
 *     ep.qp().postRecv(new RecvWr(1).sge(mr, 0, 4096));
 *     int n = ep.cq().poll(wcs);
 * }
 * }</pre>
 */
public final class RdmaEndpoint implements AutoCloseable {
    private static final long DISCONNECT_WAIT_MS = 2000;
    private final CmId id;
    private final ProtectionDomain pd;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final List<MemoryRegion> regions = new ArrayList<>();
    private final CountDownLatch disconnected = new CountDownLatch(1);
    private volatile byte[] peerPrivateData;
    /** A client's own event channel (closed with it), or null for a server's connection. */
    private final EventChannel ownChannel;
    private boolean closed;
    private volatile Runnable onClose;

    private RdmaEndpoint(CmId id, ProtectionDomain pd, CompletionQueue cq, QueuePair qp, EventChannel ownChannel) {
        this.id = id;
        this.pd = pd;
        this.cq = cq;
        this.qp = qp;
        this.ownChannel = ownChannel;
    }

    /** The PD, CQ and QP of a new connection on {@code id}; everything made is released on failure. */
    static RdmaEndpoint create(CmId id, EndpointOptions o, EventChannel ownChannel) {
        id.replyToDreq = true;
        Device d = id.device();
        ProtectionDomain pd = d.allocPd();
        CompletionQueue cq = null;
        try {
            cq = d.createCq(o.cqSize());
            QueuePair qp = id.createQp(pd, new QpInitAttr(QpType.RC, cq, cq,
                new QpCap(o.sendDepth(), o.recvDepth(), o.maxSge(), o.maxSge(), o.maxInline())));
            return new RdmaEndpoint(id, pd, cq, qp, ownChannel);
        } catch (RuntimeException e) {
            if (cq != null) {
                cq.close();
            }
            pd.close();
            throw e;
        }
    }

    /** {@return the connection's RC QP, in RTS once connected; destroyed by {@link #close()}} */
    public QueuePair qp() {
        return qp;
    }

    /**
     * {@return the one CQ both the QP's send and receive queues complete to
     * ({@link EndpointOptions#cqSize()} entries)}
     */
    public CompletionQueue cq() {
        return cq;
    }

    /**
     * {@return the endpoint's own PD, the QP's; register buffers in it with {@link #register} to have
     * them closed with the endpoint}
     */
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@return the local device} */
    public Device device() {
        return id.device();
    }

    /** {@return the peer's IPv4 address, a big-endian int} */
    public int peerAddress() {
        return id.remoteAddress();
    }

    /**
     * {@return the peer's rdma_cm port: the listening port on a client's endpoint, the client's source
     * port on a server's}
     */
    public int peerPort() {
        return id.remotePort();
    }

    /**
     * {@return a copy of the private data the peer sent with its REQ (server side: the 56 user
     * bytes after the rdma_cm header) or REP (client side: all 196 bytes), or an empty array}
     */
    public byte[] peerPrivateData() {
        byte[] p = peerPrivateData;
        return p == null ? new byte[0] : p.clone();
    }

    void peerPrivateData(byte[] data) {
        this.peerPrivateData = data;
    }

    /**
     * {@return whether the peer has disconnected (a DISCONNECTED event), or on a server's endpoint
     * the connection failed}
     */
    public boolean isDisconnected() {
        pumpOwnChannel();
        return disconnected.getCount() == 0;
    }

    /** {@code hook} runs when the endpoint is closed (the server forgets it). */
    void onClose(Runnable hook) {
        this.onClose = hook;
    }

    void markDisconnected() {
        disconnected.countDown();
    }

    /**
     * Registers {@code segment} in this endpoint's PD ({@code ibv_reg_mr}); the region is
     * deregistered with the endpoint.
     *
     * @param segment the memory to register
     * @param access {@code IBV_ACCESS_*} flags ({@link dev.jrxe.ib.Access})
     * @return the region; its keys go to the peer for RDMA READ/WRITE
     * @throws IllegalStateException after {@link #close()}
     * @throws VerbsException what {@code ProtectionDomain.registerMemory} throws
     */
    public synchronized MemoryRegion register(MemorySegment segment, int access) {
        if (closed) {
            throw new IllegalStateException("the endpoint is closed");
        }
        MemoryRegion mr = pd.registerMemory(segment, access);
        regions.add(mr);
        return mr;
    }

    private void pumpOwnChannel() {
        if (ownChannel == null) {
            return;
        }
        CmEvent e;
        try {
            while ((e = ownChannel.getEvent(0, TimeUnit.MILLISECONDS)) != null) {
                e.ack();
                if (e.type() == CmEventType.DISCONNECTED) {
                    disconnected.countDown();
                }
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    private static void quietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            // the device may be closing under us; the rest is still released
        }
    }

    /**
     * Disconnects (a DREQ, waiting at most 2 s for the DREP; nothing more when the peer's DREQ
     * came first: the CM answered it on arrival) and releases the CM id with its QP, the
     * regions, CQ and PD, and a client's event channel. Each release runs even if another fails.
     * Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (!isDisconnected()) {
                try {
                    id.disconnect();
                } catch (VerbsException e) {
                    // not connected any more
                }
                long end = System.nanoTime() + DISCONNECT_WAIT_MS * 1_000_000L;
                while (id.awaitingDrep() && !isDisconnected() && System.nanoTime() < end) {
                    if (ownChannel == null) {
                        disconnected.await(10, TimeUnit.MILLISECONDS);
                    } else {
                        CmEvent e = ownChannel.getEvent(10, TimeUnit.MILLISECONDS);
                        if (e != null) {
                            e.ack();
                            if (e.type() == CmEventType.DISCONNECTED) {
                                disconnected.countDown();
                            }
                        }
                    }
                }
            } else {
                try {
                    id.disconnect(); // the peer's DREQ came first: our DREP
                } catch (VerbsException e) {
                    // nothing owed
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // each release on its own: one failing must not leak the rest
            quietly(id::close); // destroys the QP
            for (int i = regions.size() - 1; i >= 0; i--) {
                quietly(regions.get(i)::close);
            }
            quietly(cq::close);
            quietly(pd::close);
            if (ownChannel != null) {
                ownChannel.close();
            }
            Runnable hook = onClose;
            if (hook != null) {
                hook.run();
            }
        }
    }
}
