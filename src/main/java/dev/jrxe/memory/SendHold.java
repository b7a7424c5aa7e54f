package dev.jrxe.memory;

import java.lang.foreign.MemorySegment;

/**
 * A registered region's memory held for a send that reads it later, outside the key check: the
 * link sends a packet's payload from where it lies, by {@code iovec}, when the engine flushes
 * ({@link MemoryKey#holdForSend}). While held, the region counts the access as in flight, so
 * deregistering it, re-registering it or unmapping its memory through jrxe's allocator waits
 * until {@link #release}, exactly as for a copy that is still running. One object per datagram
 * buffer, reused: nothing is allocated per packet. Engine thread only, except {@link #release},
 * which the link may call from the thread that closes it.
 */
public final class SendHold {
    private PinnedTranslation held;
    private MemorySegment segment;
    private long offset;

    /** Whether memory is held now. */
    public boolean holding() {
        return held != null;
    }

    /** The held memory's segment (the one the region was registered from), while {@link #holding}. */
    public MemorySegment segment() {
        return segment;
    }

    /** Where the held bytes start in {@link #segment}. */
    public long offset() {
        return offset;
    }

    /** Ends the hold (idempotent): the region may now be deregistered or its memory unmapped. */
    public void release() {
        PinnedTranslation t = held;
        if (t != null) {
            held = null;
            segment = null;
            t.releaseSend();
        }
    }

    void hold(PinnedTranslation t, MemorySegment segment, long offset) {
        if (held != null) {
            throw new IllegalStateException("already holding");
        }
        this.held = t;
        this.segment = segment;
        this.offset = offset;
    }
}
