package dev.jrxe.verbs;

import dev.jrxe.ib.Errno;

/** A verb failed; {@link #errno()} is what rdma-core would return for the same call. */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public VerbsException(int errno, String message) {
        super(message + " (" + Errno.name(errno) + ")");
        this.errno = errno;
    }

    /** The errno value, e.g. {@link Errno#EINVAL}. */
    public int errno() {
        return errno;
    }

    static VerbsException einval(String message) {
        return new VerbsException(Errno.EINVAL, message);
    }
}
