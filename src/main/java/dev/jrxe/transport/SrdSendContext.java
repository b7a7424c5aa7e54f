package dev.jrxe.transport;

/**
 * What an SRD requester keeps for one peer QP (docs/SRD.md §3, §5): the epoch, the window of
 * packets in flight (one slot per PSN, W of them), the congestion window and the per-path
 * measurements that steer packets. PSNs are extended (longs that count on past 2^24; the wire
 * carries the low 24 bits). Fixed size once created; engine thread only.
 */
final class SrdSendContext {
    static final byte FREE = 0;
    static final byte IN_FLIGHT = 1;
    static final byte RNR_WAIT = 2;

    static final byte KIND_SEND = 0;
    static final byte KIND_WRITE = 1;
    static final byte KIND_WRITE_IMM = 2;
    static final byte KIND_READ = 3;

    private static final int W = SrdState.WINDOW;
    static final long RTO_MIN = 2_000_000;
    static final long RTO_MAX = 64_000_000;
    private static final long RTO_INITIAL = 5_000_000;
    private static final long PENALTY_HALF_LIFE = 20_000_000;
    private static final long RTT_SLACK = 200_000;

    final long key;
    final int addr;
    final int qpn;
    final int epoch;
    /** Next PSN to send and oldest unresolved one. */
    long next;
    long base;
    /** Packets in flight (sent, not resolved; RNR waits not counted). */
    int inFlight;
    /** Packets waiting out an RNR delay. */
    int waiting;
    /** Work requests in progress that name this context: it is not dropped while any does. */
    int users;
    /** Given up on: the work requests still naming it complete in error. */
    boolean dead;
    /** Earliest deadline of any packet (Long.MAX_VALUE: none). */
    long nextTimer = Long.MAX_VALUE;
    /** On the QP's list of contexts with timers. */
    boolean listed;
    long lastActive;
    /** When the context was made: no response can echo a timestamp older than that. */
    long created;

    // ---- one slot per PSN (index psn & (W-1))
    final long[] wqe = new long[W];
    final long[] chunkOffset = new long[W];
    final int[] chunkLength = new int[W];
    final byte[] kind = new byte[W];
    final byte[] state = new byte[W];
    final byte[] path = new byte[W];
    final byte[] retries = new byte[W];
    final byte[] rnrCount = new byte[W];
    final long[] firstSent = new long[W];
    final long[] deadline = new long[W];

    // ---- congestion control
    double cwnd = 16;
    long lastDecrease;

    // ---- paths
    final int paths;
    final long[] srtt;
    final long[] rttvar;
    final double[] penalty;
    final long[] penaltyAt;
    long minRtt = Long.MAX_VALUE;
    int rr;

    SrdSendContext(long key, int addr, int qpn, int epoch, long startPsn, int paths) {
        this.key = key;
        this.addr = addr;
        this.qpn = qpn;
        this.epoch = epoch;
        this.next = startPsn;
        this.base = startPsn;
        this.paths = paths;
        this.srtt = new long[paths];
        this.rttvar = new long[paths];
        this.penalty = new double[paths];
        this.penaltyAt = new long[paths];
    }

    static int slot(long psn) {
        return (int) psn & (W - 1);
    }

    /** Whether one more new packet may go: room in the window and the congestion window. */
    boolean canSend() {
        return !dead && next - base < W && inFlight < (int) cwnd;
    }

    /** Moves the base over the resolved slots at its front. */
    void slideBase() {
        while (base < next && state[slot(base)] == FREE) {
            base++;
        }
    }

    // ---------------------------------------------------------------- paths

    private double penalty(int p, long now) {
        double v = penalty[p];
        if (v > 0) {
            long age = now - penaltyAt[p];
            if (age >= PENALTY_HALF_LIFE) {
                int halvings = (int) Math.min(30, age / PENALTY_HALF_LIFE);
                v = v / (1 << halvings);
                penalty[p] = v < 0.01 ? 0 : v;
                penaltyAt[p] += halvings * PENALTY_HALF_LIFE;
            }
        }
        return penalty[p];
    }

    private boolean good(int p, long now) {
        if (penalty(p, now) >= 0.5) {
            return false;
        }
        return srtt[p] == 0 || minRtt == Long.MAX_VALUE || srtt[p] <= 2 * minRtt + RTT_SLACK;
    }

    private double cost(int p, long now) {
        long rtt = srtt[p] == 0 ? (minRtt == Long.MAX_VALUE ? RTO_MIN : minRtt) : srtt[p];
        return rtt * (1 + 4 * penalty(p, now));
    }

    /** The path of a new packet: round-robin over the good paths, else the cheapest. */
    int choosePath(long now) {
        for (int i = 0; i < paths; i++) {
            int p = (rr + i) % paths;
            if (good(p, now)) {
                rr = p + 1;
                return p;
            }
        }
        return cheapest(now, -1);
    }

    /** The path of a retransmission: the cheapest other than {@code avoid} (when there is another). */
    int retransmitPath(long now, int avoid) {
        return paths == 1 ? 0 : cheapest(now, avoid);
    }

    private int cheapest(long now, int avoid) {
        int best = -1;
        double bestCost = Double.MAX_VALUE;
        for (int p = 0; p < paths; p++) {
            if (p == avoid) {
                continue;
            }
            double c = cost(p, now);
            if (c < bestCost) {
                bestCost = c;
                best = p;
            }
        }
        return best < 0 ? 0 : best;
    }

    /** An RTT sample on path {@code p} (RFC 6298 gains); may take an eighth off the window. */
    void rttSample(int p, long rtt, long now) {
        if (srtt[p] == 0) {
            srtt[p] = rtt;
            rttvar[p] = rtt / 2;
        } else {
            long err = rtt - srtt[p];
            srtt[p] += err / 8;
            rttvar[p] += (Math.abs(err) - rttvar[p]) / 4;
        }
        if (rtt < minRtt) {
            minRtt = rtt;
        }
        if (srtt[p] > 2 * minRtt + RTT_SLACK) {
            decrease(0.875, now, srtt[p]);
        }
    }

    /** Retransmission timeout of a packet on path {@code p} sent {@code retries} times before. */
    long rto(int p, int retries) {
        long base = srtt[p] == 0 ? RTO_INITIAL : Math.max(RTO_MIN, srtt[p] + 4 * rttvar[p]);
        return Math.min(RTO_MAX, base << Math.min(retries, 6));
    }

    /** A timeout on path {@code p}: the path is penalised and the window halved. */
    void timeout(int p, long now) {
        penalty(p, now);
        penalty[p] += 1;
        penaltyAt[p] = now;
        decrease(0.5, now, srtt[p] == 0 ? RTO_MIN : srtt[p]);
    }

    /** A packet resolved: additive increase. */
    void resolvedOne() {
        cwnd = Math.min(W, cwnd + 1 / cwnd);
    }

    private void decrease(double factor, long now, long rtt) {
        if (now - lastDecrease >= rtt) {
            cwnd = Math.max(2, cwnd * factor);
            lastDecrease = now;
        }
    }

    /** The path's smoothed RTT in nanoseconds (0: no sample yet). */
    long srtt(int p) {
        return srtt[p];
    }

    double currentPenalty(int p, long now) {
        return penalty(p, now);
    }

    /** Heap bytes of this context: its object and arrays (16-byte headers, 8-byte alignment). */
    long footprint() {
        return SrdState.object(12 * 8) + SrdState.array(wqe.length, 8) * 4 + SrdState.array(W, 4)
            + SrdState.array(W, 1) * 5 + SrdState.array(paths, 8) * 4 + SrdState.array(paths, 8);
    }
}
