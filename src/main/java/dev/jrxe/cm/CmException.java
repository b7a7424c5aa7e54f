package dev.jrxe.cm;

import dev.jrxe.verbs.VerbsException;

/**
 * Why a connection did not come about, for the endpoint API ({@link RdmaClient},
 * {@link RdmaServer}): the kind (a subclass), the errno a C program would see
 * ({@link #errno()}), the CM's REJ reason and the peer's private data when it rejected. Thrown by
 * {@link RdmaClient#connect(dev.jrxe.verbs.Device, int, int, EndpointOptions)}.
 *
 * <p>Immutable: safe to share between threads.
 *
 * <pre>{@code
 * try (RdmaEndpoint ep = RdmaClient.connect(device, serverAddr, 7471)) {
 *     // ...
 * } catch (CmException.Rejected e) {
 *     byte[] why = e.privateData();
 * }
 * }</pre>
 */
public class CmException extends VerbsException {
    private static final long serialVersionUID = 1L;
    /** The REJ reason, or 0. */
    private final int rejectReason;
    private final transient byte[] privateData;

    CmException(int errno, String message, int rejectReason, byte[] privateData) {
        super(errno, message);
        this.rejectReason = rejectReason;
        this.privateData = privateData;
    }

    /** {@return the REJ reason ({@link CmMessages.RejReason}), or 0 when no REJ came} */
    public int rejectReason() {
        return rejectReason;
    }

    /**
     * {@return a copy of the private data of a consumer-defined REJ ({@code rdma_reject}; the
     * field's full 148 bytes), or null}
     */
    public byte[] privateData() {
        return privateData == null ? null : privateData.clone();
    }

    /** Nothing listens on that port (REJ: invalid service ID): ECONNREFUSED. */
    public static final class Refused extends CmException {
        private static final long serialVersionUID = 1L;

        Refused(String message, int reason) {
            super(dev.jrxe.ib.Errno.ECONNREFUSED, message, reason, null);
        }
    }

    /**
     * The peer rejected the connection (any REJ reason but invalid service ID; its private data for a
     * consumer reject): ECONNREFUSED.
     */
    public static final class Rejected extends CmException {
        private static final long serialVersionUID = 1L;

        Rejected(String message, int reason, byte[] privateData) {
            super(dev.jrxe.ib.Errno.ECONNREFUSED, message, reason, privateData);
        }
    }

    /** No answer within {@link EndpointOptions#connectTimeout()}: ETIMEDOUT. */
    public static final class TimedOut extends CmException {
        private static final long serialVersionUID = 1L;

        TimedOut(String message) {
            super(dev.jrxe.ib.Errno.ETIMEDOUT, message, 0, null);
        }
    }

    /** The CM gave up retransmitting (UNREACHABLE), or the connection failed to set up: EHOSTUNREACH (113). */
    public static final class Unreachable extends CmException {
        private static final long serialVersionUID = 1L;

        Unreachable(String message) {
            super(113, message, 0, null);
        }
    }
}
