package dev.jrxe.transport;

import dev.jrxe.Configuration;
import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.net.DropReason;
import dev.jrxe.net.Link;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.PacketSink;
import dev.jrxe.wire.RocePacket;
import dev.jrxe.wire.RxDecoder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The NIC of one device: owns the link and runs every QP's requester, responder and completer.
 *
 * <p>Threading (measured choice for 2-core machines where both peers run): whoever holds the engine
 * lock does the work. Application threads take it with {@code tryLock} when they post or poll and
 * find nothing, so a polling application never pays a thread hand-off; they never block on it. A
 * background progress thread serves the device when no application thread does (a target of RDMA
 * WRITE/READ that never polls, retransmit timers); it steps back while applications drive the
 * engine and sleeps in the kernel (poll on the socket) when the device is idle.
 */
public final class Engine implements PacketSink, AutoCloseable {
    /**
     * Datagrams a duty cycle takes from the link at most, or one per QP it serves when it serves
     * more ({@link #receiveAndServe}).
     */
    static final int RX_BATCH = 64;
    /** This device's timings and limits ({@code DeviceConfig}, else {@code Configuration}). */
    private final EngineTuning tuning;
    private final long appActiveNanos;
    private final int spinRounds;
    private final long maxSleepNanos;
    private final int pollYieldEvery;
    private static final boolean TRACE_ERRORS = Configuration.traceErrors();

    final Link link;
    final KeyResolver keys;
    final EventSink events;
    final TransportCounters counters = new TransportCounters();
    final PacketOut out;
    final RcRequester requester;
    final RcCompleter completer;
    final RcResponder responder;
    private final Transport rc;
    private final Transport uc;
    private final Transport ud;
    private final Transport srd;
    /** IPv4 multicast groups and the UD QPs attached to them. */
    private final MulticastGroups multicast = new MulticastGroups();
    private final RxDecoder decoder;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean workPending;
    private volatile long lastAppDrive;
    /**
     * The progress thread sleeps long ({@link #DEEP_SLEEP_NANOS}) because the device has been idle
     * for {@link #DEEP_IDLE_NANOS}: an application thread must not hold an ACK meanwhile, since
     * nobody would send it if that thread stopped polling before the sleep ends.
     */
    private volatile boolean deepSleep;
    /**
     * When the engine last had work: a duty cycle that did some, whoever ran it. What decides the
     * progress thread's deep sleep. Written by several threads: a hint.
     */
    private volatile long lastBusy;
    /** Rounds of the progress thread so far (its wake-ups, when idle): what an idle device costs. */
    private volatile long progressRounds;
    /** Consecutive application drives that found nothing (racy by design: a hint). */
    private int emptyDrives;
    private volatile boolean running = true;
    private final Thread progressThread;

    private final Object tableLock = new Object();
    private final QpNumbers numbers;
    private final java.util.function.LongSupplier clock;
    /** The device's name (progress thread, JFR events). */
    final String name;
    /** This engine's index among its device's engines, and how many it has. */
    private final int index;
    private final int engineCount;
    /** Slots are used fresh up to this many before freed ones come back (the device's max_qp). */
    private static final int MAX_FRESH_SLOTS = (1 << 20) - 16;
    private int nextSlot = 1;
    private final java.util.ArrayDeque<Integer> freeSlots = new java.util.ArrayDeque<>();
    private volatile Qp[] qpTable = new Qp[64];
    private volatile Qp[] active = new Qp[0];
    /** Engine clock of the current duty cycle. */
    long now;
    /**
     * This cycle's receive stopped at its limit: datagrams may still wait in the socket. A
     * transport that would give up a silent peer looks again after a later receive, as the answer
     * may be among them.
     */
    boolean rxBacklogged;
    /** Engine clock at the engine's last receive: the start of its last full duty cycle. */
    private long lastListen;
    /**
     * Engine clock at the end of the last wait in the link (it listened all along), written by the
     * thread that waited, which holds no lock meanwhile.
     */
    private volatile long waitEnded;
    /**
     * An engine that had not looked at its socket for longer than this (SRD's largest RTO,
     * {@code SrdSendContext.RTO_MAX}) was away: a GC pause, a preempted thread, not a wait in the link.
     */
    static final long AWAY_NANOS = SrdSendContext.RTO_MAX;
    /** Engine clock of the cycle that ended the engine's last absence (0: none yet). */
    private long awayEnded;

    /**
     * Whether the engine came back from an absence (see {@link #AWAY_NANOS}) less than
     * {@code nanos} before this cycle: what a transport does not count as a peer's silence.
     */
    boolean backWithin(long nanos) {
        return awayEnded != 0 && now - awayEnded < nanos;
    }

    /** The engine clock now (nanoseconds), for a transport that needs more than the cycle's {@link #now}. */
    long clockNanos() {
        return clock.getAsLong();
    }
    /** Some QP sent in this duty cycle: its ACK timeout starts after the flush. */
    boolean timersToStart;

    /** How often the background thread runs {@link #housekeeping} (idle ODP reclaim and such). */
    static final long HOUSEKEEPING_NANOS = 100_000_000;
    /**
     * Idle this long (no packet, no work, no application driving), the progress thread sleeps up
     * to {@link #DEEP_SLEEP_NANOS} at a time instead of its usual maxSleepNanos: an idle device
     * wakes 20 times a second instead of 1000 (measured 2.2% of a core idle before). A packet
     * still wakes it at once (it sleeps in poll(2) on the socket), and timers still bound the sleep.
     */
    static final long DEEP_IDLE_NANOS = 200_000_000;
    static final long DEEP_SLEEP_NANOS = 50_000_000;
    private final Runnable housekeeping;
    private long nextHousekeeping;

    public Engine(String name, Link link, KeyResolver keys, EventSink events, Runnable housekeeping) {
        this(name, link, keys, events, housekeeping, EngineOptions.DEFAULT);
    }

    /**
     * {@code progressThread} false: no background thread; the engine runs only when a caller
     * drives it ({@link #runDutyCycle}, {@link #driveFromApp}, posting, {@link #withEngine}), as
     * tests and harnesses that want every step on their own thread need.
     */
    public Engine(String name, Link link, KeyResolver keys, EventSink events, Runnable housekeeping,
                  boolean progressThread) {
        this(name, link, keys, events, housekeeping, new EngineOptions(progressThread, System::nanoTime, 0));
    }

    public Engine(String name, Link link, KeyResolver keys, EventSink events, Runnable housekeeping,
                  EngineOptions options) {
        this.name = name;
        this.tuning = options.tuning();
        this.appActiveNanos = tuning.appActiveNanos();
        this.lookNanos = appActiveNanos;
        this.maxLookNanos = Math.max(appActiveNanos, MAX_LOOK_NANOS);
        this.heldTakeoverNanos = Math.max(tuning.ackHoldNanos(), appActiveNanos / 4);
        this.spinRounds = tuning.spinRounds();
        this.maxSleepNanos = tuning.maxSleepNanos();
        this.pollYieldEvery = tuning.pollYieldEvery();
        this.clock = options.clock();
        this.index = options.index();
        this.engineCount = options.engines();
        this.numbers = options.seed() == 0 ? new QpNumbers(index, engineCount)
            : new QpNumbers(index, engineCount, options.seed());
        this.housekeeping = housekeeping;
        this.link = link;
        this.keys = keys;
        this.events = events;
        this.out = new PacketOut(this);
        this.requester = new RcRequester(this);
        this.completer = new RcCompleter(this);
        this.responder = new RcResponder(this);
        this.rc = new RcTransport(this);
        this.uc = new UcTransport(this);
        this.ud = new UdTransport(this);
        this.srd = new SrdTransport(this);
        this.decoder = new RxDecoder(link.counters(), link.localPort(), tuning.maxPayload(), this);
        this.watchdog = options.progressThread() && link.hasWatchdog();
        this.watchdogPushEvery = Math.max(appActiveNanos, 1_000_000);
        this.watchdogNanos = maxLookNanos + watchdogPushEvery;
        this.lastWatchdogPush = notPushedSince(clock.getAsLong());
        this.progressThread = options.progressThread()
            ? Thread.ofPlatform().daemon().name("jrxe-" + name + "-progress" + (engineCount > 1 ? "-" + index : ""))
                .start(this::backgroundLoop) : null;
    }

    public Link link() {
        return link;
    }

    /** This engine's index among its device's engines (0 for a device of one). */
    public int index() {
        return index;
    }

    /** Whether this engine owns QP1 (the kernel steers QPN 1 to engine {@code 1 % engines}). */
    public boolean ownsGsi() {
        return dev.jrxe.net.QpSteering.engineOf(Qp.GSI_QPN, engineCount) == index;
    }

    /** The timings and limits this engine runs by. */
    public EngineTuning tuning() {
        return tuning;
    }

    /** The device's multicast groups and the UD QPs attached to them. */
    public MulticastGroups multicast() {
        return multicast;
    }

    public TransportCounters counters() {
        return counters;
    }

    // ------------------------------------------------------------------ QP registry

    /**
     * A slot for a new QP (its QPN is {@link #qpnOf}). Slots are used once each before any comes
     * back, then in the order they were freed, so a QPN is not reused soon.
     */
    int allocateSlot() {
        synchronized (tableLock) {
            return freeSlots.isEmpty() || nextSlot <= MAX_FRESH_SLOTS ? nextSlot++ : freeSlots.removeFirst();
        }
    }

    /** The transport that serves QPs of {@code qpType} ({@link dev.jrxe.ib.QpType}). */
    Transport transportFor(int qpType) {
        return switch (qpType) {
            case dev.jrxe.ib.QpType.RC -> rc;
            case dev.jrxe.ib.QpType.UC -> uc;
            case dev.jrxe.ib.QpType.UD -> ud;
            case dev.jrxe.ib.QpType.DRIVER -> srd; // the one driver QP type: jrxe SRD
            default -> throw new IllegalArgumentException("no transport for QP type " + qpType);
        };
    }

    int qpnOf(int slot) {
        return numbers.qpn(slot);
    }

    /** The GSI QP (QPN 1), or null. */
    private volatile Qp gsi;

    /** Whether the device has its QP1. */
    public boolean hasGsi() {
        return gsi != null;
    }

    /** Makes a QP reachable by its number; a second QP1 fails with IllegalStateException. */
    public void register(Qp qp) {
        synchronized (tableLock) {
            if (qp.qpn == Qp.GSI_QPN) {
                if (!ownsGsi()) {
                    throw new IllegalStateException("QP1 belongs to engine " + (Qp.GSI_QPN % engineCount));
                }
                if (gsi != null) {
                    throw new IllegalStateException("the device has its QP1 already");
                }
                gsi = qp;
            }
            Qp[] t = qpTable;
            if (qp.slot >= t.length) {
                Qp[] bigger = new Qp[Math.max(t.length * 2, qp.slot + 1)];
                System.arraycopy(t, 0, bigger, 0, t.length);
                t = bigger;
            }
            t[qp.slot] = qp;
            qpTable = t;
            Qp[] a = active;
            Qp[] na = new Qp[a.length + 1];
            System.arraycopy(a, 0, na, 0, a.length);
            na[a.length] = qp;
            active = na;
        }
    }

    /**
     * Removes a QP; packets for it are dropped from then on. Call while holding the engine. An ACK
     * it owes (held for coalescing) leaves first: the messages it acknowledges were executed, and
     * a peer that never hears so would retry into a QP that is gone and fail them.
     */
    public void unregister(Qp qp) {
        sendOwedAck(qp);
        qp.transport.onUnregister(qp);
        holdSourcePort(qp, 0);
        synchronized (tableLock) {
            if (gsi == qp) {
                gsi = null;
            }
            Qp[] t = qpTable;
            if (qp.slot < t.length && t[qp.slot] == qp) {
                t[qp.slot] = null;
                freeSlots.addLast(qp.slot);
            }
            Qp[] a = active;
            int n = 0;
            Qp[] na = new Qp[Math.max(0, a.length - 1)];
            for (Qp q : a) {
                if (q != qp && n < na.length) {
                    na[n++] = q;
                }
            }
            active = n == na.length ? na : java.util.Arrays.copyOf(na, n);
        }
    }

    /**
     * {@code qp} sends from UDP source port {@code port} from now on (0: from none): the link keeps
     * a socket for each port some QP holds, and closes it with the last holder. Call holding the
     * engine (or before the QP is registered).
     */
    public void holdSourcePort(Qp qp, int port) {
        if (qp.heldPort == port) {
            return;
        }
        if (port != 0) {
            link.retainSourcePort(port);
        }
        if (qp.heldPort != 0) {
            link.releaseSourcePort(qp.heldPort);
        }
        qp.heldPort = port;
    }

    /** The QP with this number, or null. */
    Qp qp(int qpn) {
        if (qpn == Qp.GSI_QPN) {
            return gsi;
        }
        int slot = numbers.slot(qpn);
        Qp[] t = qpTable;
        Qp qp = slot >= 0 && slot < t.length ? t[slot] : null;
        return qp != null && qp.qpn == qpn ? qp : null;
    }

    // ------------------------------------------------------------------ driving

    /** The background progress thread, or null when the engine has none. */
    public Thread progressThread() {
        return progressThread;
    }

    /** Runs {@code action} holding the engine (blocking): for control operations such as modify. */
    public void withEngine(Runnable action) {
        lock.lock();
        try {
            now = clock.getAsLong();
            action.run();
            if (running) {
                flush();
            }
        } finally {
            unlockEngine();
        }
        drive(true);
    }

    /**
     * The calling application thread stops driving the engine: it is about to block (waiting for
     * a completion event, say) or to do other work. It sends the ACKs it held first (here, without
     * waking anyone), and when it was the last thread to drive, the progress thread takes over
     * now rather than once its grace for the application ({@code appActiveNanos}) has run out, so
     * that what arrives meanwhile (the message the thread waits for) is not left waiting for it.
     * A thread that did not drive last changes nothing for the one that did (it may still poll).
     */
    public void appStopsDriving() {
        if (HELD_BY_THIS_THREAD.get() == this) {
            HELD_BY_THIS_THREAD.set(null); // not remove(): the next set would allocate an entry
            if (heldByApp) {
                // waiting for the engine, not leaving the ACK to whoever holds it: a polling
                // thread's next cycle could hold it again (the caller is about to block anyway)
                lock.lock();
                try {
                    sendEveryOwedAck();
                } finally {
                    unlockEngine();
                }
            }
        }
        // only the thread that drove last hands over, and only if none has driven since
        if (!LAST_DRIVER.compareAndSet(this, Thread.currentThread(), null)) {
            return;
        }
        long t = clock.getAsLong();
        lastAppDrive = t - appActiveNanos;
        if (watchdog) {
            // fired below: a drive that follows soon must push it back again, not trust the last push
            lastWatchdogPush = notPushedSince(t);
        }
        if (progressThread != null) {
            LockSupport.unpark(progressThread);
            if (watchdog) {
                link.wakeWatchdog(); // (it may wait on the watchdog, not parked)
            }
        }
    }

    /**
     * The application thread that drove the engine last ({@link #driveFromApp}), or null once it
     * stopped ({@link #appStopsDriving}). Written by a drive only when it changes.
     */
    private volatile Thread lastDriver;
    private static final java.lang.invoke.VarHandle LAST_DRIVER;

    static {
        try {
            LAST_DRIVER = java.lang.invoke.MethodHandles.lookup().findVarHandle(Engine.class, "lastDriver", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Called after posting: makes sure the new work is started soon, here if the engine is free. */
    public void kick() {
        releaseAcksHeldElsewhere();
        // The poster only needs its packets sent: when the engine is free, run the requesters and
        // flush, without the receive system call a full duty cycle makes (the poller does that).
        if (running && lock.tryLock()) {
            try {
                if (!running) {
                    return; // closed meanwhile (the finally lets go of the engine)
                }
                long t = clock.getAsLong();
                // (a post from a thread that holds the engine already, inside a cycle, only
                // sends: a nested receive would reenter the link's poll)
                if (t - lastListen < appActiveNanos || lock.getHoldCount() > 1) {
                    sendCycle(t);
                } else {
                    // A thread that keeps posting keeps the progress thread out (it gets the
                    // engine only between posts), so it runs the receive half and the timers
                    // too, now and then: 2,000 posts to as many SRD peers took over 500 ms,
                    // and their give-up timers fired on answers nobody had read (SrdScaleTest).
                    dutyCycle(true);
                }
            } finally {
                unlockEngine();
            }
            if (workPending) {
                drive(true);
            }
            wakeFromDeepSleep();
            return;
        }
        workPending = true;
        drive(true);
        wakeFromDeepSleep();
    }

    /**
     * A post while the progress thread sleeps deeply may leave work for it (more than one cycle's
     * budget) or start a timer its sleep does not know of: wake it, so it looks again.
     */
    private void wakeFromDeepSleep() {
        if (deepSleep) {
            link.wakeup();
        }
    }

    /** Transmit half of a duty cycle: requesters, flush, timers. Holding the lock. */
    private void sendCycle(long t) {
        now = t;
        Qp[] qps = active;
        for (Qp qp : qps) {
            try {
                qp.transport.send(qp);
            } catch (RuntimeException e) {
                transportError(qp, e);
            }
        }
        finishCycle(qps, true);
    }

    /**
     * Sends the datagrams whose payload memory is held ({@code PacketOut.heldUnsent}) now. A
     * transport calls it before anything that may wait for a memory lock (a copy from ODP memory,
     * a memory window bind, a UMR) and when its requester is done: a thread that deregisters a
     * region or unmaps memory holds such a lock while it waits for the holds to end.
     */
    void flushHeldPayloads() {
        if (out.heldUnsent > 0) {
            try {
                flush();
            } catch (RuntimeException e) {
                // a sealer's or handler's failure the link kept for its next flush: not this
                // QP's doing, so counted here rather than failing the QP whose requester flushed
                counters.incAtomic(TransportCounters.ENGINE_ERRORS);
            }
        }
    }

    private void flush() {
        out.heldUnsent = 0; // (first: a flush that throws has still sent or released every datagram)
        link.flush();
        out.committed = 0;
    }

    /**
     * Releases the engine. A cycle that ended by an exception may leave datagrams queued whose
     * payload memory is held ({@code PacketOut.heldUnsent}); they leave now, so that no
     * deregistration waits for the next cycle to let that memory go.
     */
    private void unlockEngine() {
        try {
            if (out.heldUnsent > 0 && running && lock.getHoldCount() == 1) {
                flush();
            }
        } catch (RuntimeException e) {
            counters.incAtomic(TransportCounters.ENGINE_ERRORS);
        } finally {
            lock.unlock();
        }
    }

    /** Whether the engine still runs (its link is open): what a transport checks before sending outside a cycle. */
    boolean running() {
        return running;
    }

    /** Sends what was committed outside a duty cycle (holding the engine). */
    void flushNow() {
        flush();
    }

    /**
     * Sends the ACKs the responders owe, each after its QP's requests of this cycle, unless
     * {@link AckHold} keeps one a little longer ({@code mayHold}: an application thread drives and
     * will be back). {@code piggyback}: this flush sends packets anyway, so an ACK shares their
     * system call.
     */
    private void sendAcks(Qp[] qps, boolean mayHold) {
        mayHold &= !deepSleep;
        boolean piggyback = out.committed > 0;
        boolean held = false;
        long heldAt = Long.MIN_VALUE;
        for (Qp qp : qps) {
            ResponderState r = qp.resp;
            if (r.ackPending && r.pendingReplies == 0) { // never ahead of pending READ responses
                if (r.hold.sendNow(now, piggyback, mayHold)) {
                    responder.sendPendingAck(qp);
                } else {
                    held = true;
                    if (r.hold.holdBegan) {
                        // the hold starts now, when the ACK would have left, not at the cycle's start
                        if (heldAt == Long.MIN_VALUE) {
                            heldAt = clock.getAsLong();
                        }
                        r.hold.restartHold(heldAt);
                    }
                }
            }
            try {
                if (qp.transport.sendOwedAcks(qp, piggyback, mayHold)) {
                    held = true;
                }
            } catch (RuntimeException e) {
                transportError(qp, e); // (which resets the QP's transport state)
            }
        }
        if (held && HELD_BY_THIS_THREAD.get() != this) {
            // (set only when it changes: a get is a probe, a set also sweeps the thread's map)
            HELD_BY_THIS_THREAD.set(this);
        }
        if (held != heldByApp) {
            heldByApp = held; // false once every owed ACK went, whoever sent them
        }
    }

    /**
     * An application thread's last duty cycle held an ACK. When that thread stops driving (the
     * last message of a run, say) without saying so ({@link #appStopsDriving}), the progress
     * thread sends the ACK at its first look once {@link #heldTakeoverNanos} have passed since the
     * application's last drive, not only once its grace ({@code appActiveNanos}) has.
     */
    private volatile boolean heldByApp;

    /**
     * The engine whose last duty cycle on this (application) thread held an ACK. A thread that
     * goes on to drive another device (one thread serving two devices, as the demo and many tests
     * do) may be about to wait for that very ACK, so driving another engine sends it first.
     */
    private static final ThreadLocal<Engine> HELD_BY_THIS_THREAD = new ThreadLocal<>();

    /** An application thread is about to drive this engine: release ACKs it held elsewhere. */
    private void releaseAcksHeldElsewhere() {
        Engine other = HELD_BY_THIS_THREAD.get();
        if (other != null && other != this) {
            HELD_BY_THIS_THREAD.set(null); // not remove(): the next set would allocate an entry
            other.releaseHeldAcks();
        }
    }

    /** Sends every owed ACK now; when the engine is busy, its holder runs one more duty cycle. */
    private void releaseHeldAcks() {
        if (running && lock.tryLock()) {
            try {
                sendEveryOwedAck();
            } finally {
                unlockEngine();
            }
        } else {
            workPending = true;
        }
    }

    /** Sends every owed ACK now, none held; holding the lock. Nothing once closed (its link is gone). */
    private void sendEveryOwedAck() {
        if (running) {
            now = clock.getAsLong();
            sendAcks(active, false);
            flush();
        }
    }

    /**
     * Runs a duty cycle now as the progress thread would (owed ACKs are not held), for engines
     * without a progress thread. Returns the work done, or -1 when another thread holds the engine.
     */
    public int runDutyCycle() {
        housekeepIfDue();
        return drive(false);
    }

    /** Runs {@link #housekeeping} when its period has passed (idle ODP reclaim and such). */
    private void housekeepIfDue() {
        long t = clock.getAsLong();
        if (t - nextHousekeeping >= 0) {
            nextHousekeeping = t + HOUSEKEEPING_NANOS;
            housekeeping.run();
        }
    }

    /**
     * The earliest time ({@code clock} nanos) at which the engine has work without a packet
     * arriving (a timer, READ responses to send), or {@code Long.MAX_VALUE}: what a caller that
     * drives an engine without progress thread sleeps until (a simulation jumps its clock there).
     */
    public long nextWork() {
        lock.lock();
        try {
            return Math.min(nextDeadline(), nextHousekeeping);
        } finally {
            unlockEngine();
        }
    }

    /**
     * Called by a polling application that found nothing: does a duty cycle if the engine is free.
     * Returns true if it did.
     */
    public boolean driveFromApp() {
        releaseAcksHeldElsewhere();
        Thread me = Thread.currentThread();
        if (lastDriver != me) {
            lastDriver = me;
        }
        int did = drive(true);
        // the duty cycle's clock when there was one: one clock read less per empty poll
        lastAppDrive = did >= 0 ? now : clock.getAsLong();
        if (watchdog && lastAppDrive - lastWatchdogPush >= watchdogPushEvery) {
            pushWatchdog(lastAppDrive);
        }
        if (did > 0) {
            lastBusy = lastAppDrive;
            emptyDrives = 0;
        } else if (pollYieldEvery > 0 && ++emptyDrives % pollYieldEvery == 0) {
            Thread.yield();
        }
        return did >= 0;
    }

    /**
     * A driving application thread pushes the watchdog back to {@link #watchdogNanos} from
     * {@code t}, once per grace (at least 1 ms) at most, one system call a millisecond: the
     * progress thread wakes up 4-5 ms after the application's last drive, as late as its looks
     * did at worst, and not while the application drives.
     */
    private void pushWatchdog(long t) {
        if (lock.tryLock()) {
            try {
                if (running) { // (close() sets it under the lock before the link closes)
                    link.armWatchdog(watchdogNanos);
                    lastWatchdogPush = t;
                }
            } finally {
                unlockEngine();
            }
        }
    }

    private int drive(boolean fromApp) {
        int did = -1;
        while (running && lock.tryLock()) {
            try {
                if (!running) { // closed while this thread waited for the lock: the link may be gone
                    break;
                }
                workPending = false;
                did = Math.max(did, 0) + dutyCycle(fromApp);
            } finally {
                unlockEngine();
            }
            if (!workPending) {
                break;
            }
        }
        return did;
    }

    /**
     * One round of everything: receive, transmit, timers. Holding the lock. {@code fromApp}: an
     * application thread runs it, which comes back soon (so owed ACKs may wait). Returns work done.
     */
    private int dutyCycle(boolean fromApp) {
        Qp[] qps = active;
        int work = receiveAndServe(qps);
        finishCycle(qps, fromApp);
        return work;
    }

    /** The first half of a duty cycle: receive a batch, then run every QP. Returns work done. */
    private int receiveAndServe(Qp[] qps) {
        long t0 = clock.getAsLong();
        now = t0;
        long waited = waitEnded;
        long listened = waited != 0 && waited - lastListen > 0 ? waited : lastListen; // (clock order)
        if (listened != 0 && t0 - listened > AWAY_NANOS) {
            awayEnded = t0;
        }
        lastListen = t0;
        // Every QP is served once per cycle, so a cycle may take up to one datagram per QP: with
        // 2,000 SRD peers on one engine, 64 a cycle let their ACKs wait in the socket past the
        // 500 ms give-up while the engine served the QPs over and over (SrdScaleTest).
        int limit = Math.max(RX_BATCH, qps.length);
        int work = link.poll(decoder, limit);
        rxBacklogged = link.lastPollFull();
        for (Qp qp : qps) {
            try {
                work += qp.transport.serve(qp);
            } catch (RuntimeException e) {
                transportError(qp, e);
            }
        }
        return work;
    }

    /** The end of every cycle: owed ACKs ({@code mayHold}: see {@link #sendAcks}), flush, timers. */
    private void finishCycle(Qp[] qps, boolean mayHold) {
        sendAcks(qps, mayHold);
        flush();
        if (timersToStart) {
            startTimers(qps);
        }
    }

    /**
     * Starts the ACK timeouts of the QPs that sent in this cycle from now, when their packets have
     * left, as rxe arms its retransmit timer after transmitting. Counting from the start of the
     * cycle instead cut the timeout short by whatever delayed the flush (a first flush through cold
     * code, a preemption between commit and flush): the timer could expire before the peer had
     * seen the packets.
     */
    private void startTimers(Qp[] qps) {
        timersToStart = false;
        long sentAt = clock.getAsLong();
        for (Qp qp : qps) {
            if (qp.timerFromFlush) {
                qp.timerFromFlush = false;
                if (qp.retransmitDeadline != 0) {
                    qp.retransmitDeadline = sentAt + RnrTimer.ackTimeoutNanos(qp.timeout);
                }
            }
        }
    }

    /** Earliest timer deadline of any QP, or {@code Long.MAX_VALUE}. */
    private long nextDeadline() {
        long d = Long.MAX_VALUE;
        for (Qp qp : active) {
            d = Math.min(d, qp.transport.nextDeadline(qp));
        }
        return d;
    }

    private void backgroundLoop() {
        int idleRounds = 0;
        while (running) {
            try {
                idleRounds = progressRound(idleRounds);
            } catch (Throwable t) {
                // the device keeps its progress thread whatever went wrong in one round
                counters.incAtomic(TransportCounters.ENGINE_ERRORS);
                if (TRACE_ERRORS) {
                    t.printStackTrace();
                }
                LockSupport.parkNanos(appActiveNanos);
            }
        }
    }

    /**
     * How long the progress thread parks before it looks again whether an application still drives
     * the engine: the application's grace ({@code appActiveNanos}) at first, doubling at each look
     * that finds it still driving, up to {@link #MAX_LOOK_NANOS}. Each look wakes a thread that,
     * on a machine whose cores busy-polling applications fill, preempts one of them for a few
     * microseconds: at one look a millisecond per process, 1-2% of a ping-pong's round trips
     * carried one, its p99 (docs/BENCHMARKS.md). An application that stops driving without saying
     * so ({@code appStopsDriving}) is thus served at most this much later. Progress thread only.
     * On a link with a watchdog ({@link #watchdog}), after three looks in a row that found the
     * application driving, the progress thread waits on the watchdog instead.
     */
    private volatile long lookNanos;
    private final long maxLookNanos;

    /**
     * The link's away watchdog replaces the looks ({@link Link#hasWatchdog}): an application thread
     * that drives the engine pushes it back ({@link #pushWatchdog}), and the progress thread, once
     * three looks in a row (1, 2 and 4 ms at the defaults) have found the application driving,
     * waits on it instead of waking every 4 ms. Each look had preempted a busy poller: in ten
     * alternating pairs of {@code bench pingpong}, jrxe's 8 B p99 was 13-46 us with looks and
     * 12-18 us with the watchdog (docs/BENCHMARKS.md).
     */
    private final boolean watchdog;
    /**
     * How far a push sets the watchdog: the longest look and a grace (5 ms at the defaults). Past
     * the CPU's next scheduler tick (4 ms apart at 250 Hz), so that moving it does not reprogram
     * the CPU's timer: in this VM that is an exit to the host, and arming a timerfd 2 ms ahead
     * took 0.9 us at the median and 13.6 us at p90, against 0.55 and 0.87 us for 8 ms ahead.
     */
    private final long watchdogNanos;
    /** How often a driving application pushes the watchdog back: its grace, at least 1 ms. */
    private final long watchdogPushEvery;
    /**
     * The longest wait on the watchdog, a backstop: the housekeeping period. Tests that must see
     * the watchdog itself wake the progress thread make it long.
     */
    volatile long watchdogBackstopNanos = HOUSEKEEPING_NANOS;
    /**
     * When a driving application thread last pushed the watchdog back, so that it stands until
     * {@code lastWatchdogPush + watchdogNanos} (engine clock; written under the lock, and by
     * {@link #appStopsDriving} to make the next drive push). The progress thread arms it itself
     * for what is left of that.
     */
    private volatile long lastWatchdogPush;

    /** A last push that stands no more at {@code t} and that the next drive renews. */
    private long notPushedSince(long t) {
        return t - watchdogNanos - 1;
    }
    /** Looks in a row that found an application driving (progress thread only): the watchdog after 3. */
    private int drivingLooks;
    /** The longest look (4 ms): far below any ACK timeout worth using (67 ms at rxe's usual 14). */
    static final long MAX_LOOK_NANOS = 4_000_000;

    /**
     * An application thread that holds an ACK and has not driven the engine for this long (a
     * quarter of its grace, at least the hold time) has stopped: the progress thread sends the
     * ACK at that look without waiting out the grace. Not the hold time itself (20 us): waking up
     * the progress thread on this VM often takes that long, and the application it preempted had
     * then only seemed to stop: in one ping-pong run the progress thread found it so 2,358 times,
     * took the engine from it or parked behind it, and sent ACKs its answers would have carried.
     */
    private final long heldTakeoverNanos;

    /** {@link #heldTakeoverNanos}, for tests. */
    long heldTakeoverNanos() {
        return heldTakeoverNanos;
    }

    /** The progress thread's current look ({@link #lookNanos}), for tests. */
    long lookNanos() {
        return lookNanos;
    }

    /** Rounds the progress thread has run (each a wake-up when the device is idle). */
    public long progressRounds() {
        return progressRounds;
    }

    /** One round of the progress thread; returns its new count of idle rounds. */
    private int progressRound(int idleRounds) {
        progressRounds++; // only this thread writes it
        housekeepIfDue();
        if (server != null) {
            drivingLooks = 0;
            // an application thread waits by serving the engine (serveUntil): it sleeps in the
            // link itself, and looks after the timers; stay out, looking as for a polling one,
            // and as seldom as an idle device's sleep once idle (the waiter then wakes this thread
            // when it leaves with its event: a wait that long can afford it)
            if (clock.getAsLong() - lastBusy >= DEEP_IDLE_NANOS) {
                longLook = true;
                if (server != null) {
                    LockSupport.parkNanos(Math.max(DEEP_SLEEP_NANOS, maxLookNanos));
                }
                longLook = false;
                return idleRounds;
            }
            long look = lookNanos;
            lookNanos = Math.min(2 * look, maxLookNanos);
            LockSupport.parkNanos(look);
            return idleRounds;
        }
        long t = clock.getAsLong();
        long sinceApp = t - lastAppDrive;
        if (sinceApp < appActiveNanos && !(heldByApp && sinceApp >= heldTakeoverNanos)) {
            // An application is driving the engine itself: stay out of its way, looking less
            // often the longer it keeps driving (the drives that find work keep it from deep idle)
            long look = lookNanos;
            lookNanos = Math.min(2 * look, maxLookNanos);
            drivingLooks = Math.min(drivingLooks + 1, 4); // (capped: a run of months must not wrap it)
            if (watchdog && drivingLooks > 3) {
                // An application that kept driving through looks of 1, 2 and 4 ms: wait for the
                // watchdog, which it pushes back while it drives, instead of looking every 4 ms.
                // (Not before: one that drives now and then, a thread that polls once before it
                // waits, must be served a look after its grace, not after the 4-5 ms of a push.)
                // Armed here too, for what is left of the last push or else one look: never
                // trusted to be armed (a wakeWatchdog fires it early, a push may not follow).
                long left = lastWatchdogPush + watchdogNanos - clock.getAsLong();
                // armed first, with a wait of zero; then a look again, since the arm replaces a
                // wakeWatchdog made meanwhile: appStopsDriving or close() said so before theirs
                boolean fired = link.awaitWatchdog(left > 0 ? left : look, 0);
                if (!fired && running && clock.getAsLong() - lastAppDrive < appActiveNanos) {
                    link.awaitWatchdog(0, watchdogBackstopNanos);
                }
            } else {
                LockSupport.parkNanos(look);
            }
            return idleRounds;
        }
        if (sinceApp >= appActiveNanos) {
            // (not for an ACK held by an application that still drives: it goes on as it was)
            drivingLooks = 0;
            if (lookNanos != appActiveNanos) {
                lookNanos = appActiveNanos;
            }
        }
        int did = drive(false);
        if (did > 0) {
            lastBusy = t;
            return 0;
        }
        if (did < 0) {
            stepBack();
            return idleRounds;
        }
        if (++idleRounds < spinRounds) {
            // yield, not spin: on a small machine the thread an event just woke (the application
            // waiting on a completion channel) would otherwise wait for the spinning to end
            Thread.yield();
            return idleRounds;
        }
        if (!lock.tryLock()) {
            stepBack();
            return idleRounds;
        }
        long deadline;
        try {
            deadline = nextDeadline();
        } finally {
            unlockEngine();
        }
        Thread me = Thread.currentThread();
        if (!SLEEPER.compareAndSet(this, null, me)) {
            stepBack(); // a waiting application thread sleeps in the link and serves the engine
            return idleRounds;
        }
        try {
            if (server == null) { // (one may have come since the check above: it waits for this sleep to end)
                sleepInLink(deadline, Long.MAX_VALUE);
            }
        } finally {
            sleeper = null;
        }
        return idleRounds;
    }

    /**
     * Sleeps in the link until a datagram, a {@link Link#wakeup}, the next timer ({@code deadline},
     * engine clock), {@code cap} nanoseconds or the idle sleep's own limit: {@code maxSleepNanos},
     * or {@link #DEEP_SLEEP_NANOS} (if longer) once the device has been idle for {@link #DEEP_IDLE_NANOS}.
     * Only as the {@link #sleeper}, without the engine: the link allows awaitReadable beside
     * another thread's poll/flush. An application that drives the engine just as a deep sleep
     * begins may still hold one ACK; it then waits at most this sleep (50 ms), below any ACK
     * timeout worth using.
     */
    private void sleepInLink(long deadline, long cap) {
        long now = clock.getAsLong();
        // (an application that polls now and then, finding nothing, as the CM agent before each
        // wait, keeps no device awake: its polls that find work count as busy)
        boolean deep = now - lastBusy >= DEEP_IDLE_NANOS;
        long limit = deep ? Math.max(DEEP_SLEEP_NANOS, maxSleepNanos) : maxSleepNanos;
        long sleep = Math.min(Math.min(limit, cap), Math.max(0, deadline - now));
        if (sleep > 0 && !workPending) {
            deepSleep = deep;
            try {
                link.awaitReadable(sleep);
            } finally {
                deepSleep = false;
                // it listened for the sleep it asked, no longer: a GC pause or a preemption that
                // kept it past that counts as an absence
                long end = clock.getAsLong();
                waitEnded = end - now > sleep ? now + sleep : end;
            }
        }
    }

    // ------------------------------------------------------------------ a waiting thread serves

    /** {@link #serveUntil}: what the caller waited for holds. */
    public static final int SERVED_READY = 1;
    /** {@link #serveUntil}: the deadline passed first. */
    public static final int SERVED_TIMED_OUT = 0;
    /**
     * {@link #serveUntil}: this thread does not (or no longer) serve the engine: it has no progress
     * thread or serving while waiting is off ({@link EngineTuning#waitServes}), it is closed,
     * another waiting thread took the engine over, or another application thread drives it by
     * polling. The caller waits some other way (its events come from whoever serves).
     */
    public static final int NOT_SERVED = -1;

    /**
     * The application thread that waits by serving the engine ({@link #serveUntil}), or null. The
     * newest waiter takes the engine over; the one it replaced sees so at its next round and
     * returns {@link #NOT_SERVED}.
     */
    private volatile Thread server;
    /**
     * The one thread that may sleep in the link's awaitReadable (it has one set of buffers for
     * that): the progress thread or the {@link #server}; null when neither does.
     */
    private volatile Thread sleeper;
    private static final java.lang.invoke.VarHandle SERVER;
    private static final java.lang.invoke.VarHandle SLEEPER;

    static {
        try {
            var lookup = java.lang.invoke.MethodHandles.lookup();
            SERVER = lookup.findVarHandle(Engine.class, "server", Thread.class);
            SLEEPER = lookup.findVarHandle(Engine.class, "sleeper", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The calling application thread waits until {@code ready} holds (a completion event fired),
     * serving the engine meanwhile: it runs duty cycles and sleeps in the link between them as the
     * progress thread would, which stays out. The packet that makes {@code ready} true thus wakes
     * this thread itself, once, where the progress thread would wake first and then wake this
     * thread: on a small machine the second wake-up cost more than the message (rc-pingpong -e).
     * An ACK that the cycle making {@code ready} true owes may stay held for the caller's answer,
     * as for a polling application; none is held while this thread sleeps.
     *
     * <p>{@code ready} is read holding the engine and after each registration as the sleeper; who
     * makes it true outside this thread's cycles must then call {@link #wakeServer}. A blocked
     * sleep does not see an interrupt: the thread notices it after at most the idle sleep's limit
     * (1 ms, 50 ms once idle for 200 ms).
     *
     * @param ready    what the caller waits for; cheap, and true once true until the caller acts
     * @param deadline until when ({@link System#nanoTime}) at most
     * @return {@link #SERVED_READY}, {@link #SERVED_TIMED_OUT} or {@link #NOT_SERVED}
     * @throws InterruptedException when the thread is interrupted
     */
    public int serveUntil(java.util.function.BooleanSupplier ready, long deadline) throws InterruptedException {
        Thread me = Thread.currentThread();
        if (progressThread == null || !tuning.waitServes() || !running || me.isVirtual() || anotherThreadPolls(me)) {
            return NOT_SERVED; // (a virtual thread would pin its carrier in poll(2))
        }
        releaseAcksHeldElsewhere(); // before taking the engine: what it throws leaves no server behind
        Thread before = (Thread) SERVER.getAndSet(this, me);
        if (before != null && before != me) {
            link.wakeup(); // the thread replaced may sleep in the link: it steps aside when it wakes
        }
        if (lastDriver != me) {
            lastDriver = me;
        }
        int result = NOT_SERVED;
        try {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (server != me || !running || anotherThreadPolls(me)) {
                    return result = NOT_SERVED;
                }
                long deadlineOfTimers = serveCycle(ready);
                if (deadlineOfTimers == READY_NOW) {
                    if (workPending) {
                        drive(true); // a post found the engine held by this cycle and left its work to it
                    }
                    return result = SERVED_READY;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return result = SERVED_TIMED_OUT;
                }
                if (workPending) {
                    continue; // more than one cycle's batch, or a post left work
                }
                if (!SLEEPER.compareAndSet(this, null, me)) {
                    // the progress thread sleeps in the link, not yet aware of this thread: wake it
                    link.wakeup();
                    Thread.yield();
                    continue;
                }
                try {
                    // fired between the cycle and the registration: wakeServer saw no sleeper;
                    // closed meanwhile: close() waits for this sleep, then closes the link
                    if (!ready.getAsBoolean() && server == me && running) {
                        sleepInLink(deadlineOfTimers, left);
                    }
                } finally {
                    sleeper = null;
                }
            }
        } finally {
            SERVER.compareAndSet(this, me, null);
            if (result == SERVED_READY && parkedWaiters.get() == 0) {
                lastAppDrive = clock.getAsLong(); // back soon with the answer, as a polling application
                if (longLook) {
                    LockSupport.unpark(progressThread); // it parked for an idle device's sleep: look at the usual pace
                }
            } else {
                // (ready, but threads this one replaced wait parked: the progress thread serves them now)
                appStopsDriving(); // timed out, interrupted, closed, replaced: whoever serves next takes over now
            }
        }
    }

    /** The progress thread parks for an idle device's sleep while a thread waits serving the engine. */
    private volatile boolean longLook;

    /** Threads that wait for an event parked, another thread serving the engine ({@link #waiterParks}). */
    private final java.util.concurrent.atomic.AtomicInteger parkedWaiters = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * A thread that {@link #serveUntil} did not let serve parks to wait for its event ({@code true})
     * or stops waiting ({@code false}). While any does, a serving thread that leaves with what it
     * waited for hands the engine to the progress thread at once (it might not be back for a
     * while, and the parked thread's message would wait for the progress thread's next look).
     */
    public void waiterParks(boolean parks) {
        parkedWaiters.addAndGet(parks ? 1 : -1);
    }

    /** The thread sleeping in the link now, or null: for tests. */
    Thread sleeper() {
        return sleeper;
    }

    /** {@link #serveCycle}'s "ready": no timer deadline is this value. */
    private static final long READY_NOW = Long.MIN_VALUE;

    /**
     * One duty cycle for {@link #serveUntil}, holding the engine (blocking: cycles are short).
     * Returns {@link #READY_NOW} when {@code ready} holds after it, else the earliest timer's
     * deadline. Owed ACKs are held only when ready (the caller answers next).
     */
    private long serveCycle(java.util.function.BooleanSupplier ready) {
        lock.lock();
        try {
            if (!running) {
                return Long.MAX_VALUE;
            }
            workPending = false;
            Qp[] qps = active;
            int work = receiveAndServe(qps);
            boolean isReady = ready.getAsBoolean();
            finishCycle(qps, isReady);
            if (work > 0) {
                lastBusy = now;
            }
            return isReady ? READY_NOW : nextDeadline();
        } finally {
            unlockEngine();
        }
    }

    /**
     * Another application thread drove the engine by polling within the grace: it receives what
     * comes, so a waiting thread that slept in the link would only be woken for nothing by each
     * packet. The waiting thread leaves the engine to it and waits for its event instead.
     */
    private boolean anotherThreadPolls(Thread me) {
        Thread d = lastDriver;
        return d != null && d != me && clock.getAsLong() - lastAppDrive < appActiveNanos;
    }

    /**
     * Something a thread waiting in {@link #serveUntil} may wait for just became true outside its
     * own cycles (an event fired by another thread's cycle): wakes it if it sleeps in the link.
     */
    public void wakeServer() {
        Thread s = server;
        if (s != null && s != Thread.currentThread() && sleeper == s) {
            link.wakeup();
        }
    }

    /**
     * Another thread holds the engine and does the work: park instead of spinning. Spinning here
     * competes for the CPU with that thread, which on a busy 2-core machine can be preempted in
     * the middle of a duty cycle (ACKs owed, packets committed but not flushed): measured, it was
     * kept off the CPU for up to 140 ms while this thread retried the lock 50000 times, and the
     * peer's RC retransmit timer (67 ms at timeout 14) expired although nothing was lost.
     */
    private void stepBack() {
        LockSupport.parkNanos(appActiveNanos);
    }

    // ------------------------------------------------------------------ inbound

    /**
     * A verified packet from the link (ICRC and headers already checked by the wire layer). It
     * must name an existing QP (or, for UD, the multicast QPN and a group the device has QPs
     * attached to) whose type its opcode belongs to; the QP's transport does the rest of the
     * admission (state, source, keys). Every packet refused is counted by reason. An exception
     * in the transport fails only the QP it concerns.
     */
    @Override
    public void onPacket(RocePacket pkt, int srcAddr, int srcPort) {
        onPacket(pkt, srcAddr, srcPort, 0, 0);
    }

    @Override
    public void onPacket(RocePacket pkt, int srcAddr, int srcPort, int dstAddr, int ipId) {
        int destQp = pkt.bth().destQp();
        if (destQp == dev.jrxe.wire.Qpn.MULTICAST) {
            multicast.deliver(this, pkt, srcAddr, dstAddr, ipId);
            return;
        }
        Qp qp = qp(destQp);
        if (qp == null) {
            link.counters().drop(DropReason.NO_QP);
            return;
        }
        deliver(qp, pkt, srcAddr, dstAddr, ipId);
    }

    /** Hands a packet to {@code qp}'s transport if its opcode is of that transport. */
    void deliver(Qp qp, RocePacket pkt, int srcAddr, int dstAddr, int ipId) {
        Transport t = qp.transport;
        if (!OpcodeTable.has(pkt.bth().opcode(), t.opcodeType())) {
            link.counters().drop(DropReason.WRONG_TRANSPORT);
            return;
        }
        try {
            t.onPacket(qp, pkt, srcAddr, dstAddr, ipId);
        } catch (RuntimeException e) {
            transportError(qp, e);
        }
    }

    // ------------------------------------------------------------------ errors

    /** Moves a QP to the error state: flushes its queues and reports the event. */
    void fail(Qp qp, int asyncEvent) {
        if (qp.state == QpState.ERR) {
            return;
        }
        int old = qp.state;
        qp.state = QpState.ERR;
        JfrEvents.qpState(qp, old, QpState.ERR);
        qp.sqDraining = false;
        qp.resp.abandonReplies();
        qp.resp.ackPending = false; // nothing of a failed QP is acknowledged any more
        Completions.flushAll(qp);
        if (asyncEvent >= 0) {
            events.qpEvent(qp, asyncEvent);
        }
        if (qp.srq != null) {
            // the QP takes no more WQEs from its SRQ: the application may now drain and destroy it
            events.qpEvent(qp, AsyncEventType.QP_LAST_WQE_REACHED);
        }
    }

    /** Verbs layer: move to ERR on request (modify to ERR); the ACKs it owes leave first. Holding the engine. */
    public void enterError(Qp qp) {
        sendOwedAck(qp);
        fail(qp, -1);
    }

    /** Reports a fatal QP error to the application. */
    void fatal(Qp qp) {
        fail(qp, AsyncEventType.QP_FATAL);
    }

    /**
     * An exception escaped a QP's transport (a bug, or a broken callback): whatever state it left
     * half updated, that QP goes to the error state with a catastrophic-error event and the
     * device goes on serving its other QPs.
     */
    void transportError(Qp qp, RuntimeException e) {
        counters.inc(TransportCounters.TRANSPORT_ERRORS);
        if (TRACE_ERRORS) {
            System.err.println("jrxe: transport error on " + qp.debugState());
            e.printStackTrace();
        }
        try {
            fail(qp, AsyncEventType.QP_FATAL);
        } catch (RuntimeException again) {
            qp.state = QpState.ERR; // failing cleanly failed too: at least stop serving it
        }
    }

    /**
     * Sends the ACKs {@code qp} owes now, RC's and its transport's own (SRD's), held or not: the
     * messages they acknowledge were delivered, and a peer that never hears so retries into a QP
     * about to forget them (ERR, RESET, destroyed, closed). Nothing once the QP failed or the
     * engine closed. Holding the engine.
     */
    void sendOwedAck(Qp qp) {
        if (!running || qp.state == QpState.ERR) {
            return;
        }
        ResponderState r = qp.resp;
        if (r.ackPending && r.pendingReplies == 0) {
            responder.sendPendingAck(qp);
        }
        qp.transport.sendOwedAcks(qp, false, false);
        if (out.committed > 0) {
            flush();
        }
    }

    /**
     * Closing: a waiting application thread may sleep in the link ({@link #serveUntil}); the link's
     * descriptors must not close under it (a number reused meanwhile would be read). It wakes at the
     * wakeup just sent and sees the engine closed; wait for that, 2 s at most, as for the progress thread.
     */
    private void awaitNoSleeper() {
        long until = System.nanoTime() + 2_000_000_000L;
        Thread s;
        while ((s = sleeper) != null && s != progressThread && System.nanoTime() - until < 0) {
            link.wakeup();
            LockSupport.parkNanos(100_000);
        }
    }

    /** Closes the device's NIC: the ACKs its QPs owe leave first (see {@link #unregister}). */
    @Override
    public void close() {
        if (HELD_BY_THIS_THREAD.get() == this) {
            HELD_BY_THIS_THREAD.remove();
        }
        lock.lock();
        try {
            try {
                for (Qp qp : active) {
                    sendOwedAck(qp);
                }
            } catch (RuntimeException e) {
                counters.incAtomic(TransportCounters.ENGINE_ERRORS); // closing goes on
            }
            running = false;
            out.releasePending();
        } finally {
            unlockEngine();
        }
        link.wakeup();
        link.wakeWatchdog();
        awaitNoSleeper();
        if (progressThread != null) {
            try {
                progressThread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        link.close();
    }
}
