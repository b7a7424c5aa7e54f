package dev.jrxe.verbs;

import dev.jrxe.ib.Errno;
import dev.jrxe.transport.CompletionRing;
import dev.jrxe.transport.Cqe;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A completion queue ({@code ibv_cq}), made by {@link Device#createCq} or, with the extended
 * poll API {@link #ex()}, {@link Device#createCqEx}. {@link #poll} copies completions into
 * reusable {@link WorkCompletion}s; when the queue is empty it lets the calling thread drive the
 * device (receive, transmit, timers) if no other thread is doing so, instead of waiting for the
 * progress thread. A CQ that overflows raises {@code IBV_EVENT_CQ_ERR} and moves the QP that
 * found it full to the error state.
 *
 * <pre>{@code
 * CompletionQueue cq = device.createCq(256);
 * WorkCompletion[] wc = new WorkCompletion[16];
 * java.util.Arrays.setAll(wc, i -> new WorkCompletion());
 * int n = cq.poll(wc, wc.length, IdleStrategy.backoff(), 1_000_000_000L); // up to 1 s
 * }</pre>
 *
 * <p>Thread safe: several threads may poll at once (an empty CQ is seen without a lock, taking
 * completions holds the CQ's consumer lock, so each completion goes to one of them);
 * {@link #requestNotify}, {@link #ackEvents} and {@link #resize} may run alongside.
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
     * @return this CQ's one {@link CqEx}
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
        return engine().driveFromApp();
    }

    /** The engine whose QPs complete here (bound when the first QP using this CQ is created). */
    final EngineBinding binding = new EngineBinding();

    /** The engine a poll drives: the one bound, else the device's first. */
    private dev.jrxe.transport.Engine engine() {
        dev.jrxe.transport.Engine e = binding.get();
        return e != null ? e : device.engine();
    }

    CompletionRing ring() {
        return ring;
    }

    /** {@return the device that created this CQ} */
    public Device device() {
        return device;
    }

    /**
     * {@return {@code cq->cqe}: the number of completions the queue holds, exactly as created or
     * last resized}
     */
    public int cqe() {
        return ring.capacity();
    }

    /**
     * {@code ibv_poll_cq(cq, wc.length, wc)}: {@link #poll(WorkCompletion[], int)} with
     * {@code max = wc.length}. Thread safe.
     *
     * @param wc where the completions go, oldest first; every element must be non-null
     * @return how many completions were taken (0 when none was waiting)
     * @throws IllegalStateException once the CQ (or its device) is closed
     */
    public int poll(WorkCompletion[] wc) {
        return poll(wc, wc.length);
    }

    /**
     * {@code ibv_poll_cq}: takes up to {@code max} completions, oldest first, into
     * {@code wc[0..n)}. When none is waiting, the calling thread drives the device (receive,
     * transmit, timers) if no other thread is driving it, and looks once more. It does not wait
     * for completions (only, briefly, for another consumer holding the CQ's lock); it allocates
     * nothing. Thread safe.
     *
     * @param wc  where the completions go; elements {@code 0..max-1} must be non-null
     * @param max at most this many, at most {@code wc.length}
     * @return how many completions were taken, {@code 0..max}
     * @throws IllegalStateException once the CQ (or its device) is closed
     */
    public int poll(WorkCompletion[] wc, int max) {
        ensureUsable();
        int n = take(wc, max);
        if (n == 0 && engine().driveFromApp()) {
            n = take(wc, max);
        }
        return n;
    }

    /**
     * Busy-polls until completions come or the timeout passes: calls
     * {@link #poll(WorkCompletion[], int)} (so every empty poll may drive the device) and, after
     * each empty one, {@code idle.idle(0)}. It always polls at least once, calls
     * {@code idle.reset()} on entry and when completions came, and allocates nothing itself. Not
     * a libibverbs verb (the C way to wait is a completion channel); thread safe as
     * {@code poll} is, with one {@link IdleStrategy} per thread. It does not look at the
     * thread's interrupt status.
     *
     * @param wc           where the completions go; elements {@code 0..max-1} must be non-null
     * @param max          at most this many, {@code 1..wc.length} (with 0 it waits out the timeout)
     * @param idle         what to do between empty polls (spin, yield, park)
     * @param timeoutNanos how long to keep polling, in nanoseconds of {@link System#nanoTime()};
     *                     0 or less polls once, {@link Long#MAX_VALUE} polls until completions come
     * @return how many completions were taken, {@code 1..max}, or 0 when the timeout passed first
     * @throws IllegalStateException once the CQ (or its device) is closed
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

    /** Throws IllegalStateException once the CQ (or its device) is closed: for poll and the extended poll. */
    void ensureUsable() {
        if (closed) {
            throw new IllegalStateException("CQ is destroyed" + (device.isClosed() ? " (its device " + device.name()
                + " was closed)" : ""));
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

    /**
     * {@code ibv_req_notify_cq}: arms the CQ once, so that its completion channel gets an event
     * for the next completion, or with {@code solicitedOnly} for the next solicited or error
     * completion. Re-arm after each event; a request for any completion overrides a pending
     * solicited-only one. Completions already waiting do not fire it: poll after arming.
     *
     * @param solicitedOnly {@code solicited_only}: fire only for a solicited (or error) completion
     * @throws VerbsException EINVAL when the CQ was created without a completion channel
     */
    public void requestNotify(boolean solicitedOnly) {
        if (channel == null) {
            throw VerbsException.einval("CQ has no completion channel");
        }
        ring.arm(solicitedOnly);
    }

    /**
     * {@code ibv_ack_cq_events}: acknowledges {@code n} events taken from the completion
     * channel. jrxe only counts them; destroying the CQ does not wait for unacknowledged events.
     *
     * @param n the number of events acknowledged
     */
    public synchronized void ackEvents(int n) {
        eventsAcked += n;
    }

    void eventDelivered() {
        eventsDelivered.incrementAndGet();
    }

    /**
     * {@code ibv_resize_cq}: the CQ then holds exactly {@code cqe} entries, keeping the
     * completions waiting in order. Runs holding the device's engine and the CQ's consumer lock.
     *
     * @param cqe the new number of entries, {@code 1..max_cqe} (32767)
     * @throws VerbsException EINVAL outside that range or below the number of completions waiting
     */
    public void resize(int cqe) {
        if (cqe < 1 || cqe > Device.MAX_CQE) {
            throw VerbsException.einval("cqe " + cqe + " outside 1.." + Device.MAX_CQE);
        }
        boolean[] ok = new boolean[1];
        synchronized (device.placementLock()) { // no QP binds the CQ to another engine meanwhile
            engine().withEngine(() -> {
                lock.lock();
                try {
                    ok[0] = ringResize(cqe);
                } finally {
                    lock.unlock();
                }
            });
        }
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

    /**
     * {@code ibv_destroy_cq}: EBUSY while QPs use it (destroy them first); closing twice is
     * harmless. Later polls throw {@link IllegalStateException}.
     *
     * @throws VerbsException EBUSY while a QP uses this CQ as its send or receive CQ
     */
    @Override
    public synchronized void close() {
        // synchronized: two threads closing at once must not both count the CQ out of the device
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
