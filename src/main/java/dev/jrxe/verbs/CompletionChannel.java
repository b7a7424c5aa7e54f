package dev.jrxe.verbs;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A completion event channel ({@code ibv_comp_channel}): CQs armed with
 * {@link CompletionQueue#requestNotify} report here when a completion fires them.
 */
public final class CompletionChannel implements AutoCloseable {
    private final Device device;
    private final LinkedBlockingQueue<CompletionQueue> fired = new LinkedBlockingQueue<>();

    CompletionChannel(Device device) {
        this.device = device;
    }

    void fire(CompletionQueue cq) {
        fired.add(cq);
    }

    /**
     * {@code ibv_get_cq_event} with a timeout: the CQ whose event fired, or null on timeout. The
     * device keeps making progress meanwhile (its background thread).
     */
    public CompletionQueue getEvent(long timeout, TimeUnit unit) throws InterruptedException {
        CompletionQueue cq = fired.poll(timeout, unit);
        if (cq != null) {
            cq.eventDelivered();
        }
        return cq;
    }

    public Device device() {
        return device;
    }

    @Override
    public void close() {
    }
}
