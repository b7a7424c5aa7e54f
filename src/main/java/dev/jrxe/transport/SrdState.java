package dev.jrxe.transport;


/**
 * The SRD side of one QP (docs/SRD.md): its paths (UDP source ports), its requester and
 * responder contexts, and the requester's progress on each send-queue slot. Created with the
 * QP; engine thread only, except the counters, which any thread may read.
 */
public final class SrdState {
    /** PSNs in flight per requester context, and statuses per responder context (a power of two). */
    public static final int WINDOW = 128;
    /** The largest RDMA READ or WRITE one work request may move (efadv max_rdma_size). */
    public static final int MAX_RDMA_SIZE = 16 << 20;

    final Qp qp;
    /** The UDP source port of each path; path 0 is the QP's own {@link Qp#srcPort}. */
    final int[] pathPorts;
    /** Epochs and table seeds: unpredictable, so that a blind forger cannot match a context. */
    final java.security.SecureRandom random = new java.security.SecureRandom();
    final SrdContextTable<SrdSendContext> senders = new SrdContextTable<>(random);
    final SrdContextTable<SrdRecvContext> receivers = new SrdContextTable<>(random);
    /** The responder found no context to evict: none can be evicted before this time. */
    long noVictimBefore;
    /** Requester contexts with packets in flight or waiting (their timers are looked at). */
    SrdSendContext[] timed = new SrdSendContext[8];
    int timedCount;
    /** Responder contexts that owe an ACK (sent at the end of the cycle, or held: {@link #ackHoldable}). */
    SrdRecvContext[] acking = new SrdRecvContext[8];
    int ackingCount;
    /**
     * Every owed ACK is for a SEND that completed a receive: the application is likely to answer,
     * and an application thread's cycle may hold the ACKs up to {@link #ackHoldNanos} for that
     * answer to take them along, in one system call (as RC's {@link AckHold} does).
     */
    boolean ackHoldable;
    /** A hold is running, since {@link #ackHeldAt} (engine clock: the end of the cycle that began it). */
    boolean ackHolding;
    long ackHeldAt;
    final long ackHoldNanos;
    /** Per send-queue slot: the context it goes to and the packets resolved / sent so far. */
    final SrdSendContext[] wqeContext;
    final int[] wqeResolved;
    final int[] wqeSent;
    final int maxPeers;
    final long timeoutNanos;
    /** Receive completions of WRITE_WITH_IMM without a receive WQE (EFADV UNSOLICITED_WRITE_RECV). */
    public volatile boolean unsolicitedWriteRecv;

    // ---- per path, summed over the QP's peers (any thread reads)
    final java.util.concurrent.atomic.AtomicLongArray pathSent;
    final java.util.concurrent.atomic.AtomicLongArray pathRetransmits;
    final java.util.concurrent.atomic.AtomicLongArray pathTimeouts;
    final java.util.concurrent.atomic.AtomicLongArray pathRtt;

    SrdState(Qp qp, int sqSlots) {
        this.qp = qp;
        EngineTuning tuning = qp.engine.tuning();
        int n = tuning.srdPaths();
        this.pathPorts = new int[n];
        int first = QpControl.udSourcePort(qp.qpn) & 0x3FFF;
        for (int i = 0; i < n; i++) {
            // an odd stride is a bijection modulo 2^14: n distinct ports
            pathPorts[i] = 0xC000 | ((first + i * 4099) & 0x3FFF);
        }
        this.wqeContext = new SrdSendContext[sqSlots];
        this.wqeResolved = new int[sqSlots];
        this.wqeSent = new int[sqSlots];
        this.maxPeers = tuning.srdMaxPeers();
        this.timeoutNanos = tuning.srdTimeoutNanos();
        this.ackHoldNanos = tuning.ackHoldNanos();
        this.pathSent = new java.util.concurrent.atomic.AtomicLongArray(n);
        this.pathRetransmits = new java.util.concurrent.atomic.AtomicLongArray(n);
        this.pathTimeouts = new java.util.concurrent.atomic.AtomicLongArray(n);
        this.pathRtt = new java.util.concurrent.atomic.AtomicLongArray(n);
    }

    /** The number of paths. */
    public int paths() {
        return pathPorts.length;
    }

    /** UDP source port of path {@code p}. */
    public int pathPort(int p) {
        return pathPorts[p];
    }

    /** Packets first sent on path {@code p}. */
    public long pathSent(int p) {
        return pathSent.get(p);
    }

    /** Retransmissions sent on path {@code p}. */
    public long pathRetransmits(int p) {
        return pathRetransmits.get(p);
    }

    /** Retransmission timeouts of packets that had last gone on path {@code p}. */
    public long pathTimeouts(int p) {
        return pathTimeouts.get(p);
    }

    /** Latest smoothed RTT (ns) measured on path {@code p}, any peer; 0 before the first sample. */
    public long pathRttNanos(int p) {
        return pathRtt.get(p);
    }

    /** Requester and responder contexts held now (racy; for diagnostics and tests). */
    public int requesterContexts() {
        return senders.size();
    }

    public int responderContexts() {
        return receivers.size();
    }

    static long array(int n, int elementBytes) {
        return (16 + (long) n * elementBytes + 7) & ~7L;
    }

    static long object(int fieldBytes) {
        return (12 + (long) fieldBytes + 7) & ~7L;
    }

    /**
     * Heap bytes the QP's peer contexts take now, {requester, responder}: each context's object
     * and arrays, summed from the live objects (for tests and docs/BENCHMARKS.md; racy).
     */
    public long[] contextBytes() {
        long send = array(senders.capacity(), 8) + array(senders.capacity(), 4);
        for (int i = 0; i < senders.capacity(); i++) {
            SrdSendContext c = senders.at(i);
            send += c == null ? 0 : c.footprint();
        }
        long recv = array(receivers.capacity(), 8) + array(receivers.capacity(), 4);
        for (int i = 0; i < receivers.capacity(); i++) {
            SrdRecvContext c = receivers.at(i);
            recv += c == null ? 0 : c.footprint();
        }
        return new long[] {send, recv};
    }

    static void bump(java.util.concurrent.atomic.AtomicLongArray a, int i) {
        a.setOpaque(i, a.getPlain(i) + 1);
    }

    void listTimed(SrdSendContext c) {
        if (c.listed) {
            return;
        }
        if (timedCount == timed.length) {
            timed = java.util.Arrays.copyOf(timed, timedCount * 2);
        }
        timed[timedCount++] = c;
        c.listed = true;
    }

    /** {@code c} owes an ACK; {@code holdable}: for a SEND that completed a receive (see {@link #ackHoldable}). */
    void listAcking(SrdRecvContext c, boolean holdable) {
        ackHoldable = ackingCount == 0 ? holdable : ackHoldable && holdable;
        if (c.ackPending) {
            return;
        }
        c.ackPending = true;
        if (ackingCount == acking.length) {
            acking = java.util.Arrays.copyOf(acking, ackingCount * 2);
        }
        acking[ackingCount++] = c;
    }

    /**
     * A fresh epoch for a new requester context: random, never the one {@code avoid}, never 0
     * (what a responder context that never had another epoch holds as its previous one).
     */
    int newEpoch(int avoid) {
        int e;
        do {
            e = random.nextInt();
        } while (e == avoid || e == 0);
        return e;
    }

    /** Forgets every context and slot (QP reset or error). */
    void reset() {
        noVictimBefore = 0;
        senders.clear();
        receivers.clear();
        java.util.Arrays.fill(timed, null);
        timedCount = 0;
        java.util.Arrays.fill(acking, null);
        ackingCount = 0;
        ackHolding = false;
        java.util.Arrays.fill(wqeContext, null);
        java.util.Arrays.fill(wqeResolved, 0);
        java.util.Arrays.fill(wqeSent, 0);
    }
}
