package dev.jrxe.memory;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Striped spin locks that serialise RDMA atomics on the same 8-byte word across all QPs and
 * devices of the process (rxe uses one global lock; stripes keep unrelated words apart). Every
 * atomic takes its stripe, whatever the access path, so a kernel-copied read-modify-write and a
 * CPU compare-and-swap on the same word never interleave.
 */
final class AtomicStripes {
    private static final int STRIPES = 64;
    /** Ints between two locks: 32 ints = 128 bytes, two cache lines. */
    private static final int SPACING = 32;
    private static final AtomicIntegerArray LOCKS = new AtomicIntegerArray(STRIPES * SPACING);

    private AtomicStripes() {
    }

    static int lock(long addr) {
        int slot = (int) ((addr >>> 3) * 0x9E3779B97F4A7C15L >>> 58) * SPACING;
        int spins = 0;
        while (!LOCKS.compareAndSet(slot, 0, 1)) {
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        return slot;
    }

    static void unlock(int slot) {
        LOCKS.set(slot, 0);
    }
}
