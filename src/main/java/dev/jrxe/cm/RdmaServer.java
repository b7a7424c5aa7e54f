package dev.jrxe.cm;

import dev.jrxe.verbs.Device;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The server half of the endpoint API: listens on an rdma_cm port of a device (RDMA_PS_TCP,
 * {@code rdma_bind_addr} + {@code rdma_listen}) and accepts every connection request with a
 * fresh endpoint (PD, CQ, QP; {@code rdma_accept}), handing connected endpoints out through
 * {@link #accept(Duration)} or a callback ({@link #onConnection}). A thread of its own reads the
 * listener's events; requests beyond the backlog of connections not yet taken are rejected. The
 * clients may be {@link RdmaClient} or any Linux rdma_cm client (rping, {@code perftest -R}).
 *
 * <p>Thread safe: {@link #accept(Duration)}, {@link #onConnection} and {@link #close()} may be
 * called from any thread; the server's thread ({@code jrxe-cm-server-PORT}, a daemon) handles
 * the CM events and runs the callback.
 *
 * <pre>{@code
 * try (RdmaServer server = RdmaServer.bind(device, 7471);
 *      RdmaEndpoint ep = server.accept(Duration.ofSeconds(5))) {
 *     if (ep != null) {
 *         ep.qp().postRecv(new RecvWr(1).sge(ep.register(buf, Access.LOCAL_WRITE), 0, 4096));
 *     }
 * }
 * }</pre>
 */
public final class RdmaServer implements AutoCloseable {
    private final EventChannel channel = new EventChannel();
    private final CmId listener;
    private final EndpointOptions options;
    private final int backlog;
    private final LinkedBlockingQueue<RdmaEndpoint> ready = new LinkedBlockingQueue<>();
    private final Map<CmId, RdmaEndpoint> byId = new HashMap<>();
    private final Map<CmId, byte[]> requestData = new HashMap<>();
    /** Endpoints handed out: the caller's to close. */
    private final java.util.Set<CmId> handed = new java.util.HashSet<>();
    private volatile Consumer<RdmaEndpoint> callback;
    private volatile boolean running = true;
    private final Thread thread;

    private RdmaServer(Device device, int port, EndpointOptions options, int backlog) {
        this.options = options;
        this.backlog = backlog;
        this.listener = CmId.create(channel, device, ServiceIds.PS_TCP);
        try {
            listener.bindAddr(device.address(), port);
            listener.listen(backlog);
        } catch (RuntimeException e) {
            listener.close();
            channel.close();
            throw e;
        }
        this.thread = Thread.ofPlatform().daemon().name("jrxe-cm-server-" + port).start(this::loop);
    }

    /**
     * Listens on {@code port} of {@code device} with {@link EndpointOptions#DEFAULT} and a backlog of 128.
     *
     * @param device the device to listen on, at its address
     * @param port the rdma_cm port, 0..65535; 0 picks an ephemeral one ({@link #port()})
     * @return the listening server, the caller's to close
     * @throws dev.jrxe.verbs.VerbsException EADDRINUSE when the port has a listener; EINVAL for a
     *     bad port
     */
    public static RdmaServer bind(Device device, int port) {
        return bind(device, port, EndpointOptions.DEFAULT, 128);
    }

    /**
     * Listens on {@code port} of {@code device}.
     *
     * @param device the device to listen on, at its address
     * @param port the rdma_cm port, 0..65535; 0 picks an ephemeral one ({@link #port()})
     * @param options the sizes of each connection's QP and CQ, READ/atomic depth, the REP's
     *     private data (its connect timeout is not used)
     * @param backlog connections accepted or connected but not yet taken, at most; further
     *     requests are rejected (REJ, consumer defined)
     * @return the listening server, the caller's to close
     * @throws IllegalArgumentException when {@code backlog} is less than 1
     * @throws dev.jrxe.verbs.VerbsException EADDRINUSE when the port has a listener; EINVAL for a
     *     bad port
     */
    public static RdmaServer bind(Device device, int port, EndpointOptions options, int backlog) {
        if (backlog < 1) {
            throw new IllegalArgumentException("backlog " + backlog);
        }
        return new RdmaServer(device, port, options, backlog);
    }

    /** {@return the port listened on (the one picked when {@code bind} was given 0)} */
    public int port() {
        return listener.localPort();
    }

    /**
     * The next connected endpoint, waiting at most {@code timeout}; null when none came. Endpoints
     * go to the callback instead once {@link #onConnection} is set.
     *
     * @param timeout how long to wait
     * @return the endpoint (the caller's to close), or null
     * @throws InterruptedException when the thread is interrupted while waiting
     */
    public RdmaEndpoint accept(Duration timeout) throws InterruptedException {
        return ready.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * From now on every connected endpoint goes to {@code onConnected} (on the server's thread),
     * and those already waiting for {@link #accept(Duration)} go to it at once, on the calling
     * thread. The callback owns the endpoints it gets; an exception it throws is ignored.
     *
     * @param onConnected called once per connected endpoint; should return quickly, as the
     *     server's thread handles the other connections' events too
     */
    public void onConnection(Consumer<RdmaEndpoint> onConnected) {
        this.callback = onConnected;
        RdmaEndpoint e;
        while ((e = ready.poll()) != null) {
            onConnected.accept(e);
        }
    }

    private void loop() {
        while (running) {
            try {
                CmEvent e = channel.getEvent(50, TimeUnit.MILLISECONDS);
                if (e != null) {
                    e.ack();
                    handle(e);
                }
            } catch (InterruptedException ie) {
                return;
            } catch (RuntimeException re) {
                // one failed connection must not stop the server
            }
        }
    }

    private void handle(CmEvent e) {
        CmId id = e.id();
        switch (e.type()) {
            case CmEventType.CONNECT_REQUEST -> {
                // half-open connections and connected ones not taken yet count against the backlog
                if (halfOpen() + ready.size() >= backlog) {
                    id.reject(null);
                    id.close();
                    return;
                }
                RdmaEndpoint ep;
                try {
                    ep = RdmaEndpoint.create(id, options, null);
                } catch (RuntimeException x) {
                    id.reject(null);
                    id.close();
                    return;
                }
                ep.onClose(() -> forget(id));
                synchronized (this) {
                    byId.put(id, ep);
                    requestData.put(id, e.privateData());
                }
                try {
                    id.accept(options.param());
                } catch (RuntimeException x) {
                    forget(id);
                    ep.close();
                }
            }
            case CmEventType.ESTABLISHED -> {
                RdmaEndpoint ep;
                byte[] data;
                synchronized (this) {
                    ep = byId.get(id);
                    data = requestData.remove(id);
                    if (ep != null) {
                        handed.add(id);
                    }
                }
                if (ep != null) {
                    ep.peerPrivateData(data);
                    Consumer<RdmaEndpoint> cb = callback;
                    if (cb != null) {
                        cb.accept(ep);
                    } else {
                        ready.add(ep);
                    }
                }
            }
            case CmEventType.DISCONNECTED, CmEventType.REJECTED, CmEventType.UNREACHABLE,
                 CmEventType.CONNECT_ERROR -> {
                RdmaEndpoint ep;
                boolean theirs;
                synchronized (this) {
                    ep = byId.remove(id);
                    requestData.remove(id);
                    theirs = handed.remove(id);
                }
                if (ep != null) {
                    ep.markDisconnected();
                    if (!theirs) {
                        ep.close(); // never handed out (a DREQ instead of an RTU, say): ours to release
                    }
                }
            }
            default -> {
            }
        }
    }

    /** Connections accepted but not established yet. */
    private synchronized int halfOpen() {
        return byId.size() - handed.size();
    }

    /** A handed-out endpoint was closed by its user. */
    private synchronized void forget(CmId id) {
        byId.remove(id);
        requestData.remove(id);
        handed.remove(id);
    }

    /**
     * Stops listening (waiting up to 2 s for the server's thread); requests not answered yet are
     * rejected and endpoints not taken yet are closed. Endpoints handed out stay the caller's.
     */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        listener.close();
        // requests that came before the listener closed: rejected, so their ids go too
        CmEvent pending;
        while ((pending = channel.getEventNow()) != null) {
            if (pending.type() == CmEventType.CONNECT_REQUEST) {
                pending.id().close();
            }
        }
        RdmaEndpoint e;
        while ((e = ready.poll()) != null) {
            e.close();
        }
        java.util.List<RdmaEndpoint> halfOpen = new java.util.ArrayList<>();
        synchronized (this) {
            for (Map.Entry<CmId, RdmaEndpoint> p : byId.entrySet()) {
                if (!handed.contains(p.getKey())) {
                    halfOpen.add(p.getValue()); // a connection still being set up
                }
            }
        }
        for (RdmaEndpoint h : halfOpen) {
            h.close();
        }
        channel.close();
    }
}
