package dev.jrxe.net;

/**
 * What a {@link Link#commitByReference} datagram's payload memory is held by until the link is
 * done with it: the link calls {@link #releasePayload} once, when the kernel took the datagram,
 * refused it or the link dropped it, or when the link closes with it unsent. Until then the
 * memory must stay mapped and must not be handed to anything else.
 */
public interface PayloadRelease {
    /** The link no longer reads the payload. Called once per committed datagram, on the thread that flushes or closes. */
    void releasePayload();
}
