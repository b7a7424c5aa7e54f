package dev.jrxe.tools;

import dev.jrxe.cm.CmException;
import dev.jrxe.cm.EndpointOptions;
import dev.jrxe.cm.RdmaClient;
import dev.jrxe.cm.RdmaEndpoint;
import dev.jrxe.cm.RdmaServer;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.net.Links;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.IdleStrategy;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.WorkCompletion;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * perftest's rdma_cm control connection (-R, perftest 4.5's rdma_client_connect,
 * rdma_server_connect, rdma_write_data and rdma_read_data): an RC connection on RDMA_PS_TCP to the
 * {@code -p} port of the test's own device, one send and one receive deep, carrying each message
 * of the out-of-band exchange as one SEND of its bytes, into a receive of
 * {@code sizeof(struct pingpong_dest)} (56 bytes) that is reposted once read. The server accepts
 * one connection and stops listening, so the port is free for the test QPs' connections.
 * Thread safe (its calls serialize): duration runs ask {@link #available} from their workers.
 */
final class PerftestCmChannel implements PerftestOob.Channel {
    /** perftest's receive length: sizeof(struct pingpong_dest), the largest message. */
    private static final int MESSAGE_BYTES = PerftestRecord.CM_BYTES;
    /** Where received messages land in the buffer; sends go from 0. */
    private static final int RECEIVE_AT = 64;
    private static final long RETRY_MILLIS = 100;

    private final RdmaEndpoint ep;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf;
    private final MemoryRegion mr;
    private final SendWr swr = new SendWr(1);
    private final RecvWr rwr = new RecvWr(1);
    private final WorkCompletion wc = new WorkCompletion();
    private final WorkCompletion[] one = {wc};
    /** Spins, then backs off: a side may wait here through the peer's whole run, on cores the run needs. */
    private final IdleStrategy idle = IdleStrategy.backoff();
    /** The length of a message that came (polled by {@link #available} or a write) and was not read yet; -1: none. */
    private int arrived = -1;
    private long readTimeoutNanos = PerftestOob.STEP_TIMEOUT_MILLIS * 1_000_000L;

    private PerftestCmChannel(RdmaEndpoint ep) {
        this.ep = ep;
        try {
            this.buf = arena.allocate(RECEIVE_AT + MESSAGE_BYTES, 64);
            this.mr = ep.register(buf, Access.LOCAL_WRITE);
            postReceive();
        } catch (RuntimeException e) {
            ep.close();
            arena.close();
            throw e;
        }
    }

    /** The QP and CQ of the connection: one SEND and one receive at a time, perftest's tx and rx depth 1. */
    private static EndpointOptions options(long timeoutMillis) {
        return new EndpointOptions(1, 1, 1, 0, 4, 0, null, Duration.ofMillis(timeoutMillis));
    }

    /**
     * Server: listens on {@code port} of {@code device}, accepts one connection within
     * {@code timeoutMillis}, stops listening.
     */
    static PerftestCmChannel accept(Device device, int port, long timeoutMillis) throws IOException {
        RdmaEndpoint ep;
        try (RdmaServer server = RdmaServer.bind(device, port, options(timeoutMillis), 1)) {
            ep = server.accept(Duration.ofMillis(timeoutMillis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the rdma_cm client");
        }
        if (ep == null) {
            throw new IOException("no rdma_cm client connected to port " + port + " within " + timeoutMillis / 1000 + " s");
        }
        return new PerftestCmChannel(ep);
    }

    /**
     * Client: connects {@code device} to the server's rdma_cm port, retrying every 100 ms for
     * {@code timeoutMillis} while nothing listens there yet or nothing answers.
     */
    static PerftestCmChannel connect(Device device, int server, int port, long timeoutMillis) throws IOException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            try {
                return new PerftestCmChannel(RdmaClient.connect(device, server, port, options(1000)));
            } catch (CmException.Refused | CmException.TimedOut e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("Couldn't connect to " + Links.formatAddress(server) + ":" + port
                        + " with rdma_cm: " + e.getMessage());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted connecting with rdma_cm");
            }
            try {
                Thread.sleep(RETRY_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted connecting with rdma_cm");
            }
        }
    }

    private void postReceive() {
        ep.qp().postRecv(rwr.sge(buf.address() + RECEIVE_AT, MESSAGE_BYTES, mr.lkey()));
    }

    /** Sends {@code message} and waits for its completion (a message of the peer's may come meanwhile). */
    @Override
    public synchronized void write(byte[] message) throws IOException {
        if (message.length > MESSAGE_BYTES) {
            throw new IllegalArgumentException(message.length + " bytes: perftest's rdma_cm messages are at most "
                + MESSAGE_BYTES);
        }
        MemorySegment.copy(MemorySegment.ofArray(message), 0, buf, 0, message.length);
        swr.reset();
        swr.opcode = WrOpcode.SEND;
        swr.sendFlags = SendFlags.SIGNALED;
        swr.sge(buf.address(), message.length, mr.lkey());
        ep.qp().postSend(swr);
        long deadline = System.nanoTime() + PerftestOob.STEP_TIMEOUT_MILLIS * 1_000_000L;
        while (next(deadline) != WcOpcode.SEND) {
            // a message of the peer's: kept for the next read
        }
    }

    @Override
    public synchronized void readFully(byte[] into) throws IOException {
        long deadline = System.nanoTime() + readTimeoutNanos;
        while (arrived < 0) {
            next(deadline);
        }
        if (arrived != into.length) {
            throw new IOException("the peer's rdma_cm message is " + arrived + " bytes where this exchange has "
                + into.length + ": not the same test or options");
        }
        MemorySegment.copy(buf, RECEIVE_AT, MemorySegment.ofArray(into), 0, into.length);
        arrived = -1;
        postReceive();
    }

    @Override
    public synchronized boolean available() throws IOException {
        if (arrived < 0 && ep.cq().poll(one) > 0) {
            took();
        }
        return arrived >= 0;
    }

    @Override
    public synchronized void readTimeout(long millis) {
        readTimeoutNanos = millis * 1_000_000L;
    }

    /** The next completion's opcode, waiting until {@code deadline}; a receive's length is kept in {@link #arrived}. */
    private int next(long deadline) throws IOException {
        while (ep.cq().poll(one, 1, idle, 10_000_000L) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("the rdma_cm exchange with the peer stalled: nothing for "
                    + PerftestOob.STEP_TIMEOUT_MILLIS / 1000 + " s or more");
            }
            if (ep.isDisconnected()) {
                throw new IOException("the peer closed the rdma_cm connection");
            }
        }
        return took();
    }

    private int took() throws IOException {
        if (wc.status != WcStatus.SUCCESS) {
            throw new IOException("the rdma_cm exchange failed: " + WcStatus.str(wc.status));
        }
        if (wc.opcode == WcOpcode.RECV) {
            arrived = wc.byteLen;
        }
        return wc.opcode;
    }

    /** Disconnects (waiting a bounded time for the peer's answer) and releases the connection. */
    @Override
    public void close() {
        ep.close();
        arena.close();
    }
}
