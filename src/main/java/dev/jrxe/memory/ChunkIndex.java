package dev.jrxe.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * Lock-free radix index of {@link OdpChunk}s by chunk number (address >>> 21): three levels of
 * 4096 slots, so it covers a 57-bit address space (5-level paging included) and costs memory
 * only where chunks exist. Reads are plain volatile loads; inserts and removals are CAS, so two
 * threads faulting the same chunk agree on one chunk.
 */
final class ChunkIndex {
    private static final int BITS = 12;
    private static final int FAN = 1 << BITS;
    private static final int MASK = FAN - 1;
    /** Chunk numbers below this fit (2^36 chunks of 2 MiB = 2^57 bytes). */
    static final long LIMIT = 1L << (3 * BITS);

    private static final VarHandle TOP;

    static {
        try {
            TOP = MethodHandles.lookup().findVarHandle(ChunkIndex.class, "top", AtomicReferenceArray.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Created on the first insert, so that registering costs no 16 KiB array. */
    private volatile AtomicReferenceArray<AtomicReferenceArray<AtomicReferenceArray<OdpChunk>>> top;

    /** The chunk with this number, or null. */
    OdpChunk get(long index) {
        var root = top;
        if (index < 0 || index >= LIMIT || root == null) {
            return null;
        }
        AtomicReferenceArray<AtomicReferenceArray<OdpChunk>> mid = root.get((int) (index >>> (2 * BITS)));
        if (mid == null) {
            return null;
        }
        AtomicReferenceArray<OdpChunk> leaf = mid.get((int) (index >>> BITS) & MASK);
        return leaf == null ? null : leaf.get((int) index & MASK);
    }

    /** Inserts {@code chunk} unless one is there; returns the chunk now in the slot. */
    OdpChunk putIfAbsent(long index, OdpChunk chunk) {
        AtomicReferenceArray<OdpChunk> leaf = leaf(index);
        int slot = (int) index & MASK;
        while (true) {
            OdpChunk existing = leaf.get(slot);
            if (existing != null) {
                return existing;
            }
            if (leaf.compareAndSet(slot, null, chunk)) {
                return chunk;
            }
        }
    }

    /** Removes {@code chunk} if it is still the one in its slot. */
    boolean remove(long index, OdpChunk chunk) {
        var root = top;
        if (index < 0 || index >= LIMIT || root == null) {
            return false;
        }
        AtomicReferenceArray<AtomicReferenceArray<OdpChunk>> mid = root.get((int) (index >>> (2 * BITS)));
        if (mid == null) {
            return false;
        }
        AtomicReferenceArray<OdpChunk> leaf = mid.get((int) (index >>> BITS) & MASK);
        return leaf != null && leaf.compareAndSet((int) index & MASK, chunk, null);
    }

    /** Visits every chunk (a weakly consistent walk). */
    void forEach(Consumer<OdpChunk> action) {
        var root = top;
        for (int t = 0; root != null && t < FAN; t++) {
            AtomicReferenceArray<AtomicReferenceArray<OdpChunk>> mid = root.get(t);
            if (mid == null) {
                continue;
            }
            for (int m = 0; m < FAN; m++) {
                AtomicReferenceArray<OdpChunk> leaf = mid.get(m);
                if (leaf == null) {
                    continue;
                }
                for (int l = 0; l < FAN; l++) {
                    OdpChunk c = leaf.get(l);
                    if (c != null) {
                        action.accept(c);
                    }
                }
            }
        }
    }

    private AtomicReferenceArray<OdpChunk> leaf(long index) {
        var root = top;
        if (root == null) {
            TOP.compareAndSet(this, null, new AtomicReferenceArray<>(FAN));
            root = top;
        }
        int t = (int) (index >>> (2 * BITS));
        AtomicReferenceArray<AtomicReferenceArray<OdpChunk>> mid = root.get(t);
        if (mid == null) {
            root.compareAndSet(t, null, new AtomicReferenceArray<>(FAN));
            mid = root.get(t);
        }
        int m = (int) (index >>> BITS) & MASK;
        AtomicReferenceArray<OdpChunk> leaf = mid.get(m);
        if (leaf == null) {
            mid.compareAndSet(m, null, new AtomicReferenceArray<>(FAN));
            leaf = mid.get(m);
        }
        return leaf;
    }
}
