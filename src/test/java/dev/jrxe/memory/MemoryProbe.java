package dev.jrxe.memory;

/** The memory layer's process-wide state, for leak tests in other packages. */
public final class MemoryProbe {
    private MemoryProbe() {
    }

    /** Live jrxe mappings (NativeMemory.map and friends). */
    public static int mappings() {
        return NativeMemory.mappingCount();
    }

    /** Live translations listening for unmap/madvise invalidations. */
    public static int listeners() {
        return NativeMemory.listenerCount();
    }

    /** Pinned ranges on the pin ledger. */
    public static int pinnedRanges() {
        return PinLedger.rangeCount();
    }
}
