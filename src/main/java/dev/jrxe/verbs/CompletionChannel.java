package dev.jrxe.verbs;

import dev.jrxe.transport.Engine;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A completion event channel ({@code ibv_comp_channel}), made by
 * {@link Device#createCompChannel()}: CQs created with it and armed with
 * {@link CompletionQueue#requestNotify} report here when a completion fires them. An arm fires
 * once; re-arm before polling the CQ dry so no completion is missed, and acknowledge the events
 * taken with {@link CompletionQueue#ackEvents}.
 *
 * <p>Thread safe: any number of threads may wait in {@link #getEvent} at once (each event goes to
 * one of them) while the device fires events into it.
 *
 * <pre>{@code
 * CompletionChannel ch = dev.createCompChannel();
 * CompletionQueue cq = dev.createCq(256, ch, 0);
 * cq.requestNotify(false);                                  // the next completion fires
 * CompletionQueue fired = ch.getEvent(1, TimeUnit.SECONDS); // null after a second without
 * if (fired != null) { fired.ackEvents(1); fired.requestNotify(false); fired.poll(wc); }
 * }</pre>
 */
public final class CompletionChannel implements AutoCloseable {
    private final Device device;
    private final LinkedBlockingQueue<CompletionQueue> fired = new LinkedBlockingQueue<>();
    /** What a waiting thread that serves the device waits for (one object: no allocation per wait). */
    private final java.util.function.BooleanSupplier anyFired = () -> !fired.isEmpty();

    CompletionChannel(Device device) {
        this.device = device;
    }

    void fire(CompletionQueue cq) {
        fired.add(cq);
        device.wakeWaitingServer(); // after the add: a thread that registers as sleeper then sees it
    }

    /**
     * {@code ibv_get_cq_event} with a timeout: waits for a CQ's event. The waiting thread serves
     * the device meanwhile ({@link DeviceConfig#waitServes}): it sleeps in poll(2) on the device's
     * socket and handles what arrives, so the message that fires the event wakes it once, as
     * rxe's softirq wakes a waiting application; the device's background thread stays out. It
     * parks instead, and the background thread serves the device, when another thread already
     * drives the device by polling, when a newer waiter takes over, on a device of more than
     * one engine, and when the waiting thread is virtual (poll(2) would pin its carrier). A device opened with {@link DeviceConfig#manualProgress()} has no background
     * thread and is not served by waiting: another thread must drive progress for an event to
     * come. An interrupt is noticed within 50 ms while the thread sleeps in poll(2).
     *
     * @param timeout how long to wait at most
     * @param unit    the unit of {@code timeout}
     * @return the CQ whose event fired (count it for {@link CompletionQueue#ackEvents}), or null on timeout
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public CompletionQueue getEvent(long timeout, TimeUnit unit) throws InterruptedException {
        CompletionQueue cq = fired.poll();
        if (cq == null && timeout > 0) {
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            while (cq == null) {
                int served = device.serveUntil(anyFired, deadline);
                if (served == Engine.NOT_SERVED) {
                    device.waiterParks(true);
                    try {
                        device.pausePolling(); // this thread no longer drives the device: its progress thread does
                        cq = fired.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                    } finally {
                        device.waiterParks(false);
                    }
                    break;
                }
                cq = fired.poll(); // null when another waiter took the event: wait on
                if (served == Engine.SERVED_TIMED_OUT) {
                    break;
                }
            }
        }
        if (cq != null) {
            cq.eventDelivered();
        }
        return cq;
    }

    /** {@return the device that made this channel} */
    public Device device() {
        return device;
    }

    /**
     * {@code ibv_destroy_comp_channel}: does nothing here, there being nothing to release; CQs
     * created with the channel keep firing into it.
     */
    @Override
    public void close() {
    }
}
