package dev.jrxe.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Ring of {@link RecvWqe}s: the application produces, the responder consumes. Also serves as the
 * ring of a shared receive queue, whose consumers are several QPs on one engine.
 */
public final class RecvQueue {
    private static final VarHandle PRODUCER;
    private static final VarHandle CONSUMER;
    private static final VarHandle LIMIT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PRODUCER = l.findVarHandle(RecvQueue.class, "producer", long.class);
            LIMIT = l.findVarHandle(RecvQueue.class, "limit", int.class);
            CONSUMER = l.findVarHandle(RecvQueue.class, "consumer", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final RecvWqe[] slots;
    private final int maxWr;
    private final int maxSge;
    @SuppressWarnings("unused")
    private volatile long producer;
    @SuppressWarnings("unused")
    private volatile long consumer;
    /** SRQ limit (srq_limit): armed when positive; fires once when fewer WQEs remain, then disarms. */
    private volatile int limit;
    private volatile Runnable limitReached;

    public RecvQueue(int maxWr, int maxSge) {
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.slots = new RecvWqe[Math.max(1, maxWr)];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new RecvWqe(Math.max(1, maxSge));
        }
    }

    public int maxWr() {
        return maxWr;
    }

    public int maxSge() {
        return maxSge;
    }

    /** Producer: slot to fill, or null when full. */
    public RecvWqe claim() {
        long p = (long) PRODUCER.getOpaque(this);
        if (p - (long) CONSUMER.getAcquire(this) >= maxWr) {
            return null;
        }
        return slots[(int) (p % slots.length)];
    }

    public void publish() {
        PRODUCER.setRelease(this, (long) PRODUCER.getOpaque(this) + 1);
    }

    /** Consumer: the oldest posted WQE, or null when empty. */
    RecvWqe peek() {
        long c = (long) CONSUMER.getOpaque(this);
        if (c >= (long) PRODUCER.getAcquire(this)) {
            return null;
        }
        return slots[(int) (c % slots.length)];
    }

    /** Consumer: frees the oldest WQE; an armed limit fires once fewer than it remain. */
    void pop() {
        CONSUMER.setRelease(this, (long) CONSUMER.getOpaque(this) + 1);
        int l = limit;
        // compare-and-set: a re-arm by the application in between is never lost
        if (l > 0 && depth() < l && LIMIT.compareAndSet(this, l, 0)) {
            Runnable r = limitReached;
            if (r != null) {
                r.run();
            }
        }
    }

    /**
     * Arms the SRQ limit ({@code ibv_modify_srq} with IBV_SRQ_LIMIT; 0 disarms); {@code onReached}
     * runs on the engine thread when it fires (it then reads 0 again, as rdma-core's query does).
     */
    public void armLimit(int srqLimit, Runnable onReached) {
        this.limitReached = onReached;
        this.limit = srqLimit;
    }

    /** The armed limit, 0 when not armed. */
    public int limit() {
        return limit;
    }

    /** Number of posted, unconsumed WQEs. */
    public int depth() {
        return (int) ((long) PRODUCER.getAcquire(this) - (long) CONSUMER.getAcquire(this));
    }

    void reset() {
        PRODUCER.setRelease(this, 0L);
        CONSUMER.setRelease(this, 0L);
    }
}
