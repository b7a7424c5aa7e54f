package dev.jrxe.ib;

/**
 * Linux errno values ({@code <errno.h>}), the numbers jrxe reports as rdma-core does: in
 * {@link dev.jrxe.verbs.VerbsException#errno()}, as the return value of the {@code try*} posting
 * calls, and negated as rdma_cm event statuses. Each constant says where jrxe gives it.
 *
 * <p>Thread safety: constants and a pure function, callable from any thread.
 *
 * <pre>{@code
 * int err = qp.trySend(wr);
 * if (err == Errno.ENOMEM) {   // the send queue is full: poll, then post again
 * }
 * }</pre>
 */
public final class Errno {
    /**
     * {@code EPERM}: not permitted: {@code modify} to a privileged Q_Key (high bit set) unless the
     * device's config allows it, or {@code bindMw} of a window and a region of different PDs.
     */
    public static final int EPERM = 1;
    /**
     * {@code ENOENT}: no such entry: {@code rdma_resolve_addrinfo} of a name without an IPv4
     * address (ADDRINFO_ERROR status {@code -ENOENT}).
     */
    public static final int ENOENT = 2;
    /** {@code EINTR}: a system call was interrupted by a signal; jrxe's native link repeats the call. */
    public static final int EINTR = 4;
    /** {@code EIO}: I/O error: opening a device failed to open its link (UDP socket) or its capture file. */
    public static final int EIO = 5;
    /** {@code EAGAIN}: try again: a non-blocking socket send could not proceed (the link waits, retries). */
    public static final int EAGAIN = 11;
    /**
     * {@code ENOMEM}: out of resources: a send, receive or SRQ queue is full ({@code trySend} and
     * {@code tryRecv} return it), or a device limit (PDs, CQs, QPs, SRQs, AHs, {@code max_mr},
     * pinned bytes, multicast groups, indirect-key entries) is reached.
     */
    public static final int ENOMEM = 12;
    /** {@code EACCES}: permission denied; jrxe's own code does not return it. */
    public static final int EACCES = 13;
    /**
     * {@code EFAULT}: bad address: inline data or memory to register that cannot be read, a range
     * outside user space, a read-only segment given write access, or an {@code ibv_advise_mr} lkey
     * or range that names no ODP region of the PD.
     */
    public static final int EFAULT = 14;
    /**
     * {@code EBUSY}: in use: destroying a PD, CQ or SRQ that is still used, a QP attached to a
     * multicast group, or an MR that windows or indirect keys use (also {@code rereg}); a second QP1.
     */
    public static final int EBUSY = 16;
    /** {@code EEXIST}: already exists; jrxe's own code does not return it. */
    public static final int EEXIST = 17;
    /** {@code ENODEV}: no such device: the link's interface cannot join a multicast group. */
    public static final int ENODEV = 19;
    /**
     * {@code EINVAL}: invalid argument, jrxe's usual refusal: a bad QP transition or attribute, a
     * work request the QP's type, state or capabilities do not allow, bad access flags or ranges at
     * registration, a memory window bind rxe's rules refuse.
     */
    public static final int EINVAL = 22;
    /** {@code ENOSPC}: no space left; jrxe's own code does not return it. */
    public static final int ENOSPC = 28;
    /** {@code ERANGE}: result out of range; jrxe's own code does not return it. */
    public static final int ERANGE = 34;
    /** {@code ENOSYS}: function not implemented; jrxe's own code does not return it. */
    public static final int ENOSYS = 38;
    /**
     * {@code ETIMEDOUT}: rdma_cm: the peer left a REQ (or SIDR REQ) or REP unanswered through all
     * its retries (UNREACHABLE status {@code -ETIMEDOUT}, {@code CmException.TimedOut}).
     */
    public static final int ETIMEDOUT = 110;
    /**
     * {@code EOPNOTSUPP}: not supported: a QP type, or {@code send_ops_flags} / mkey ops its type
     * lacks, an SRD QP with an SRQ, unsupported CQ {@code wc_flags}, an unknown
     * {@code ibv_advise_mr} advice, an extended-API builder whose send-ops bit the QP was not created
     * with, or multicast on a link without it.
     */
    public static final int EOPNOTSUPP = 95;
    /** {@code ENOTSUP}: the same number as {@link #EOPNOTSUPP} on Linux. */
    public static final int ENOTSUP = EOPNOTSUPP;
    /**
     * {@code EPROTONOSUPPORT}: protocol not supported: {@code rdma_create_id} with a port space
     * other than {@code RDMA_PS_TCP} or {@code RDMA_PS_UDP}.
     */
    public static final int EPROTONOSUPPORT = 93;
    /**
     * {@code EADDRINUSE}: address in use: the device's UDP port is taken when it opens, another id
     * already listens on the port ({@code rdma_listen}), or a multicast join cannot bind its port.
     */
    public static final int EADDRINUSE = 98;
    /**
     * {@code EADDRNOTAVAIL}: address not available: the device's address is not one of this
     * machine, or {@code rdma_bind_addr} / {@code rdma_resolve_addr} name one not the device's.
     */
    public static final int EADDRNOTAVAIL = 99;
    /**
     * {@code ECONNREFUSED}: rdma_cm: nothing listens on the port (REJ invalid service ID) or the
     * peer rejected the connection ({@code CmException.Refused}, {@code CmException.Rejected}).
     */
    public static final int ECONNREFUSED = 111;
    /** {@code EISCONN}: already connected; jrxe's own code does not return it. */
    public static final int EISCONN = 106;
    /** {@code ENOTCONN}: not connected; jrxe's own code does not return it. */
    public static final int ENOTCONN = 107;

    private Errno() {
    }

    /**
     * {@return the symbolic name of {@code errno}, such as "EINVAL", or "errno " and the number for
     * a value this class does not define}
     *
     * @param errno a positive errno value
     */
    public static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case ENOSPC -> "ENOSPC";
            case ERANGE -> "ERANGE";
            case ENOSYS -> "ENOSYS";
            case ETIMEDOUT -> "ETIMEDOUT";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case EPROTONOSUPPORT -> "EPROTONOSUPPORT";
            case EADDRINUSE -> "EADDRINUSE";
            case EADDRNOTAVAIL -> "EADDRNOTAVAIL";
            case ECONNREFUSED -> "ECONNREFUSED";
            case EISCONN -> "EISCONN";
            case ENOTCONN -> "ENOTCONN";
            default -> "errno " + errno;
        };
    }
}
