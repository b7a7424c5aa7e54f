package dev.jrxe.transport;

import dev.jrxe.net.DatagramHandler;
import dev.jrxe.net.Link;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.net.LinkMode;
import dev.jrxe.wire.Icrc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A link without sockets, for tests of the engine on one thread: the datagrams the engine
 * commits are sealed with a real ICRC and kept for the test ({@link #takeSent}); the datagrams
 * the test injects ({@link #inject}, sealed here as the peer's link would) are what the engine's
 * next poll receives, through the real {@code RxDecoder}.
 */
final class MemoryLink implements Link {
    /** One datagram: its UDP payload and addresses. */
    record Datagram(byte[] bytes, int srcAddr, int srcPort, int dstAddr, int dstPort) {
        MemorySegment segment() {
            return MemorySegment.ofArray(bytes);
        }
    }

    private final int address;
    private final int port;
    private final LinkCounters counters = new LinkCounters();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buf;
    private final Icrc icrc = new Icrc();
    private final ConcurrentLinkedQueue<Datagram> inbound = new ConcurrentLinkedQueue<>();
    private final List<Datagram> committed = new ArrayList<>();
    private final List<Datagram> sent = new ArrayList<>();
    private volatile Thread waiter;
    private int ipId;

    MemoryLink(int address, int port) {
        this.address = address;
        this.port = port;
        this.buf = arena.allocate(maxDatagram(), 8);
    }

    /** Queues a datagram from {@code srcAddr}, sealing its ICRC first (bytes up to the ICRC written). */
    void inject(MemorySegment packet, int length, int srcAddr, int srcPort) {
        byte[] copy = new byte[length];
        MemorySegment seg = MemorySegment.ofArray(copy);
        MemorySegment.copy(packet, 0, seg, 0, length);
        synchronized (icrc) {
            icrc.seal(seg, 0, length, srcAddr, address, srcPort, port, 0x1234);
        }
        inbound.add(new Datagram(copy, srcAddr, srcPort, address, port));
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    /** Datagrams the engine has flushed since the last call. */
    synchronized List<Datagram> takeSent() {
        List<Datagram> out = new ArrayList<>(sent);
        sent.clear();
        return out;
    }

    boolean inboundEmpty() {
        return inbound.isEmpty();
    }

    @Override
    public int localAddress() {
        return address;
    }

    @Override
    public int localPort() {
        return port;
    }

    @Override
    public int maxDatagram() {
        return 4096 + 128;
    }

    @Override
    public MemorySegment claim() {
        return buf;
    }

    @Override
    public void commit(int length, int dstAddr, int dstPort, int srcPort) {
        synchronized (icrc) {
            icrc.seal(buf, 0, length, address, dstAddr, srcPort, dstPort, ipId++ & 0xFFFF);
        }
        committed.add(new Datagram(buf.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), address, srcPort, dstAddr,
            dstPort));
        counters.sent(length);
    }

    @Override
    public synchronized int flush() {
        int n = committed.size();
        sent.addAll(committed);
        committed.clear();
        return n;
    }

    @Override
    public int poll(DatagramHandler handler, int limit) {
        int n = 0;
        Datagram d;
        while (n < limit && (d = inbound.poll()) != null) {
            counters.received(d.bytes().length);
            handler.onDatagram(d.segment(), 0, d.bytes().length, d.srcAddr(), d.srcPort(), d.dstAddr());
            n++;
        }
        lastPollFull = n >= limit;
        return n;
    }

    @Override
    public boolean lastPollFull() {
        return lastPollFull;
    }

    private boolean lastPollFull;

    @Override
    public boolean awaitReadable(long timeoutNanos) {
        if (inbound.isEmpty() && timeoutNanos > 0) {
            waiter = Thread.currentThread();
            if (inbound.isEmpty()) {
                LockSupport.parkNanos(timeoutNanos);
            }
            waiter = null;
        }
        return !inbound.isEmpty();
    }

    @Override
    public void wakeup() {
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    @Override
    public LinkMode mode() {
        return LinkMode.CHANNEL;
    }

    @Override
    public LinkCounters counters() {
        return counters;
    }

    @Override
    public void close() {
        arena.close();
    }
}
