package dev.jrxe.memory;

import java.lang.foreign.MemorySegment;

/**
 * Anything an lkey or rkey can name: a memory region (pinned, ODP, implicit ODP), a memory window,
 * an indirect key. The transport moves data only through these methods and never touches raw
 * addresses itself; every method checks the range (and whatever else the key kind needs) and
 * returns a {@link MemStatus} code instead of throwing.
 *
 * <p>Addresses are the key's own: the application's virtual address for an ordinary MR, an
 * offset for a zero-based key.
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
     * {@code pdHandle}. Local reads need no access bit. Returns a {@link MemStatus}.
     */
    int check(int pdHandle, int requiredAccess, long va, long len);

    /** Copies {@code len} bytes at {@code va} out of this key into {@code dst}. */
    int read(long va, MemorySegment dst, long dstOffset, long len);

    /** Copies {@code len} bytes from {@code src} into this key at {@code va}. */
    int write(long va, MemorySegment src, long srcOffset, long len);

    /** 8-byte compare-and-swap; the original value goes to {@code original[0]}. */
    int compareAndSwap(long va, long compare, long swap, long[] original);

    /** 8-byte fetch-and-add; the original value goes to {@code original[0]}. */
    int fetchAndAdd(long va, long add, long[] original);

    /** 8-byte atomic store (RC ATOMIC_WRITE). */
    int atomicWrite(long va, long value);

    /** Makes {@code [va, va+len)} durable/visible (RC FLUSH); a no-op copy-wise. */
    int flush(long va, long len);
}
