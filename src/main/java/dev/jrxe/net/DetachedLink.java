package dev.jrxe.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * A link that binds no socket: it has the address, port and datagram size its configuration
 * names, drops what is sent and receives nothing. What a device opened only to be queried
 * ({@code jrxe devinfo}) stands on, so that the query works while another process holds the
 * address and port, and binds nothing that others could then not.
 */
final class DetachedLink implements Link {
    private final int address;
    private final int port;
    private final int maxDatagram;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment slot;
    private final LinkCounters counters = new LinkCounters();
    private volatile Thread waiter;

    DetachedLink(LinkConfig config) {
        this.address = LinkConfig.toInt(config.address());
        this.port = config.port();
        this.maxDatagram = config.maxDatagram();
        this.slot = arena.allocate(maxDatagram);
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
        return maxDatagram;
    }

    @Override
    public MemorySegment claim() {
        return slot;
    }

    @Override
    public void commit(int length, int dstAddr, int dstPort, int srcPort) {
        // nowhere to send: the datagram is dropped
    }

    @Override
    public int flush() {
        return 0;
    }

    @Override
    public int poll(DatagramHandler handler, int limit) {
        return 0;
    }

    @Override
    public boolean lastPollFull() {
        return false;
    }

    @Override
    public boolean awaitReadable(long timeoutNanos) {
        if (timeoutNanos > 0) {
            waiter = Thread.currentThread();
            LockSupport.parkNanos(this, timeoutNanos);
            waiter = null;
        }
        return false;
    }

    @Override
    public void wakeup() {
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
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
