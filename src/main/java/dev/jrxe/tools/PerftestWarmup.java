package dev.jrxe.tools;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * perftest's untimed warm-up (issue 15), the counterpart of the pingpong tools' {@link HotPathWarmup}:
 * before the exchange, two sets of the test's QPs on the tool's own device run the test's own
 * loops ({@link PerftestRun#bwClient}, {@link PerftestRun#sendBwServer}, the latency loops) against
 * each other through the device's own UDP socket, in short episodes, until the JIT has been quiet
 * for a while ({@link JitQuiet}) or the budget is spent. A cold JVM otherwise spends the first
 * seconds of a run in the interpreter and in compilations that take a core from both busy
 * processes: a default write-bw (5000 messages, a tenth of a second when warm) measured that
 * instead of the data path. Nothing of it reaches the peer or the output; {@code --no-warmup}
 * skips it. A failed episode (a UC message lost, say) only ends the warm-up.
 */
final class PerftestWarmup {
    /** Messages per QP in one episode, at most; fewer for large messages ({@link #EPISODE_BYTES}). */
    static final int EPISODE = 2_000;
    /** An episode's bytes per QP, at most (but at least {@link #MIN_EPISODE} messages). */
    static final long EPISODE_BYTES = 32L << 20;
    static final int MIN_EPISODE = 200;
    /**
     * Messages per QP before the JIT's quiet is trusted: the per-message methods must have run
     * often enough for the JIT's last tier (thousands of calls, tens of thousands of loop turns).
     */
    static final int MIN_MESSAGES = 20_000;
    /** The warm-up's messages are the run's size up to this. */
    static final int MAX_SIZE = 64 * 1024;
    /** The longest a warm-up takes (it ends sooner once the JIT is quiet). */
    static final long BUDGET_NANOS = 4_000_000_000L;
    /** A warm-up episode that sees no completion for this long gives up (UC does not retransmit). */
    private static final long STALL_NANOS = 1_000_000_000L;
    /**
     * A passive BW test's requests are left to the progress thread this long (longer than an
     * application is deemed to drive the device after its last poll, 1 ms).
     */
    private static final long UNPOLLED_MILLIS = 5;
    /**
     * Between episodes the warm-up pauses as long as the episode took, from this to
     * {@link #MAX_PAUSE_MILLIS}: the compiler threads get the CPU that the busy loops of both
     * processes (each warms up) would otherwise keep from them on a small machine.
     */
    private static final long MIN_PAUSE_MILLIS = 5;
    private static final long MAX_PAUSE_MILLIS = 100;

    /**
     * What a warm-up did: its complete episodes, how long it took, whether it ended because the
     * JIT was quiet (rather than at its budget) and what ended it early, if anything did.
     */
    record Result(int episodes, long nanos, boolean quiet, Exception failure) {
    }

    private PerftestWarmup() {
    }

    /**
     * Runs episodes of {@code test} ({@code bidirectional}: perftest's -b) between two runs of
     * {@code p} on {@code dev} (its iterations, depths and size cut to an episode's) until the JIT
     * is quiet or {@code budgetNanos} passed; everything it made is gone when it returns.
     */
    static Result run(dev.jrxe.verbs.Device dev, PerftestRun.Params p, boolean bidirectional, long budgetNanos) {
        long start = System.nanoTime();
        int size = Math.min(p.maxSize(), MAX_SIZE);
        int n = (int) Math.min(p.iters(), Math.max(MIN_EPISODE, Math.min(EPISODE, EPISODE_BYTES / Math.max(1, size))));
        int tx = Math.min(p.txDepth(), n);
        int rx = Math.min(p.rxDepth(), n);
        PerftestRun.Params w = new PerftestRun.Params(p.test(), size, n, tx, rx, Math.min(p.cqMod(), tx), p.qps(), p.uc(),
            p.mtu(), p.gidIndex(), p.cmpAndSwap(), p.timeout(), p.cycleBuffer(), p.cacheLine(),
            Math.min(p.postList(), tx), p.ud());
        JitQuiet jit = JitQuiet.byCompilerThreads();
        int episodes = 0;
        boolean quiet = false;
        Exception failure = null;
        // a, b: the two sides; idle: QPs left in INIT, as the run's own are while the sides exchange
        // their records (the engine serves them all the same: their branches must be profiled too,
        // or the compiled data path is thrown away when the run's QPs appear)
        try (PerftestRun a = new PerftestRun(dev, w, false, STALL_NANOS);
             PerftestRun b = new PerftestRun(dev, w, false, STALL_NANOS);
             PerftestRun idle = new PerftestRun(dev, w, false, STALL_NANOS)) {
            a.connect(b.mine);
            b.connect(a.mine);
            long messages = 0;
            while (true) { // one episode at least: the budget is looked at after each
                long t = System.nanoTime();
                episode(p.test(), bidirectional, size, a, b);
                episodes++;
                messages += n;
                quiet = jit.quiet();
                if (quiet && messages >= MIN_MESSAGES || System.nanoTime() - start >= budgetNanos) {
                    break;
                }
                long took = (System.nanoTime() - t) / 1_000_000;
                Thread.sleep(Math.max(MIN_PAUSE_MILLIS, Math.min(took, MAX_PAUSE_MILLIS)));
            }
        } catch (IOException | RuntimeException e) {
            failure = e; // a warm-up that fails only ends the warm-up: the run proper reports its own
        } catch (InterruptedException e) {
            failure = e;
            Thread.currentThread().interrupt();
        }
        return new Result(episodes, System.nanoTime() - start, quiet, failure);
    }

    /** One run of the test's loops: {@code a} plays the client, {@code b} the server. */
    private static void episode(PerftestTest test, boolean bidirectional, int size, PerftestRun a, PerftestRun b)
            throws IOException, InterruptedException {
        boolean send = test.verb == PerftestTest.Verb.SEND;
        if (send) {
            b.postReceives(size);
            if (bidirectional || !test.bw) {
                a.postReceives(size);
            }
        }
        if (test.bw) {
            if (bidirectional) {
                both(() -> a.bwClient(size, false, send, false), () -> b.bwClient(size, false, send, send));
            } else if (send) {
                AtomicBoolean clientDone = new AtomicBoolean();
                both(() -> {
                    a.bwClient(size, false, false, false);
                    clientDone.set(true);
                }, () -> b.sendBwServer(size, false, clientDone::get));
            } else {
                a.bwClient(size, false, false, false);
                // the real server's device runs these on its progress thread: so must some here
                a.postUnpolled(size, Math.min(a.p.txDepth(), 16), UNPOLLED_MILLIS);
            }
            return;
        }
        switch (test.verb) {
            case READ, ATOMIC -> a.readLat(size, null);
            case WRITE -> {
                // a counter left from the last episode could pass for this one's first
                a.clearPeerCounter(size);
                b.clearPeerCounter(size);
                both(() -> a.writeLat(size, true, null), () -> b.writeLat(size, false, null));
            }
            case SEND -> both(() -> a.sendLat(size, true, null), () -> b.sendLat(size, false, null));
        }
    }

    /** A side's part of an episode. */
    private interface Side {
        void run() throws IOException;
    }

    /** Runs {@code mine} here and {@code other} on a thread of its own; the first failure is thrown. */
    private static void both(Side mine, Side other) throws IOException, InterruptedException {
        IOException[] failed = new IOException[1];
        Thread t = Thread.ofPlatform().name("jrxe-perftest-warmup").start(() -> {
            try {
                other.run();
            } catch (IOException | RuntimeException e) {
                failed[0] = e instanceof IOException io ? io : new IOException(e);
            }
        });
        try {
            mine.run();
        } finally {
            t.join();
        }
        if (failed[0] != null) {
            throw failed[0];
        }
    }
}
