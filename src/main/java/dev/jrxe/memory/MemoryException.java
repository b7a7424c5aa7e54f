package dev.jrxe.memory;

import dev.jrxe.ib.Errno;

/**
 * A control-path memory operation (registration, re-registration, deregistration, advise,
 * allocation) failed with the errno rdma-core would report. The verbs layer translates it into
 * its own exception; the data path never throws it.
 */
public final class MemoryException extends RuntimeException {
    private final int errno;

    public MemoryException(int errno, String message) {
        super(Errno.name(errno) + ": " + message);
        this.errno = errno;
    }

    /** The errno value (e.g. {@link Errno#EINVAL}). */
    public int errno() {
        return errno;
    }
}
