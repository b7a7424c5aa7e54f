package dev.jrxe.cm;

import java.time.Duration;

/**
 * How the endpoint API ({@link RdmaClient}, {@link RdmaServer}) builds a connection: the RC QP's
 * queue depths and SGEs ({@code struct ibv_qp_cap}), the size of its one CQ, the RDMA
 * READ/atomic depth both ways, the private data to send, and the connect timeout (a connect to
 * an address where nothing answers ends in {@link CmException.TimedOut} within it).
 *
 * <p>A record: immutable, safe from any thread, except that {@code privateData} is the caller's
 * array, not copied: do not change it while the options are in use.
 *
 * <pre>{@code
 * EndpointOptions o = new EndpointOptions(128, 128, 1, 0, 256, 16, null, Duration.ofSeconds(2))
 *     .withPrivateData("hi".getBytes(StandardCharsets.US_ASCII));
 * RdmaEndpoint ep = RdmaClient.connect(device, serverAddr, 7471, o);
 * }</pre>
 *
 * @param sendDepth send queue depth ({@code max_send_wr}), at least 1
 * @param recvDepth receive queue depth ({@code max_recv_wr}), at least 1
 * @param maxSge SGEs per send and per receive work request ({@code max_send_sge},
 *     {@code max_recv_sge}), at least 1
 * @param maxInline bytes of inline data per send ({@code max_inline_data}), at least 0
 * @param cqSize entries of the CQ both queues complete to ({@code ibv_create_cq}'s
 *     {@code cqe}), at least 1
 * @param rdAtomic RDMA READs/atomics in flight each way: the connection's responder resources and
 *     initiator depth ({@link ConnParam}), at least 0
 * @param privateData sent with the REQ (client, at most 56 bytes) or REP (server, at most 196
 *     bytes), or null
 * @param connectTimeout how long {@link RdmaClient#connect(dev.jrxe.verbs.Device, int, int,
 *     EndpointOptions) RdmaClient.connect} may take; positive; the server ignores it
 */
public record EndpointOptions(int sendDepth, int recvDepth, int maxSge, int maxInline, int cqSize,
                              int rdAtomic, byte[] privateData, Duration connectTimeout) {
    /**
     * Send and receive depth 64, 2 SGEs, 64 inline bytes, 256 CQ entries, READ/atomic depth 4, no
     * private data, 5 s connect timeout.
     */
    public static final EndpointOptions DEFAULT =
        new EndpointOptions(64, 64, 2, 64, 256, 4, null, Duration.ofSeconds(5));

    /**
     * Checks the ranges above.
     *
     * @throws IllegalArgumentException when a depth, size or the timeout is out of range
     */
    public EndpointOptions {
        if (sendDepth < 1 || recvDepth < 1 || maxSge < 1 || maxInline < 0 || cqSize < 1 || rdAtomic < 0
            || connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("endpoint options out of range");
        }
    }

    /**
     * {@return these options with {@code data} as the private data}
     *
     * @param data the REQ's or REP's private data (not copied), or null for none
     */
    public EndpointOptions withPrivateData(byte[] data) {
        return new EndpointOptions(sendDepth, recvDepth, maxSge, maxInline, cqSize, rdAtomic, data, connectTimeout);
    }

    /**
     * {@return these options with {@code timeout} as the connect timeout}
     *
     * @param timeout positive
     * @throws IllegalArgumentException when {@code timeout} is null, zero or negative
     */
    public EndpointOptions withConnectTimeout(Duration timeout) {
        return new EndpointOptions(sendDepth, recvDepth, maxSge, maxInline, cqSize, rdAtomic, privateData, timeout);
    }

    ConnParam param() {
        ConnParam p = new ConnParam();
        p.privateData = privateData;
        p.responderResources = rdAtomic;
        p.initiatorDepth = rdAtomic;
        return p;
    }
}
