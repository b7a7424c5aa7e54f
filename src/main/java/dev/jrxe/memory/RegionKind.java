package dev.jrxe.memory;

/** How a region's pages are made available. */
public enum RegionKind {
    /** Locked and populated at registration (no ON_DEMAND). */
    PINNED,
    /** ON_DEMAND over an explicit range: pages faulted on first access, tracked per page. */
    ODP,
    /** ON_DEMAND over the whole address space (addr 0, length U64_MAX): lazy 2 MiB children. */
    IMPLICIT_ODP
}
