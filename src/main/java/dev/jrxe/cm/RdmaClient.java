package dev.jrxe.cm;

import dev.jrxe.verbs.Device;
import java.util.concurrent.TimeUnit;

/**
 * The client half of the endpoint API: {@link #connect} returns a connected
 * {@link RdmaEndpoint}, doing what an rdma_cm client does ({@code rdma_create_id},
 * {@code rdma_resolve_addr}, {@code rdma_resolve_route}, {@code rdma_create_qp},
 * {@code rdma_connect}) on an event channel of the endpoint's own. The server may be
 * {@link RdmaServer} or any Linux rdma_cm listener on RDMA_PS_TCP.
 *
 * <p>Thread safe: static and stateless; any number of threads may connect at once.
 *
 * <pre>{@code
 * try (RdmaEndpoint ep = RdmaClient.connect(device, serverAddr, 7471)) {
 *     MemoryRegion mr = ep.register(buf, Access.LOCAL_WRITE);
 *     ep.qp().postRecv(new RecvWr(1).sge(mr, 0, 4096));
 * }
 * }</pre>
 */
public final class RdmaClient {
    private RdmaClient() {
    }

    /**
     * {@link #connect(Device, int, int, EndpointOptions)} with {@link EndpointOptions#DEFAULT}
     * (5 s connect timeout).
     *
     * @param device the local device
     * @param address the server's IPv4 address, a big-endian int ({@code Device.address()})
     * @param port the server's rdma_cm port, 1..65535
     * @return the connected endpoint, the caller's to close
     * @throws InterruptedException when the thread is interrupted while waiting; nothing is left behind
     * @throws CmException why the connection did not come about (see the four-argument form)
     */
    public static RdmaEndpoint connect(Device device, int address, int port) throws InterruptedException {
        return connect(device, address, port, EndpointOptions.DEFAULT);
    }

    /**
     * Connects from {@code device} to the rdma_cm listener at {@code address}:{@code port} and
     * returns the connected endpoint. Never hangs: within {@code options.connectTimeout()} the
     * connection is up or this throws.
     *
     * @param device the local device
     * @param address the server's IPv4 address, a big-endian int ({@code Device.address()})
     * @param port the server's rdma_cm port, 1..65535
     * @param options the QP, CQ and READ/atomic sizes, the REQ's private data, the timeout
     * @return the connected endpoint, the caller's to close
     * @throws InterruptedException when the thread is interrupted while waiting; nothing is left behind
     * @throws dev.jrxe.verbs.VerbsException EINVAL for a zero address, a bad port or private data over 56 bytes;
     *     what creating the PD, CQ or QP throws
     * @throws CmException.Refused    nothing listens there
     * @throws CmException.Rejected   the server rejected (its private data in the exception)
     * @throws CmException.TimedOut   no answer within the timeout
     * @throws CmException.Unreachable the CM gave up, or the connection failed to set up
     */
    public static RdmaEndpoint connect(Device device, int address, int port, EndpointOptions options)
        throws InterruptedException {
        EventChannel ch = new EventChannel();
        CmId id = CmId.create(ch, device, ServiceIds.PS_TCP);
        RdmaEndpoint ep = null;
        boolean ok = false;
        long deadline = System.nanoTime() + options.connectTimeout().toNanos();
        try {
            id.resolveAddr(0, address, port, (int) options.connectTimeout().toMillis());
            expect(ch, CmEventType.ADDR_RESOLVED, deadline);
            id.resolveRoute((int) options.connectTimeout().toMillis());
            expect(ch, CmEventType.ROUTE_RESOLVED, deadline);
            ep = RdmaEndpoint.create(id, options, ch);
            // a dead peer: retransmit at least three times within the timeout
            long ms = Math.max(1, options.connectTimeout().toMillis() / 4);
            id.timeouts(Math.max(8, Math.min(20, 63 - Long.numberOfLeadingZeros(ms) + 8)), 15, 8);
            id.connect(options.param());
            CmEvent e = next(ch, deadline);
            if (e == null) {
                throw new CmException.TimedOut("no answer from " + dev.jrxe.net.Links.formatAddress(address) + ":" + port
                    + " within " + options.connectTimeout().toMillis() + " ms");
            }
            switch (e.type()) {
                case CmEventType.ESTABLISHED -> {
                    ep.peerPrivateData(e.privateData());
                    ok = true;
                    return ep;
                }
                case CmEventType.REJECTED -> {
                    if (e.status() == CmMessages.RejReason.INVALID_SERVICE_ID) {
                        throw new CmException.Refused("nothing listens on " + dev.jrxe.net.Links.formatAddress(address)
                            + ":" + port, e.status());
                    }
                    throw new CmException.Rejected("rejected by " + dev.jrxe.net.Links.formatAddress(address) + ":" + port
                        + " (reason " + e.status() + ")", e.status(), e.privateData());
                }
                default -> throw new CmException.Unreachable(CmEventType.str(e.type()) + " connecting to "
                    + dev.jrxe.net.Links.formatAddress(address) + ":" + port);
            }
        } finally {
            if (!ok) {
                if (ep != null) {
                    ep.close();
                } else {
                    id.close();
                    ch.close();
                }
            }
        }
    }

    private static CmEvent next(EventChannel ch, long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        CmEvent e = left <= 0 ? null : ch.getEvent(left, TimeUnit.NANOSECONDS);
        if (e != null) {
            e.ack();
        }
        return e;
    }

    private static void expect(EventChannel ch, int type, long deadline) throws InterruptedException {
        CmEvent e = next(ch, deadline);
        if (e == null || e.type() != type) {
            throw new CmException.Unreachable("expected " + CmEventType.str(type) + ", got " + e);
        }
    }
}
