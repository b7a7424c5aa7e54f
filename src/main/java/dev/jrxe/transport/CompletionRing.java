package dev.jrxe.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The memory of a completion queue: a ring of {@link Cqe}s the engine produces and the
 * application consumes. Arming for notification ({@code ibv_req_notify_cq}) and the event it
 * raises live here too, so that the engine can fire the event right when it posts.
 */
public final class CompletionRing {
    private static final VarHandle PRODUCER;
    private static final VarHandle CONSUMER;
    private static final VarHandle ARMED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PRODUCER = l.findVarHandle(CompletionRing.class, "producer", long.class);
            CONSUMER = l.findVarHandle(CompletionRing.class, "consumer", long.class);
            ARMED = l.findVarHandle(CompletionRing.class, "armed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Armed for the next completion of any kind. */
    public static final int ARM_NEXT = 1;
    /** Armed for the next solicited (or error) completion. */
    public static final int ARM_SOLICITED = 2;

    /** Called when an armed ring gets a completion that fires it. */
    public interface Listener {
        void onCompletionEvent(CompletionRing ring);

        /** The ring overflowed: the verbs layer raises an async CQ error. */
        void onOverflow(CompletionRing ring);
    }

    private Cqe[] slots;
    private int capacity;
    @SuppressWarnings("unused")
    private volatile long producer;
    @SuppressWarnings("unused")
    private volatile long consumer;
    @SuppressWarnings("unused")
    private volatile int armed;
    private volatile boolean overflowed;
    private final Listener listener;

    public CompletionRing(int capacity, Listener listener) {
        this.capacity = capacity;
        this.slots = newSlots(capacity);
        this.listener = listener;
    }

    private static Cqe[] newSlots(int n) {
        Cqe[] s = new Cqe[n];
        for (int i = 0; i < n; i++) {
            s[i] = new Cqe();
        }
        return s;
    }

    public int capacity() {
        return capacity;
    }

    public boolean overflowed() {
        return overflowed;
    }

    /**
     * Engine: slot for the next entry, or null when the ring is full (the caller then treats it as
     * a CQ overflow). Finish with {@link #commit(boolean)}.
     */
    Cqe claim() {
        long p = (long) PRODUCER.getOpaque(this);
        if (p - (long) CONSUMER.getAcquire(this) >= capacity) {
            overflowed = true;
            listener.onOverflow(this);
            return null;
        }
        Cqe e = slots[(int) (p % slots.length)];
        e.clear();
        return e;
    }

    /** Engine: publishes the claimed entry and fires the notification if armed for it. */
    void commit(boolean solicitedOrError) {
        PRODUCER.setRelease(this, (long) PRODUCER.getOpaque(this) + 1);
        int a = (int) ARMED.getAcquire(this);
        if (a != 0 && (a == ARM_NEXT || solicitedOrError)) {
            if (ARMED.compareAndSet(this, a, 0)) {
                listener.onCompletionEvent(this);
            }
        }
    }

    /** Application: the oldest entry, or null. Consume it with {@link #pop()}. */
    public Cqe peek() {
        long c = (long) CONSUMER.getOpaque(this);
        if (c >= (long) PRODUCER.getAcquire(this)) {
            return null;
        }
        return slots[(int) (c % slots.length)];
    }

    public void pop() {
        CONSUMER.setRelease(this, (long) CONSUMER.getOpaque(this) + 1);
    }

    /** Entries waiting to be polled. */
    public int depth() {
        return (int) ((long) PRODUCER.getAcquire(this) - (long) CONSUMER.getAcquire(this));
    }

    /** {@code ibv_req_notify_cq}: arm for the next ({@code solicitedOnly=false}) or next solicited completion. */
    public void arm(boolean solicitedOnly) {
        int want = solicitedOnly ? ARM_SOLICITED : ARM_NEXT;
        // "next" overrides "solicited", as the IB spec lets a broader request win.
        int cur;
        do {
            cur = (int) ARMED.getAcquire(this);
            if (cur == ARM_NEXT) {
                return;
            }
        } while (!ARMED.compareAndSet(this, cur, want));
    }

    /**
     * Resizes the ring keeping its entries (caller holds the engine so nothing is produced, and
     * the consumer's lock).
     * Returns false when the new size cannot hold the entries waiting.
     */
    public boolean resize(int newCapacity) {
        int waiting = depth();
        if (newCapacity < waiting) {
            return false;
        }
        Cqe[] fresh = newSlots(newCapacity);
        long c = (long) CONSUMER.getOpaque(this);
        for (int i = 0; i < waiting; i++) {
            Cqe from = slots[(int) ((c + i) % slots.length)];
            copy(from, fresh[i]);
        }
        slots = fresh;
        capacity = newCapacity;
        CONSUMER.setRelease(this, 0L);
        PRODUCER.setRelease(this, (long) waiting);
        return true;
    }

    private static void copy(Cqe a, Cqe b) {
        b.wrId = a.wrId;
        b.status = a.status;
        b.opcode = a.opcode;
        b.vendorErr = a.vendorErr;
        b.byteLen = a.byteLen;
        b.immData = a.immData;
        b.invalidatedRkey = a.invalidatedRkey;
        b.qpNum = a.qpNum;
        b.srcQp = a.srcQp;
        b.wcFlags = a.wcFlags;
        b.pkeyIndex = a.pkeyIndex;
        b.slid = a.slid;
        b.sl = a.sl;
        b.dlidPathBits = a.dlidPathBits;
        b.srcAddr = a.srcAddr;
    }
}
