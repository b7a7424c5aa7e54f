package dev.jrxe.tools;

import dev.jrxe.cm.CmEvent;
import dev.jrxe.cm.CmEventType;
import dev.jrxe.cm.CmId;
import dev.jrxe.cm.ConnParam;
import dev.jrxe.cm.EventChannel;
import dev.jrxe.cm.ServiceIds;
import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.net.Links;
import dev.jrxe.verbs.QpAttr;
import dev.jrxe.verbs.QueuePair;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A run's test QPs made and connected by rdma_cm (perftest's -R, its rdma_cm_client_connection
 * and rdma_cm_server_connection in 4.5): the server listens on the {@code -p} port (RDMA_PS_TCP,
 * a backlog of the QP count) and accepts that many requests, each with a QP of the run's, then
 * stops listening; the client connects its QPs to that port. Both ask for retry and RNR retry
 * counts of 7 and, for READ and atomics, the run's outstanding reads as responder resources and
 * initiator depth; the server sets each accepted QP's RNR timer to 12 (0.64 ms), as perftest. The
 * CM ids own the QPs: {@link #close} disconnects and destroys them. Not thread safe.
 */
final class PerftestCmQps implements AutoCloseable {
    private static final long RETRY_MILLIS = 100;
    /** perftest's MIN_RNR_TIMER. */
    private static final int MIN_RNR_TIMER = 12;

    private final EventChannel channel = new EventChannel();
    private final List<CmId> ids = new ArrayList<>();

    private PerftestCmQps() {
    }

    private static ConnParam param(PerftestRun run) {
        ConnParam c = new ConnParam();
        int depth = run.p.test().readsOrAtomics() ? run.outReads : 0;
        c.responderResources = depth;
        c.initiatorDepth = depth;
        c.retryCount = 7;
        c.rnrRetryCount = 7;
        return c;
    }

    /** Server: accepts the run's QP count of connections on {@code port} within {@code timeoutMillis}. */
    static PerftestCmQps accept(PerftestRun run, int port, long timeoutMillis) throws IOException {
        PerftestCmQps q = new PerftestCmQps();
        try {
            CmId listener = CmId.create(q.channel, run.dev, ServiceIds.PS_TCP);
            try {
                listener.bindAddr(0, port);
                listener.listen(run.qps.length);
                long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
                for (int i = 0; i < run.qps.length; ) {
                    CmEvent e = q.next(deadline, "a connection request on port " + port);
                    if (e.type() == CmEventType.ESTABLISHED) {
                        continue; // one accepted before is up: nothing to do
                    }
                    expect(e, CmEventType.CONNECT_REQUEST);
                    CmId id = e.id();
                    q.ids.add(id);
                    QueuePair qp = id.createQp(run.pd(), run.qpInitAttr(i));
                    id.accept(param(run));
                    QpAttr rnr = new QpAttr();
                    rnr.minRnrTimer = MIN_RNR_TIMER;
                    qp.modify(rnr, QpAttrMask.MIN_RNR_TIMER);
                    run.adopt(i++, qp);
                }
            } finally {
                listener.close();
            }
            return q;
        } catch (IOException | RuntimeException e) {
            q.close();
            throw e;
        }
    }

    /**
     * Client: connects the run's QPs one after the other to {@code server}:{@code port}, each
     * retried every 100 ms while nothing listens there yet, for {@code timeoutMillis} in all.
     */
    static PerftestCmQps connect(PerftestRun run, int server, int port, long timeoutMillis) throws IOException {
        PerftestCmQps q = new PerftestCmQps();
        try {
            long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
            for (int i = 0; i < run.qps.length; i++) {
                q.connectOne(run, i, server, port, deadline);
            }
            return q;
        } catch (IOException | RuntimeException e) {
            q.close();
            throw e;
        }
    }

    private void connectOne(PerftestRun run, int i, int server, int port, long deadline) throws IOException {
        String where = Links.formatAddress(server) + ":" + port;
        while (true) {
            CmId id = CmId.create(channel, run.dev, ServiceIds.PS_TCP);
            ids.add(id);
            id.resolveAddr(0, server, port, 2000);
            expect(next(deadline, "the address of " + where), CmEventType.ADDR_RESOLVED);
            id.resolveRoute(2000);
            expect(next(deadline, "the route to " + where), CmEventType.ROUTE_RESOLVED);
            QueuePair qp = id.createQp(run.pd(), run.qpInitAttr(i));
            id.connect(param(run));
            CmEvent e = next(deadline, "an answer from " + where);
            if (e.type() == CmEventType.ESTABLISHED) {
                run.adopt(i, qp);
                return;
            }
            ids.remove(id);
            id.close();
            if (e.type() != CmEventType.REJECTED || System.nanoTime() - deadline > 0) {
                throw new IOException("Failed to connect RDMA CM QP " + i + " to " + where + ": " + e);
            }
            pause(); // rejected: the server is not listening yet
        }
    }

    private CmEvent next(long deadline, String what) throws IOException {
        try {
            CmEvent e = channel.getEvent(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (e == null) {
                throw new IOException("rdma_cm: no " + what + " in time");
            }
            e.ack();
            return e;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for " + what);
        }
    }

    private static void expect(CmEvent e, int type) throws IOException {
        if (e.type() != type) {
            throw new IOException("rdma_cm: " + CmEventType.str(e.type()) + " where " + CmEventType.str(type)
                + " was due");
        }
    }

    private static void pause() throws IOException {
        try {
            Thread.sleep(RETRY_MILLIS);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted connecting with rdma_cm");
        }
    }

    /** Closes the CM ids (a DREQ for each connection; their QPs destroyed) and the event channel. */
    @Override
    public void close() {
        for (CmId id : ids) {
            id.close();
        }
        channel.close();
    }
}
