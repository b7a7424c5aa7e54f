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
 * One connected RC queue pair, as the endpoint API hands it out: its own protection domain, one
 * CQ for sends and receives, a registry of the buffers registered through it, and the peer's
 * address and private data. {@link #close()} disconnects (DREQ, waiting a bounded time for the
 * peer's DREP) and releases everything in reverse order: QP, regions, CQ, PD, CM id.
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

    public QueuePair qp() {
        return qp;
    }

    public CompletionQueue cq() {
        return cq;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public Device device() {
        return id.device();
    }

    /** The peer's IPv4 address (big-endian int) and rdma_cm port. */
    public int peerAddress() {
        return id.remoteAddress();
    }

    public int peerPort() {
        return id.remotePort();
    }

    /** The private data the peer sent with its REQ (server side) or REP (client side). */
    public byte[] peerPrivateData() {
        byte[] p = peerPrivateData;
        return p == null ? new byte[0] : p.clone();
    }

    void peerPrivateData(byte[] data) {
        this.peerPrivateData = data;
    }

    /** Whether the peer has disconnected (or the connection failed). */
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

    /** Registers {@code segment} in this endpoint's PD; the region is deregistered with the endpoint. */
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

    /** Disconnects (bounded wait for the peer) and releases the QP, regions, CQ, PD and CM id. */
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
