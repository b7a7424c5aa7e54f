package dev.jrxe.cm;

import dev.jrxe.verbs.VerbsException;

/**
 * Why a connection did not come about, for the endpoint API ({@link RdmaClient},
 * {@link RdmaServer}): the kind, the errno a C program would see, the CM's REJ reason and the
 * peer's private data when it rejected.
 */
public class CmException extends VerbsException {
    private static final long serialVersionUID = 1L;
    private final int rejectReason;
    private final transient byte[] privateData;

    CmException(int errno, String message, int rejectReason, byte[] privateData) {
        super(errno, message);
        this.rejectReason = rejectReason;
        this.privateData = privateData;
    }

    /** The REJ reason ({@link CmMessages.RejReason}), or 0. */
    public int rejectReason() {
        return rejectReason;
    }

    /** The private data of a consumer's reject, or null. */
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

    /** The peer rejected the connection (with its private data): ECONNREFUSED. */
    public static final class Rejected extends CmException {
        private static final long serialVersionUID = 1L;

        Rejected(String message, int reason, byte[] privateData) {
            super(dev.jrxe.ib.Errno.ECONNREFUSED, message, reason, privateData);
        }
    }

    /** No answer within the connect timeout: ETIMEDOUT. */
    public static final class TimedOut extends CmException {
        private static final long serialVersionUID = 1L;

        TimedOut(String message) {
            super(dev.jrxe.ib.Errno.ETIMEDOUT, message, 0, null);
        }
    }

    /** The CM gave up retransmitting (UNREACHABLE), or the connection failed to set up: EHOSTUNREACH. */
    public static final class Unreachable extends CmException {
        private static final long serialVersionUID = 1L;

        Unreachable(String message) {
            super(113, message, 0, null);
        }
    }
}
