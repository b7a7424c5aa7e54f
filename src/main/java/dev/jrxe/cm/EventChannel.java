package dev.jrxe.cm;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code struct rdma_event_channel} ({@code rdma_create_event_channel}): where the events of the
 * {@link CmId}s created on it arrive, in the order they happened; unbounded.
 *
 * <p>Thread safe: the device's CM thread posts MAD-driven events and the calling thread posts
 * those of {@code resolveAddr}, {@code resolveRoute} and {@code resolveAddrinfo}; any number of
 * threads may take events, each event going to one of them. After {@link #close()} events are
 * dropped.
 *
 * <pre>{@code
 * EventChannel ch = new EventChannel();
 * CmId id = CmId.create(ch, device, ServiceIds.PS_TCP);
 * id.resolveAddr(0, serverAddr, 7174, 2000);
 * CmEvent e = ch.getEvent(2, TimeUnit.SECONDS);   // ADDR_RESOLVED
 * e.ack();
 * }</pre>
 */
public final class EventChannel implements AutoCloseable {
    private final LinkedBlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    /** {@code rdma_create_event_channel}: an empty channel. */
    public EventChannel() {
    }

    void post(CmEvent e) {
        if (!closed) {
            events.add(e);
        }
    }

    /**
     * {@code rdma_get_cm_event}: blocks for the next event (also after {@link #close()}, which
     * does not wake it).
     *
     * @return the next event
     * @throws InterruptedException when the thread is interrupted while waiting
     */
    public CmEvent getEvent() throws InterruptedException {
        return events.take();
    }

    /**
     * The next event within {@code timeout}, or null (what a librdmacm program does with
     * {@code poll(2)} on the channel's fd, then {@code rdma_get_cm_event}).
     *
     * @param timeout how long to wait; 0 or less returns at once
     * @param unit the unit of {@code timeout}
     * @return the next event, or null when none came in time
     * @throws InterruptedException when the thread is interrupted while waiting
     */
    public CmEvent getEvent(long timeout, TimeUnit unit) throws InterruptedException {
        return events.poll(timeout, unit);
    }

    /** The next event if one is there, else null (never blocks). */
    CmEvent getEventNow() {
        return events.poll();
    }

    /**
     * {@code rdma_destroy_event_channel}: drops the queued events and every later one. It does not
     * destroy the ids: close those first, as librdmacm requires. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        events.clear();
    }
}
