package dev.jrxe.memory;

import java.lang.foreign.MemorySegment;

/**
 * Anything an lkey or rkey can name: a memory region (pinned, ODP, implicit ODP), a memory window,
 * an indirect key. The transport moves data only through these methods and never touches raw
 * addresses itself. Every access method checks first, against one consistent view of the key,
 * what {@link #check} checks (validity, PD, access rights, range), then moves the bytes; it
 * returns a {@link MemStatus} code instead of throwing. So no access, whether for a new request, a
 * retransmission or a duplicate, can reach memory that the key does not grant at that moment.
 *
 * <p>Addresses are the key's own: the application's virtual address for an ordinary MR, an
 * offset for a zero-based key. {@code requiredAccess} is a set of {@link Access} bits; 0 means a
 * local read, which every key allows.
 */
public interface MemoryKey {
    /** The 32-bit key value (index &lt;&lt; 8 | 8-bit key). */
    int key();

    /** Handle of the protection domain this key belongs to. */
    int pdHandle();

    /** {@link Access} flags. */
    int access();

    /** First valid address. */
    long start();

    /** Number of valid bytes (may be U64_MAX, i.e. -1L, for an implicit ODP region). */
    long length();

    /**
     * Checks that the key is usable now for {@code requiredAccess} over {@code [va, va+len)} in
     * {@code pdHandle}. Returns a {@link MemStatus}.
     */
    int check(int pdHandle, int requiredAccess, long va, long len);

    /**
     * Holds {@code [va, va+len)} for a local read that happens later, outside this call: a send
     * of the bytes from where they lie ({@link SendHold}). Checks as {@link #read} with no access
     * right required (a local read), then holds the memory until {@code hold.release()}. Only
     * memory jrxe's allocator watches qualifies (pinned regions whose copies are direct); for
     * anything else, or when the check fails, returns false and holds nothing, and the caller
     * copies through {@link #read}, which reports the status.
     */
    default boolean holdForSend(int pdHandle, long va, long len, SendHold hold) {
        return false;
    }

    /**
     * Whether an access through this key may wait for a lock that a deregistration or an unmap
     * holds while it waits for accesses in flight (an ODP fault takes the allocator's lock; an
     * indirect key or a window reaches other regions): true unless known otherwise. An engine
     * that holds payloads for a send ({@link #holdForSend}) sends them before such an access.
     */
    default boolean accessMayWait() {
        return true;
    }

    /** Checks, then copies {@code len} bytes at {@code va} out of this key into {@code dst}. */
    int read(int pdHandle, int requiredAccess, long va, MemorySegment dst, long dstOffset, long len);

    /** Checks, then copies {@code len} bytes from {@code src} into this key at {@code va}. */
    int write(int pdHandle, int requiredAccess, long va, MemorySegment src, long srcOffset, long len);

    /** Checks 8 bytes, then compare-and-swap; the original value goes to {@code original[0]}. */
    int compareAndSwap(int pdHandle, int requiredAccess, long va, long compare, long swap, long[] original);

    /** Checks 8 bytes, then fetch-and-add; the original value goes to {@code original[0]}. */
    int fetchAndAdd(int pdHandle, int requiredAccess, long va, long add, long[] original);

    /** Checks 8 bytes, then an 8-byte atomic store (RC ATOMIC_WRITE). */
    int atomicWrite(int pdHandle, int requiredAccess, long va, long value);

    /** Checks, then makes {@code [va, va+len)} durable/visible (RC FLUSH); a no-op copy-wise. */
    int flush(int pdHandle, int requiredAccess, long va, long len);

    /**
     * FLUSH with selectivity level MR: checks the access, then flushes the whole key (an implicit
     * ODP region: the children it has).
     */
    default int flushRegion(int pdHandle, int requiredAccess) {
        return flush(pdHandle, requiredAccess, start(), length());
    }

    /**
     * The key a remote request arriving on the QP {@code qpToken} names (a token unique to one
     * QP's life, never reused) may use under this key value: this key itself for a memory region;
     * for a memory window its current binding, or null when the window is not bound (or, type 2,
     * bound on another QP). The responder resolves every rkey through it and keeps what it
     * returns for the rest of the operation.
     */
    default MemoryKey forRemote(long qpToken) {
        return this;
    }

    /**
     * An incoming SEND_WITH_INV names this key: invalidates it for {@code pdHandle} if the key may
     * be invalidated remotely, else leaves it as it is. Returns {@link MemStatus#OK}, or why not
     * ({@link MemStatus#ACCESS_DENIED}: this kind of key cannot be invalidated by a peer). A
     * registered MR never can (rxe's {@code rxe_invalidate_mr} refuses user MRs); memory windows
     * and indirect keys made for remote invalidation will.
     */
    default int invalidateRemotely(int pdHandle) {
        return MemStatus.ACCESS_DENIED;
    }
}
