package dev.jrxe.memory;

/** One scatter/gather entry of an advise (prefetch) request: lkey, address and length. */
public record PrefetchRange(int lkey, long addr, long length) {
}
