/**
 * Memory keys and regions: what an lkey or rkey names and how jrxe reaches the memory behind it.
 *
 * <h2>Use</h2>
 * One {@link dev.jrxe.memory.KeyTable} per device. The verbs layer registers with
 * {@link dev.jrxe.memory.MemoryRegions#register}, deregisters, re-registers and advises through
 * {@link dev.jrxe.memory.MemoryRegions}; failures are {@link dev.jrxe.memory.MemoryException}s with
 * rdma-core's errno. The transport resolves keys with {@link dev.jrxe.memory.KeyTable#lookup}
 * (O(1), lock-free, allocation-free) and moves data only through
 * {@link dev.jrxe.memory.MemoryKey} methods, which return {@link dev.jrxe.memory.MemStatus} codes.
 *
 * <h2>Kinds</h2>
 * Pinned regions populate and mlock their pages at registration (counted per page range, since
 * mlock does not nest). Explicit ODP regions do nothing at registration and track mapped pages per
 * 2 MiB chunk; implicit ODP regions (addr 0, length U64_MAX) create 2 MiB children on first touch
 * and reclaim them when idle, over budget (LRU) or emptied by an invalidation, never under an
 * access in flight.
 *
 * <h2>Safety</h2>
 * Memory of jrxe's {@link dev.jrxe.memory.NativeMemory} allocator is copied directly: its unmap
 * and release notify regions first (like mmu notifiers) and wait for in-flight copies. Segments
 * of shared or automatic arenas are copied through the segment (FFM checks liveness). Anything else
 * (raw addresses, implicit ODP outside the allocator) goes through process_vm_readv/writev, which
 * returns EFAULT instead of crashing. An access to memory that is gone ends in
 * {@link dev.jrxe.memory.MemStatus#FAULT}.
 */
package dev.jrxe.memory;
