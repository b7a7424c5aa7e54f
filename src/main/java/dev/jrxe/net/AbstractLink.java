package dev.jrxe.net;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What every link mode shares: the send slots ({@link #claim}/{@link #commit}), the queue of
 * committed datagrams, send-side fault injection on that queue, sealing, the pcap capture, the
 * receive-side delivery with fault injection, and the counters. A mode supplies the sockets:
 * {@link #transmit} for the queued datagrams and {@link #poll}/{@link #awaitReadable}.
 *
 * <p>Exceptions thrown by the sealer or the handler do not break a batch: the datagram is
 * dropped and counted as {@link DropReason#OTHER}, the rest of the batch goes on, and the first
 * exception is rethrown when {@link #flush()} or {@link #poll} returns.
 */
abstract sealed class AbstractLink implements Link permits ChannelLink, NativeLink {
    /** Most datagrams fault injection may hold back at once, per direction. */
    static final int MAX_HELD = 32;
    private static final int SLOT_ALIGN = 64;

    final LinkConfig config;
    final LinkMode mode;
    final DatagramSealer sealer;
    final LinkCounters counters = new LinkCounters();
    final int localAddr;
    int localPort;
    final int maxDatagram;
    final int batch;
    final Arena arena = Arena.ofShared();

    // ---- send slots: a free stack, the claimed one, the committed queue, the held-back ones
    final int slotCount;
    final MemorySegment[] txSlot;
    final int[] txLen;
    final int[] txDstAddr;
    final int[] txDstPort;
    final int[] txSrcPort;
    final int[] txIpId;
    private final boolean[] txCorrupt;
    /**
     * Datagrams whose payload is sent from where it lies ({@link #commitByReference}): the holder
     * to release, the payload's memory, offset and length, and the bytes before it in the slot;
     * {@code txRelease[s] == null} for a datagram held whole in its slot.
     */
    final PayloadRelease[] txRelease;
    final MemorySegment[] txRefSegment;
    final long[] txRefOffset;
    final int[] txRefLength;
    final int[] txRefHead;
    private final int[] free;
    private int freeTop;
    private int claimed = -1;
    private final int[] queue;
    private int queued;
    private final int[] heldSlot = new int[MAX_HELD];
    private final int[] heldLeft = new int[MAX_HELD];
    private int held;

    private final FaultInjector txFaults;
    /** Per-source-port drop probabilities ({@link #dropFromSourcePort}); pathFaults == 0: none. */
    private final int[] pathFaultPort = new int[8];
    private final double[] pathFaultDrop = new double[8];
    private int pathFaults;
    private final java.util.SplittableRandom pathFaultRandom = new java.util.SplittableRandom(0x5EED);
    private final FaultInjector rxFaults;
    private final RxDelayLine rxDelay;
    private final PcapWriter pcap;
    private final int pcapInterface;
    private RuntimeException callbackFailure;
    volatile boolean closed;
    /** The IPv4 multicast groups this link receives. */
    final MulticastSockets multicast;

    AbstractLink(LinkConfig config, LinkMode mode, DatagramSealer sealer) throws IOException {
        this.config = config;
        this.mode = mode;
        this.sealer = sealer;
        this.localAddr = config.addressInt();
        this.localPort = config.port();
        this.maxDatagram = config.maxDatagram();
        this.multicast = new MulticastSockets(localAddr, localPort, maxDatagram);
        this.batch = config.batch();
        this.txFaults = config.txFaults().enabled() ? new FaultInjector(config.txFaults()) : null;
        this.rxFaults = config.rxFaults().enabled() ? new FaultInjector(config.rxFaults()) : null;
        // Faults need room for duplicates and held-back datagrams beside a full batch.
        this.slotCount = txFaults == null ? batch : 2 * batch + MAX_HELD;
        long stride = (maxDatagram + SLOT_ALIGN - 1) & -SLOT_ALIGN;
        MemorySegment memory = arena.allocate(stride * slotCount, SLOT_ALIGN);
        this.txSlot = new MemorySegment[slotCount];
        for (int i = 0; i < slotCount; i++) {
            txSlot[i] = memory.asSlice(i * stride, maxDatagram);
        }
        this.txLen = new int[slotCount];
        this.txDstAddr = new int[slotCount];
        this.txDstPort = new int[slotCount];
        this.txSrcPort = new int[slotCount];
        this.txIpId = new int[slotCount];
        this.txCorrupt = new boolean[slotCount];
        this.txRelease = new PayloadRelease[slotCount];
        this.txRefSegment = new MemorySegment[slotCount];
        this.txRefOffset = new long[slotCount];
        this.txRefLength = new int[slotCount];
        this.txRefHead = new int[slotCount];
        this.free = new int[slotCount];
        for (int i = 0; i < slotCount; i++) {
            free[i] = slotCount - 1 - i;
        }
        this.freeTop = slotCount;
        this.queue = new int[slotCount];
        this.rxDelay = rxFaults != null && config.rxFaults().reorder() > 0
                ? new RxDelayLine(arena, MAX_HELD, maxDatagram) : null;
        PcapWriter w = null;
        int iface = -1;
        if (config.pcap() != null) {
            try {
                w = PcapWriter.open(config.pcap());
                iface = w.addInterface("jrxe " + config.address().getHostAddress() + " " + mode);
            } catch (IOException | RuntimeException e) {
                arena.close();
                throw e;
            }
        }
        this.pcap = w;
        this.pcapInterface = iface;
    }

    // ------------------------------------------------------------------ Link

    @Override
    public final int localAddress() {
        return localAddr;
    }

    @Override
    public final int localPort() {
        return localPort;
    }

    @Override
    public final int maxDatagram() {
        return maxDatagram;
    }

    @Override
    public final LinkMode mode() {
        return mode;
    }

    @Override
    public final LinkCounters counters() {
        return counters;
    }

    @Override
    public final MemorySegment claim() {
        ensureOpen();
        if (claimed >= 0) {
            return txSlot[claimed];
        }
        if (queued >= batch || freeTop == 0) {
            flushQueue();
            if (freeTop == 0) {
                releaseAllHeld();
                flushQueue();
            }
        }
        claimed = free[--freeTop];
        return txSlot[claimed];
    }

    @Override
    public final int sendSlots() {
        return slotCount;
    }

    @Override
    public final int claimedSlot() {
        return claimed;
    }

    /**
     * Whether this link could send payloads by reference: nothing reads the datagrams' bytes after
     * the sealer (no capture, no send faults) and the sealer seals in parts. A mode says yes in
     * {@link #sendsByReference} only if its system calls can gather, too.
     */
    final boolean byReferencePossible() {
        return pcap == null && txFaults == null && sealer.sealsInParts();
    }

    @Override
    public final void commitByReference(int length, int headLength, MemorySegment payload, long payloadOffset,
                                        int payloadLength, PayloadRelease release,
                                        int dstAddr, int dstPort, int srcPort) {
        if (!sendsByReference()) {
            throw new UnsupportedOperationException("this link copies every payload");
        }
        checkCommit(length, dstAddr, dstPort, srcPort);
        if (!payload.isNative() || headLength < 0 || payloadLength < 0 || headLength + payloadLength > length
                || payloadOffset < 0 || payloadOffset > payload.byteSize() - payloadLength || release == null) {
            throw new IllegalArgumentException("payload by reference: " + headLength + "+" + payloadLength + " of " + length);
        }
        int s = claimed;
        txRelease[s] = release;
        txRefSegment[s] = payload;
        txRefOffset[s] = payloadOffset;
        txRefLength[s] = payloadLength;
        txRefHead[s] = headLength;
        queueClaimed(length, dstAddr, dstPort, srcPort);
    }

    @Override
    public final void commit(int length, int dstAddr, int dstPort, int srcPort) {
        checkCommit(length, dstAddr, dstPort, srcPort);
        queueClaimed(length, dstAddr, dstPort, srcPort);
    }

    private void checkCommit(int length, int dstAddr, int dstPort, int srcPort) {
        ensureOpen();
        if (claimed < 0) {
            throw new IllegalStateException("commit without claim");
        }
        if (length < 0 || length > maxDatagram) {
            throw new IllegalArgumentException("datagram length " + length + " not in [0, " + maxDatagram + "]");
        }
        if ((dstPort & ~0xFFFF) != 0 || (srcPort & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("port out of range");
        }
    }

    private void queueClaimed(int length, int dstAddr, int dstPort, int srcPort) {
        int s = claimed;
        claimed = -1;
        txLen[s] = length;
        txDstAddr[s] = dstAddr;
        txDstPort[s] = dstPort;
        txSrcPort[s] = srcPort == 0 ? localPort : srcPort;
        if (pathFaults > 0 && pathFaultDrops(txSrcPort[s])) {
            counters.drop(DropReason.INJECTED);
            release(s);
            return;
        }
        if (txFaults == null) {
            queue[queued++] = s;
        } else {
            commitWithFaults(s);
        }
    }

    @Override
    public final int flush() {
        ensureOpen();
        int sent = flushQueue();
        rethrowCallbackFailure();
        return sent;
    }

    private int flushQueue() {
        if (queued == 0) {
            return 0;
        }
        int n = queued;
        queued = 0;
        return transmit(queue, n);
    }

    /** Datagrams held back by send-side reordering, not yet queued. */
    final int txHeld() {
        return held;
    }

    /** Datagrams held back by receive-side reordering, not yet delivered. */
    final int rxHeld() {
        return rxDelay == null ? 0 : rxDelay.size();
    }

    /** The send-side fault injector, or null. */
    final FaultInjector txFaults() {
        return txFaults;
    }

    /** The receive-side fault injector, or null. */
    final FaultInjector rxFaults() {
        return rxFaults;
    }

    // ------------------------------------------------------------------ send faults

    @Override
    public final void dropFromSourcePort(int port, double probability) {
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("drop probability must be in [0, 1]: " + probability);
        }
        for (int i = 0; i < pathFaults; i++) {
            if (pathFaultPort[i] == port) {
                if (probability == 0) {
                    pathFaults--;
                    pathFaultPort[i] = pathFaultPort[pathFaults];
                    pathFaultDrop[i] = pathFaultDrop[pathFaults];
                } else {
                    pathFaultDrop[i] = probability;
                }
                return;
            }
        }
        if (probability == 0) {
            return;
        }
        if (pathFaults == pathFaultPort.length) {
            throw new IllegalStateException("at most " + pathFaultPort.length + " faulty source ports");
        }
        pathFaultPort[pathFaults] = port;
        pathFaultDrop[pathFaults] = probability;
        pathFaults++;
    }

    private boolean pathFaultDrops(int port) {
        for (int i = 0; i < pathFaults; i++) {
            if (pathFaultPort[i] == port) {
                return pathFaultRandom.nextDouble() < pathFaultDrop[i];
            }
        }
        return false;
    }

    private void commitWithFaults(int s) {
        int f = txFaults.decide();
        if (f == FaultInjector.DROP) {
            counters.drop(DropReason.INJECTED);
            release(s);
            return;
        }
        txCorrupt[s] = (f & FaultInjector.CORRUPT) != 0;
        int copy = -1;
        if ((f & FaultInjector.DUPLICATE) != 0) {
            if (freeTop > 0) {
                copy = free[--freeTop];
                MemorySegment.copy(txSlot[s], 0, txSlot[copy], 0, txLen[s]);
                txLen[copy] = txLen[s];
                txDstAddr[copy] = txDstAddr[s];
                txDstPort[copy] = txDstPort[s];
                txSrcPort[copy] = txSrcPort[s];
                txCorrupt[copy] = false;
            } else {
                txFaults.duplicateNotDone();
            }
        }
        if ((f & FaultInjector.DELAY) != 0) {
            if (held < MAX_HELD) {
                heldSlot[held] = s;
                heldLeft[held] = txFaults.depth();
                held++;
            } else {
                txFaults.delayNotDone();
                enqueue(s);
            }
        } else {
            enqueue(s);
        }
        if (copy >= 0) {
            enqueue(copy);
        }
    }

    /** Queues a datagram; it overtakes every held-back one, which go once enough have. */
    private void enqueue(int s) {
        queue[queued++] = s;
        if (held == 0) {
            return;
        }
        int keep = 0;
        for (int i = 0; i < held; i++) {
            if (--heldLeft[i] == 0) {
                queue[queued++] = heldSlot[i];
            } else {
                heldSlot[keep] = heldSlot[i];
                heldLeft[keep] = heldLeft[i];
                keep++;
            }
        }
        held = keep;
    }

    private void releaseAllHeld() {
        for (int i = 0; i < held; i++) {
            queue[queued++] = heldSlot[i];
        }
        held = 0;
    }

    // ------------------------------------------------------------------ for the modes: send

    /**
     * Sends {@code count} queued datagrams, slots {@code slots[0..count)}, in order. For each one
     * it calls {@link #seal} (with the IPv4 ID the kernel will use) before the system call, then
     * exactly one of {@link #sent}, {@link #sendFailed}; a slot whose seal failed is already done.
     *
     * @return datagrams sent
     */
    abstract int transmit(int[] slots, int count);

    /** Calls the sealer for a slot; false (slot released, drop counted) when the sealer threw. */
    final boolean seal(int s, int ipId) {
        txIpId[s] = ipId;
        try {
            if (txRelease[s] == null) {
                sealer.seal(txSlot[s], 0, txLen[s], localAddr, txDstAddr[s], txSrcPort[s], txDstPort[s], ipId);
            } else {
                int head = txRefHead[s];
                sealer.sealParts(txSlot[s], head, txRefSegment[s], txRefOffset[s], txRefLength[s],
                        txLen[s] - head - txRefLength[s], localAddr, txDstAddr[s], txSrcPort[s], txDstPort[s], ipId);
            }
        } catch (RuntimeException e) {
            callbackFailed(e);
            release(s);
            return false;
        }
        if (txCorrupt[s]) {
            txFaults.corrupt(txSlot[s], 0, txLen[s]);
        }
        return true;
    }

    /** The kernel took the datagram in slot {@code s}. */
    final void sent(int s) {
        counters.sent(txLen[s]);
        if (txRelease[s] != null) {
            counters.sentByReference();
        }
        if (pcap != null) {
            pcap.write(pcapInterface, true, localAddr, txDstAddr[s], txSrcPort[s], txDstPort[s], txIpId[s],
                    txSlot[s], 0, txLen[s]);
        }
        release(s);
    }

    /** The kernel refused the datagram in slot {@code s}. */
    final void sendFailed(int s) {
        counters.drop(DropReason.SEND_FAILED);
        release(s);
    }

    private void release(int s) {
        txCorrupt[s] = false;
        releasePayload(s);
        free[freeTop++] = s;
    }

    /** Lets go of slot {@code s}'s payload held by reference, if it has one. */
    private void releasePayload(int s) {
        PayloadRelease r = txRelease[s];
        if (r != null) {
            txRelease[s] = null;
            txRefSegment[s] = null;
            r.releasePayload();
        }
    }

    // ------------------------------------------------------------------ for the modes: receive

    /**
     * Hands one received datagram to the handler, through receive-side fault injection.
     *
     * @return handler calls made (0 when dropped or held back, 2 for a duplicate, more when
     *         held-back datagrams come due)
     */
    final int deliver(DatagramHandler h, MemorySegment buf, long off, int len, int srcAddr, int srcPort) {
        return deliver(h, buf, off, len, srcAddr, srcPort, localAddr);
    }

    /** As {@link #deliver(DatagramHandler, MemorySegment, long, int, int, int)}, sent to {@code dstAddr} (a group). */
    final int deliver(DatagramHandler h, MemorySegment buf, long off, int len, int srcAddr, int srcPort, int dstAddr) {
        counters.received(len);
        if (len > maxDatagram) {
            counters.drop(DropReason.OVERSIZED);
            return 0;
        }
        if (rxFaults == null) {
            return handOver(h, buf, off, len, srcAddr, srcPort, dstAddr);
        }
        int f = rxFaults.decide();
        if (f == FaultInjector.DROP) {
            counters.drop(DropReason.INJECTED);
            return 0;
        }
        if ((f & FaultInjector.CORRUPT) != 0) {
            rxFaults.corrupt(buf, off, len);
        }
        boolean hold = (f & FaultInjector.DELAY) != 0;
        if (hold && !rxDelay.hasRoom(len)) {
            rxFaults.delayNotDone();
            hold = false;
        }
        int calls = 0;
        if (!hold) {
            calls += handOver(h, buf, off, len, srcAddr, srcPort, dstAddr);
        }
        if ((f & FaultInjector.DUPLICATE) != 0) {
            calls += handOver(h, buf, off, len, srcAddr, srcPort, dstAddr);
        }
        // every datagram handed over (not the one being held back) overtakes the held ones
        for (int passed = calls; passed > 0 && rxDelay != null && rxDelay.size() > 0; passed--) {
            calls += rxDelay.overtaken(this, h);
        }
        if (hold) {
            rxDelay.hold(buf, off, len, srcAddr, srcPort, dstAddr, rxFaults.depth());
        }
        return calls;
    }

    /** Calls the handler once and records the datagram in the capture. */
    final int handOver(DatagramHandler h, MemorySegment buf, long off, int len, int srcAddr, int srcPort, int dstAddr) {
        int ipId;
        try {
            ipId = h.onDatagram(buf, off, len, srcAddr, srcPort, dstAddr);
        } catch (RuntimeException e) {
            callbackFailed(e);
            return 1;
        }
        if (pcap != null) {
            pcap.write(pcapInterface, false, srcAddr, dstAddr, srcPort, localPort, ipId < 0 ? 0 : ipId & 0xFFFF,
                    buf, off, len);
        }
        return 1;
    }

    private void callbackFailed(RuntimeException e) {
        counters.drop(DropReason.OTHER);
        if (callbackFailure == null) {
            callbackFailure = e;
        } else if (callbackFailure != e) {
            callbackFailure.addSuppressed(e);
        }
    }

    /** The last poll took as many datagrams as its limit allowed (set by the mode's {@code poll}). */
    boolean lastPollFull;

    @Override
    public final boolean lastPollFull() {
        return lastPollFull;
    }

    /** Rethrows the first exception a sealer or handler threw since the last call. */
    final void rethrowCallbackFailure() {
        RuntimeException e = callbackFailure;
        if (e != null) {
            callbackFailure = null;
            throw e;
        }
    }

    final void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("link closed");
        }
    }

    /** Flushes and closes the capture and frees the memory; the mode closes its sockets first. */
    /**
     * Starts receiving datagrams sent to IPv4 multicast group {@code group} on this link's port;
     * 0 or -errno. The group's socket lives in the calling thread's network namespace.
     */
    @Override
    public int joinMulticast(int group) {
        ensureOpen();
        return multicast.join(group, selectorForMulticast());
    }

    @Override
    public int leaveMulticast(int group) {
        ensureOpen();
        return multicast.leave(group);
    }

    /** Holders of each UDP source port (see {@link Link#retainSourcePort}). */
    private int[] portHolders;

    @Override
    public synchronized void retainSourcePort(int port) {
        if (port <= 0 || port > 0xFFFF || port == localPort) {
            return;
        }
        if (portHolders == null) {
            portHolders = new int[65536];
        }
        if (portHolders[port]++ == 0) {
            openSourcePort(port);
        }
    }

    /**
     * A QP will send from {@code port} (its first holder): open its socket now, if the mode keeps
     * one, rather than in the first send's path. Called holding this link's monitor.
     */
    void openSourcePort(int port) {
    }

    @Override
    public void releaseSourcePort(int port) {
        boolean last;
        synchronized (this) {
            if (port <= 0 || port > 0xFFFF || port == localPort || portHolders == null || portHolders[port] == 0) {
                return;
            }
            last = --portHolders[port] == 0;
        }
        if (last && !closed) {
            closeSourcePort(port);
        }
    }

    /** Nobody sends from {@code port} any more: close its socket, if the mode opened one. */
    void closeSourcePort(int port) {
    }

    /** A selector multicast sockets register with (the channel link's), or null. */
    java.nio.channels.Selector selectorForMulticast() {
        return null;
    }

    /** Datagrams of the joined multicast groups, up to {@code limit}: handler calls made. */
    final int pollMulticast(DatagramHandler h, int limit) {
        return multicast.any() && limit > 0 ? multicast.poll(this, h, limit) : 0;
    }

    final void closeCommon() {
        // datagrams committed by reference and never sent: their memory is free to go now
        for (int i = 0; i < slotCount; i++) {
            releasePayload(i);
        }
        multicast.close();
        try {
            if (pcap != null) {
                pcap.close();
            }
        } finally {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + config.address().getHostAddress() + ":" + localPort + " " + mode + "]";
    }
}
