package dev.jrxe.memory;

import java.lang.foreign.MemorySegment;

/**
 * Reads the process's memory at a raw address without trusting it: through the kernel-checked
 * path, so an unmapped address gives {@link MemStatus#FAULT} instead of a crash. For the few
 * verbs that take raw addresses without a key (IBV_SEND_INLINE).
 */
public final class ProcessMemory {
    private ProcessMemory() {
    }

    /** Copies {@code len} bytes at {@code addr} into {@code dst}; returns a {@link MemStatus}. */
    public static int read(long addr, MemorySegment dst, long dstOffset, long len) {
        return SafeAccess.read(SafeAccess.KERNEL, null, addr, dst, dstOffset, len);
    }
}
