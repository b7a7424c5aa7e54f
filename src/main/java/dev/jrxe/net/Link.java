package dev.jrxe.net;

/**
 * A device's datagram link: one IPv4 address, one UDP port (4791 unless a test says otherwise).
 *
 * <p>Single-threaded by contract: one thread at a time (the device's progress engine) claims,
 * commits, flushes and polls. {@link #wakeup()} and {@link #counters()} may be called from any
 * thread, and {@link #awaitReadable} from one other thread while that one polls or flushes (the
 * engine's progress thread sleeps in it without holding the engine).
 *
 * <p>Sending: {@link #claim()} returns the buffer of the next datagram; the caller writes the UDP
 * payload at offset 0 (BTH .. payload .. pad, leaving 4 bytes for the ICRC) and calls
 * {@link #commit}. {@link #flush()} hands all committed datagrams to the kernel in as few system
 * calls as the link's mode allows, calling the {@link DatagramSealer} for each one first.
 */
public interface Link extends AutoCloseable {
    /** Local IPv4 address, big-endian int. */
    int localAddress();

    /** Local UDP port. */
    int localPort();

    /** Largest UDP payload {@link #claim()} may hold. */
    int maxDatagram();

    /** Buffer for the next datagram, capacity {@link #maxDatagram()}; flushes first when the batch is full. */
    java.lang.foreign.MemorySegment claim();

    /** Queues the claimed datagram of {@code length} bytes (ICRC included) for sending. */
    void commit(int length, int dstAddr, int dstPort, int srcPort);

    /**
     * Whether {@link #commitByReference} works: the link sends a payload from the caller's memory
     * by {@code iovec}, without copying it into the datagram's buffer. False for links that need
     * every byte in the buffer (capture, send faults, in-memory links) and for sealers that cannot
     * seal in parts ({@link DatagramSealer#sealsInParts}).
     */
    default boolean sendsByReference() {
        return false;
    }

    /** Number of datagram buffers ({@link #claimedSlot} is below it). */
    default int sendSlots() {
        return 0;
    }

    /** Index of the buffer {@link #claim()} returned last and not yet committed, or -1. */
    default int claimedSlot() {
        return -1;
    }

    /**
     * Queues the claimed datagram with its payload left where it lies. The claimed buffer holds
     * the bytes before the payload at [0, headLength) and the bytes after it, the 4 ICRC bytes
     * last, at [headLength, length - payloadLength); the datagram is those, the
     * {@code payloadLength} bytes of {@code payload} from {@code payloadOffset} between them.
     * {@code release} is called once the link no longer reads the payload (see
     * {@link PayloadRelease}); until then the caller keeps that memory mapped. Only when
     * {@link #sendsByReference}.
     *
     * @throws UnsupportedOperationException when the link cannot
     */
    default void commitByReference(int length, int headLength, java.lang.foreign.MemorySegment payload,
                                   long payloadOffset, int payloadLength, PayloadRelease release,
                                   int dstAddr, int dstPort, int srcPort) {
        throw new UnsupportedOperationException("this link copies every payload");
    }

    /** Sends every committed datagram; returns how many went out. */
    int flush();

    /**
     * Receives up to {@code limit} datagrams from the kernel without blocking and hands each to
     * {@code handler}; returns how many handler calls were made (receive-side fault injection can
     * make that differ from the datagrams taken: drops, duplicates, held-back ones coming due).
     */
    int poll(DatagramHandler handler, int limit);

    /**
     * Whether the last {@link #poll} stopped at its limit, counting every datagram it took from the
     * kernel (dropped ones too, which make no handler call): more may still wait in the socket.
     */
    boolean lastPollFull();

    /**
     * Blocks until a datagram can be read, {@link #wakeup()} is called, or {@code timeoutNanos}
     * passes (0 or less: just checks). Returns true when a datagram can be read. May run beside
     * {@link #poll}/{@link #flush} on another thread: it changes nothing they use.
     */
    boolean awaitReadable(long timeoutNanos);

    /**
     * Starts receiving datagrams sent to the IPv4 multicast group {@code group} (big-endian int)
     * on this link's port, as rxe joins a group on its netdev for a QP attached to a multicast
     * GID. Returns 0 or -errno; joining twice is a no-op. Links that cannot: -EOPNOTSUPP.
     */
    default int joinMulticast(int group) {
        return -dev.jrxe.ib.Errno.EOPNOTSUPP;
    }

    /** Stops receiving group {@code group}; 0, or -errno (-EINVAL when it was not joined). */
    default int leaveMulticast(int group) {
        return -dev.jrxe.ib.Errno.EOPNOTSUPP;
    }

    /**
     * A QP sends from UDP source port {@code port} (the RoCEv2 flow entropy): the link keeps what
     * it needs to send from that port (a socket bound to it) while anyone holds it. Any thread.
     */
    default void retainSourcePort(int port) {
    }

    /**
     * The QP no longer sends from {@code port}; when nobody holds it, the link lets go of its
     * socket. Call holding the engine, between duty cycles (nothing committed for that port).
     */
    default void releaseSourcePort(int port) {
    }

    /**
     * Fault injection keyed on one path: from now on each datagram this link sends from UDP
     * source port {@code port} is dropped with {@code probability} (0 removes the fault), counted
     * as {@link DropReason#INJECTED}; what an overloaded or broken ECMP path does. At most 8 ports
     * at once. Call between duty cycles (holding the engine, or before traffic). Links that
     * cannot: UnsupportedOperationException.
     */
    default void dropFromSourcePort(int port, double probability) {
        throw new UnsupportedOperationException("this link has no per-path faults");
    }

    /**
     * True when this link has an away watchdog: a timer that the thread driving the link pushes
     * back while it drives ({@link #armWatchdog}) and that a background thread waits on
     * ({@link #awaitWatchdog}), so that the background thread wakes up only once the driving
     * thread has stopped, not every few milliseconds to look whether it has.
     */
    default boolean hasWatchdog() {
        return false;
    }

    /**
     * (Re)arms the watchdog to fire {@code nanos} from now. Only the thread that drives the link
     * (polls and flushes, under the engine) calls it, and only while the engine runs (the engine
     * stops under the same lock before it closes the link); nothing without a watchdog.
     */
    default void armWatchdog(long nanos) {
    }

    /**
     * Arms the watchdog {@code armNanos} from now when that is positive, then waits until it fires
     * or {@link #wakeWatchdog} is called (true), or {@code timeoutNanos} pass (false). One waiting
     * thread at a time, beside the driving thread and an {@link #awaitReadable} waiter, whose
     * {@link #wakeup} it leaves alone. Without a watchdog: false at once.
     */
    default boolean awaitWatchdog(long armNanos, long timeoutNanos) {
        return false;
    }

    /**
     * Fires the watchdog now, from any thread: its waiter returns. (A driving thread that arms
     * it again at once may cancel this; only a thread that no longer drives should call it.)
     */
    default void wakeWatchdog() {
    }

    /** Makes a blocked {@link #awaitReadable} return; callable from any thread. */
    void wakeup();

    /** How this link moves datagrams (never {@link LinkMode#AUTO}: the mode AUTO chose). */
    LinkMode mode();

    /** This link's counters. */
    LinkCounters counters();

    @Override
    void close();
}
