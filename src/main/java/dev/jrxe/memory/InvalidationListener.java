package dev.jrxe.memory;

/**
 * Told by {@link NativeMemory} before memory it allocated is unmapped or released, like an mmu
 * notifier. Called with the allocator lock held; for an unmap it must stop direct access to the
 * range and wait for in-flight accesses before returning (the memory goes right after).
 */
interface InvalidationListener {
    /** Lowest address this listener covers. */
    long low();

    /** One past the highest address this listener covers (unsigned; -1L = the end of memory). */
    long high();

    /** {@code [addr, addr+len)} is about to be unmapped ({@code unmap}) or released (zeroed). */
    void invalidate(long addr, long len, boolean unmap);
}
