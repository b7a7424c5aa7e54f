package dev.jrxe.sim;

import dev.jrxe.net.DatagramHandler;
import dev.jrxe.net.DatagramSealer;
import dev.jrxe.net.Link;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.net.LinkMode;
import dev.jrxe.wire.IcrcSealer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

/**
 * A device's link on the {@link SimNetwork}: what it commits is sealed with the real ICRC (the
 * IPv4 ID counts up, as a kernel's would) and put on the network at once; what arrives waits
 * until the device polls. Single-threaded, like every link.
 */
final class SimLink implements Link {
    private static final int MAX_DATAGRAM = 4096 + 128;

    private record Arrival(int src, int srcPort, byte[] bytes) {
    }

    private final SimNetwork network;
    private final int address;
    private final int port;
    private final DatagramSealer sealer = new IcrcSealer();
    private final LinkCounters counters = new LinkCounters();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment tx = arena.allocate(MAX_DATAGRAM, 8);
    private final MemorySegment rx = arena.allocate(MAX_DATAGRAM, 8);
    private final ArrayDeque<Arrival> inbound = new ArrayDeque<>();
    /** The last poll took as many datagrams as its limit allowed. */
    private boolean lastPollFull;
    private int committed;
    private int ipId;

    SimLink(SimNetwork network, int address, int port) {
        this.network = network;
        this.address = address;
        this.port = port;
    }

    void arrive(int src, int srcPort, byte[] bytes) {
        inbound.add(new Arrival(src, srcPort, bytes));
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
        return MAX_DATAGRAM;
    }

    @Override
    public MemorySegment claim() {
        return tx;
    }

    @Override
    public void commit(int length, int dstAddr, int dstPort, int srcPort) {
        sealer.seal(tx, 0, length, address, dstAddr, srcPort, dstPort, ipId++ & 0xFFFF);
        network.send(address, srcPort, dstAddr, tx.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
        counters.sent(length);
        committed++;
    }

    @Override
    public int flush() {
        int n = committed;
        committed = 0;
        return n;
    }

    @Override
    public int poll(DatagramHandler handler, int limit) {
        int n = 0;
        Arrival a;
        while (n < limit && (a = inbound.poll()) != null) {
            MemorySegment.copy(a.bytes, 0, rx, ValueLayout.JAVA_BYTE, 0, a.bytes.length);
            counters.received(a.bytes.length);
            handler.onDatagram(rx, 0, a.bytes.length, a.src, a.srcPort, address);
            n++;
        }
        lastPollFull = n >= limit;
        return n;
    }

    @Override
    public boolean lastPollFull() {
        return lastPollFull;
    }

    @Override
    public boolean awaitReadable(long timeoutNanos) {
        return !inbound.isEmpty();
    }

    @Override
    public void wakeup() {
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
