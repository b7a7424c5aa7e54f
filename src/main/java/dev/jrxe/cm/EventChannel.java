package dev.jrxe.cm;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** {@code struct rdma_event_channel}: where the events of the ids created on it arrive, in order. */
public final class EventChannel implements AutoCloseable {
    private final LinkedBlockingQueue<CmEvent> events = new LinkedBlockingQueue<>();
    private volatile boolean closed;

    void post(CmEvent e) {
        if (!closed) {
            events.add(e);
        }
    }

    /** {@code rdma_get_cm_event}: blocks for the next event. */
    public CmEvent getEvent() throws InterruptedException {
        return events.take();
    }

    /** The next event within {@code timeout}, or null. */
    public CmEvent getEvent(long timeout, TimeUnit unit) throws InterruptedException {
        return events.poll(timeout, unit);
    }

    /** The next event if one is there, else null (never blocks). */
    CmEvent getEventNow() {
        return events.poll();
    }

    /** {@code rdma_destroy_event_channel}. */
    @Override
    public void close() {
        closed = true;
        events.clear();
    }
}
