package dev.jrxe.verbs;

/**
 * A post ({@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_post_srq_recv}) failed at one
 * work request of a chain: the requests before it were posted, it and those after it were not,
 * as the C calls report with {@code bad_wr}. {@link #errno()} is ENOMEM for a full queue, EINVAL
 * for a bad request or QP state, EFAULT for unreadable inline data.
 *
 * <p>Thread safety: as {@link VerbsException}; {@link #badWr()} is the request object the post
 * was given (not a copy, and not serialized).
 *
 * <pre>{@code
 * try {
 *     qp.postSend(chain);
 * } catch (PostException e) {
 *     Object first = e.badWr();   // the request that was refused; none after it was posted
 * }
 * }</pre>
 */
public final class PostException extends VerbsException {
    private static final long serialVersionUID = 1L;
    private final transient Object badWr;

    PostException(int errno, String message, Object badWr) {
        super(errno, message);
        this.badWr = badWr;
    }

    /**
     * {@return the {@link SendWr} or {@link RecvWr} that was not posted ({@code bad_wr}); null after
     * deserialization}
     */
    public Object badWr() {
        return badWr;
    }
}
