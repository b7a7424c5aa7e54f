package dev.jrxe.verbs;

import dev.jrxe.ib.Errno;
import dev.jrxe.transport.CompletionRing;
import dev.jrxe.transport.Cqe;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion queue ({@code ibv_cq}). {@link #poll} copies completions into reusable
 * {@link WorkCompletion}s; when the queue is empty it lets the calling thread drive the device
 * (receive, transmit, timers) instead of waiting for another thread to do it.
 */
public final class CompletionQueue implements AutoCloseable {
    private final Device device;
    private final CompletionChannel channel;
    private final CompletionRing ring;
    private final AtomicInteger eventsDelivered = new AtomicInteger();
    private int eventsAcked;
    final AtomicInteger users = new AtomicInteger();
    /** Consumers' lock: poll, and an extended poll from start to end. */
    final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
    private final int wcFlags;
    private final CqEx ex;
    private volatile boolean closed;

    CompletionQueue(Device device, int cqe, CompletionChannel channel) {
        this(device, cqe, channel, -1);
    }

    /** {@code wcFlags} -1: a classic CQ; else an extended one with these {@link CqEx} flags. */
    CompletionQueue(Device device, int cqe, CompletionChannel channel, int wcFlags) {
        this.device = device;
        this.channel = channel;
        this.ring = new CompletionRing(cqe, new RingEvents());
        this.wcFlags = Math.max(0, wcFlags);
        this.ex = wcFlags >= 0 ? new CqEx(this, wcFlags) : null;
    }

    /**
     * The extended poll API of a CQ made by {@link Device#createCqEx} ({@code ibv_cq_ex}).
     *
     * @throws VerbsException EINVAL for a CQ made by {@link Device#createCq}
     */
    public CqEx ex() {
        if (ex == null) {
            throw VerbsException.einval("not an extended CQ (create it with createCqEx)");
        }
        return ex;
    }

    /** Drives the device once from the polling thread (see {@link #poll}); whether it did. */
    boolean drive() {
        return device.engine().driveFromApp();
    }

    CompletionRing ring() {
        return ring;
    }

    public Device device() {
        return device;
    }

    /** Number of entries the queue holds. */
    public int cqe() {
        return ring.capacity();
    }

    /**
     * {@code ibv_poll_cq}: fills up to {@code wc.length} completions, returns how many. Thread safe.
     */
    public int poll(WorkCompletion[] wc) {
        return poll(wc, wc.length);
    }

    public int poll(WorkCompletion[] wc, int max) {
        if (closed) {
            throw new IllegalStateException("CQ is destroyed" + (device.isClosed() ? " (its device " + device.name()
                + " was closed)" : ""));
        }
        int n = take(wc, max);
        if (n == 0 && device.engine().driveFromApp()) {
            n = take(wc, max);
        }
        return n;
    }

    /**
     * Polls until at least one completion is there or {@code timeoutNanos} have passed, idling
     * between empty polls as {@code idle} says; returns how many it took (0: the timeout). Each
     * poll drives the device as {@link #poll(WorkCompletion[], int)} does. Allocates nothing.
     */
    public int poll(WorkCompletion[] wc, int max, IdleStrategy idle, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        idle.reset();
        while (true) {
            int n = poll(wc, max);
            if (n > 0) {
                idle.reset();
                return n;
            }
            if (System.nanoTime() - deadline >= 0) {
                return 0;
            }
            idle.idle(0);
        }
    }

    private int take(WorkCompletion[] wc, int max) {
        // an empty ring needs no lock (a busy-polling application mostly finds it empty)
        return ring.peek() == null ? 0 : takeLocked(wc, max);
    }

    private int takeLocked(WorkCompletion[] wc, int max) {
        lock.lock();
        try {
            return takeHeld(wc, max);
        } finally {
            lock.unlock();
        }
    }

    private int takeHeld(WorkCompletion[] wc, int max) {
        int n = 0;
        Cqe e;
        while (n < max && (e = ring.peek()) != null) {
            WorkCompletion w = wc[n++];
            w.wrId = e.wrId;
            w.status = e.status;
            w.opcode = e.opcode;
            w.vendorErr = e.vendorErr;
            w.byteLen = e.byteLen;
            w.immData = e.immData;
            w.invalidatedRkey = e.invalidatedRkey;
            w.qpNum = e.qpNum;
            w.srcQp = e.srcQp;
            w.wcFlags = e.wcFlags;
            w.pkeyIndex = e.pkeyIndex;
            w.slid = e.slid;
            w.sl = e.sl;
            w.dlidPathBits = e.dlidPathBits;
            ring.pop();
        }
        return n;
    }

    /** {@code ibv_req_notify_cq}: the channel hears of the next (or next solicited) completion. */
    public void requestNotify(boolean solicitedOnly) {
        if (channel == null) {
            throw VerbsException.einval("CQ has no completion channel");
        }
        ring.arm(solicitedOnly);
    }

    /** {@code ibv_ack_cq_events}. */
    public synchronized void ackEvents(int n) {
        eventsAcked += n;
    }

    void eventDelivered() {
        eventsDelivered.incrementAndGet();
    }

    /** {@code ibv_resize_cq}: at least {@code cqe} entries; fails with EINVAL if entries would be lost. */
    public void resize(int cqe) {
        if (cqe < 1 || cqe > Device.MAX_CQE) {
            throw VerbsException.einval("cqe " + cqe + " outside 1.." + Device.MAX_CQE);
        }
        boolean[] ok = new boolean[1];
        device.engine().withEngine(() -> {
            lock.lock();
            try {
                ok[0] = ringResize(cqe);
            } finally {
                lock.unlock();
            }
        });
        if (!ok[0]) {
            throw VerbsException.einval("cannot shrink below the completions waiting");
        }
    }

    private boolean ringResize(int cqe) {
        return ring.resize(cqe);
    }

    /** The ring's events, kept off the public type. */
    private final class RingEvents implements CompletionRing.Listener {
        @Override
        public void onCompletionEvent(CompletionRing r) {
            if (channel != null) {
                channel.fire(CompletionQueue.this);
            }
        }

        @Override
        public void onOverflow(CompletionRing r) {
            device.cqOverflowed(CompletionQueue.this);
        }
    }

    /** {@code ibv_destroy_cq}: EBUSY while QPs use it. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (users.get() > 0 && !device.isClosed()) {
            throw new VerbsException(Errno.EBUSY, "CQ still used by QPs");
        }
        closed = true;
        device.cqClosed(this);
    }
}
