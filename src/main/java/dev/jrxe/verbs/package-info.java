/**
 * The public API: the libibverbs nouns in Java. {@link dev.jrxe.verbs.Device} (a software RoCEv2
 * NIC bound to one IPv4 address), {@link dev.jrxe.verbs.ProtectionDomain},
 * {@link dev.jrxe.verbs.MemoryRegion}, {@link dev.jrxe.verbs.CompletionQueue},
 * {@link dev.jrxe.verbs.CompletionChannel}, {@link dev.jrxe.verbs.QueuePair}. Every resource is
 * {@link java.lang.AutoCloseable}; errors are {@link dev.jrxe.verbs.VerbsException}s carrying the
 * errno rdma-core would return; work requests ({@link dev.jrxe.verbs.SendWr},
 * {@link dev.jrxe.verbs.RecvWr}) and completions ({@link dev.jrxe.verbs.WorkCompletion}) are
 * reusable objects, so posting and polling allocate nothing. Numeric constants (opcodes,
 * statuses, states, masks) live in {@link dev.jrxe.ib}.
 */
package dev.jrxe.verbs;
