package dev.jrxe.verbs;

import dev.jrxe.ib.Errno;

/**
 * A verb failed: {@link #errno()} is the errno rdma-core would return (or set) for the same call,
 * such as EINVAL for a bad argument, ENOMEM past a device limit or for a full queue, EPERM, EBUSY
 * or EOPNOTSUPP; each verb's documentation names its cases. A post that fails part way through a
 * chain throws the subclass {@link PostException}. Use of a closed device, or of anything made
 * from it, throws {@link IllegalStateException} instead.
 *
 * <p>Thread safety: its errno and message never change; any thread may read them.
 *
 * <pre>{@code
 * try {
 *     pd.close();
 * } catch (VerbsException e) {
 *     if (e.errno() == Errno.EBUSY) {   // close its QPs and regions first
 *     }
 * }
 * }</pre>
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The errno value ({@link Errno}), kept when serialized. */
    private final int errno;

    /**
     * A failure with an errno; the message gets the errno's name appended, e.g. {@code "... (EINVAL)"}.
     *
     * @param errno   the errno, an {@link Errno} value
     * @param message what failed and why
     */
    public VerbsException(int errno, String message) {
        super(message + " (" + Errno.name(errno) + ")");
        this.errno = errno;
    }

    /** {@return the errno value, e.g. {@link Errno#EINVAL}} */
    public int errno() {
        return errno;
    }

    static VerbsException einval(String message) {
        return new VerbsException(Errno.EINVAL, message);
    }
}
