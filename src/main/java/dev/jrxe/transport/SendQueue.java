package dev.jrxe.transport;

import java.lang.foreign.Arena;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Ring of {@link SendWqe}s between the posting application (producer) and the engine (requester
 * and completer). Three monotonic counters: {@code producer} (next free), {@code next} (next WQE
 * the requester starts) and {@code consumer} (oldest WQE not yet completed). Slots are reused;
 * posting never allocates.
 */
public final class SendQueue {
    private static final VarHandle PRODUCER;
    private static final VarHandle CONSUMER;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PRODUCER = l.findVarHandle(SendQueue.class, "producer", long.class);
            CONSUMER = l.findVarHandle(SendQueue.class, "consumer", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final SendWqe[] slots;
    private final int maxWr;
    private final int maxSge;
    private final int maxInline;
    @SuppressWarnings("unused")
    private volatile long producer;
    @SuppressWarnings("unused")
    private volatile long consumer;
    /** Next WQE the requester will start (engine only). */
    long next;

    public SendQueue(int maxWr, int maxSge, int maxInline, Arena arena) {
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        this.slots = new SendWqe[Math.max(1, maxWr)];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new SendWqe(Math.max(1, maxSge), maxInline, arena);
        }
    }

    public int maxWr() {
        return maxWr;
    }

    public int maxSge() {
        return maxSge;
    }

    public int maxInline() {
        return maxInline;
    }

    /** Producer: the slot to fill next, or null when {@code maxWr} WQEs are outstanding. */
    public SendWqe claim() {
        long p = (long) PRODUCER.getOpaque(this);
        if (p - (long) CONSUMER.getAcquire(this) >= maxWr) {
            return null;
        }
        return slots[(int) (p % slots.length)];
    }

    /** Producer: publishes the claimed slot. */
    public void publish() {
        PRODUCER.setRelease(this, (long) PRODUCER.getOpaque(this) + 1);
    }

    /**
     * Producer: the slot {@code ahead} places after the next free one, or null when it would
     * exceed {@code maxWr} outstanding WQEs (a batch fills several slots before publishing any).
     */
    public SendWqe claim(int ahead) {
        long p = (long) PRODUCER.getOpaque(this) + ahead;
        if (p - (long) CONSUMER.getAcquire(this) >= maxWr) {
            return null;
        }
        return slots[(int) (p % slots.length)];
    }

    /** Producer: publishes {@code n} claimed slots at once (the engine sees all or none of them). */
    public void publish(int n) {
        PRODUCER.setRelease(this, (long) PRODUCER.getOpaque(this) + n);
    }

    long producer() {
        return (long) PRODUCER.getAcquire(this);
    }

    long consumer() {
        return (long) CONSUMER.getOpaque(this);
    }

    /** Slots of the ring (the queue index of a WQE modulo this is its slot). */
    int slotCount() {
        return slots.length;
    }

    SendWqe at(long index) {
        return slots[(int) (index % slots.length)];
    }

    /** Engine: the oldest WQE is finished and its slot may be reused. */
    void retire() {
        CONSUMER.setRelease(this, (long) CONSUMER.getOpaque(this) + 1);
    }

    /** Engine: true when the requester has WQEs it has not started. */
    boolean hasUnstarted() {
        return next < producer();
    }

    /** WQEs posted and not yet completed. */
    public int outstanding() {
        return (int) (producer() - consumer());
    }

    /** Forgets everything (QP reset). Only when neither side runs. */
    void reset() {
        PRODUCER.setRelease(this, 0L);
        CONSUMER.setRelease(this, 0L);
        next = 0;
    }
}
