package dev.jrxe.verbs;

/** A post failed at one work request of a chain; those before it were posted ({@code bad_wr}). */
public final class PostException extends VerbsException {
    private static final long serialVersionUID = 1L;
    private final transient Object badWr;

    PostException(int errno, String message, Object badWr) {
        super(errno, message);
        this.badWr = badWr;
    }

    /** The {@link SendWr} or {@link RecvWr} that was not posted. */
    public Object badWr() {
        return badWr;
    }
}
