package dev.jrxe.cm;

import java.time.Duration;

/**
 * How the endpoint API builds a connection: the QP's queue depths and SGEs, the CQ's size, the
 * RDMA READ/atomic depth both ways, the private data to send, and the connect timeout (a connect
 * to an address where nothing answers ends in {@link CmException.TimedOut} within it).
 */
public record EndpointOptions(int sendDepth, int recvDepth, int maxSge, int maxInline, int cqSize,
                              int rdAtomic, byte[] privateData, Duration connectTimeout) {
    public static final EndpointOptions DEFAULT =
        new EndpointOptions(64, 64, 2, 64, 256, 4, null, Duration.ofSeconds(5));

    public EndpointOptions {
        if (sendDepth < 1 || recvDepth < 1 || maxSge < 1 || maxInline < 0 || cqSize < 1 || rdAtomic < 0
            || connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("endpoint options out of range");
        }
    }

    public EndpointOptions withPrivateData(byte[] data) {
        return new EndpointOptions(sendDepth, recvDepth, maxSge, maxInline, cqSize, rdAtomic, data, connectTimeout);
    }

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
