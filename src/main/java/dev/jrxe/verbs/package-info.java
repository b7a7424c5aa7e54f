/**
 * The verbs API: the libibverbs objects in Java, over jrxe's software RoCEv2 NIC. Each class
 * names its rdma-core counterpart ({@code ibv_post_send}, {@code struct ibv_qp_attr}, ...),
 * errors carry the errno rdma-core would return, and the numbers (opcodes, statuses, states,
 * access flags, masks, errnos) live in {@link dev.jrxe.ib}. Connection setup through rdma_cm is
 * in {@link dev.jrxe.cm}.
 *
 * <h2>Objects and lifetimes</h2>
 * A {@link dev.jrxe.verbs.Device} is one software NIC bound to one IPv4 address and one UDP port
 * (4791 unless configured with {@link dev.jrxe.verbs.DeviceConfig}). From it come
 * {@link dev.jrxe.verbs.ProtectionDomain}s and {@link dev.jrxe.verbs.CompletionQueue}s (with an
 * optional {@link dev.jrxe.verbs.CompletionChannel}); from a PD come
 * {@link dev.jrxe.verbs.MemoryRegion}s, {@link dev.jrxe.verbs.MemoryWindow}s,
 * {@link dev.jrxe.verbs.QueuePair}s, {@link dev.jrxe.verbs.SharedReceiveQueue}s and
 * {@link dev.jrxe.verbs.AddressHandle}s. Every one is {@link java.lang.AutoCloseable}. Closing a
 * device closes everything made from it, and any later use of those objects throws
 * {@link java.lang.IllegalStateException}; closing a PD or CQ that is still in use fails with
 * EBUSY, as {@code ibv_dealloc_pd} and {@code ibv_destroy_cq} do. A QP starts in RESET:
 * {@link dev.jrxe.verbs.RcConnect} and {@link dev.jrxe.verbs.RcBootstrap} (ibv_rc_pingpong's TCP
 * exchange) take an RC QP to RTS, {@link dev.jrxe.verbs.UdSetup} a UD one. A bad call
 * throws {@link dev.jrxe.verbs.VerbsException} (a failed post: {@link dev.jrxe.verbs.PostException});
 * a work request that fails says so in its completion's status instead.
 *
 * <h2>Posting and polling without allocation</h2>
 * Work requests ({@link dev.jrxe.verbs.SendWr}, {@link dev.jrxe.verbs.RecvWr}) and completions
 * ({@link dev.jrxe.verbs.WorkCompletion}) are reusable objects: posting copies a request into the
 * queue, so it may be refilled at once, and {@code CompletionQueue.poll} fills the completions it
 * is given. Neither allocates. {@code QueuePair.trySend} and {@code tryRecv} return the errno
 * (ENOMEM for a full queue) instead of throwing, so back-pressure costs no exception;
 * {@link dev.jrxe.verbs.QpEx} posts a batch all or nothing. The peer's side of an RDMA target is
 * a {@link dev.jrxe.verbs.RemoteBuffer} (address, length, rkey).
 *
 * <pre>{@code
 * try (Device dev = Device.open("jrxe0", "127.0.0.2")) {
 *     CompletionQueue cq = dev.createCq(64);
 *     QueuePair qp = dev.allocPd().createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 16, 1, 1, 0)));
 *     // connect qp (RcBootstrap), register memory, post SendWr/RecvWr, poll cq into WorkCompletion[]
 * }
 * }</pre>
 *
 * <h2>Threading</h2>
 * Any thread may post to any QP and poll any CQ. A QP's send queue and receive queue each take a
 * lock of their own, so one posting thread per queue is fastest; {@code CompletionQueue.poll} is
 * thread safe (an empty CQ is checked without a lock); control calls ({@code modify},
 * {@code close}, registration) are thread safe and may wait briefly for the engine. Each device
 * has one engine under one lock: a thread that polls or posts runs the NIC itself when the engine
 * is free, and otherwise (or when no application thread is active) the device's background
 * progress thread does. Request and completion objects are plain mutable holders: one per thread.
 *
 * <p>The guide to using jrxe from Java, with the objects, their errors, threading rules and the
 * mapping from libibverbs, DiSNI and JUCX, is docs/USING.md in the jrxe repository.
 */
package dev.jrxe.verbs;
