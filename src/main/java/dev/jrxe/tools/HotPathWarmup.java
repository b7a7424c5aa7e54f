package dev.jrxe.tools;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.verbs.AddressHandle;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.UdSetup;
import dev.jrxe.verbs.WorkCompletion;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An untimed run of a pingpong tool's hot path before its measured loop (issue 15): two QPs of the
 * tool's own device, connected to each other, play the two sides of the ping-pong — each on a
 * thread of its own, through the tool's own completion handling ({@link PingpongCompletions}), with
 * the run's size (the caller caps it), MTU and inline choice — until the JIT has been quiet for a
 * while. The packets leave and arrive through the same UDP socket the run uses (a device reaches
 * its own address, as rxe loops back), so the code compiled, with the profiles it was compiled
 * for, is the code the measured loop runs. Measured in docs/BENCHMARKS.md; {@code --no-warmup} skips it.
 */
final class HotPathWarmup {
    private static final int RECV_DEPTH = 16;
    /** Round trips before the JIT's quiet is trusted (the hot methods must have been called often). */
    private static final int MIN_ROUND_TRIPS = 5_000;
    /** A side that saw no completion for this long gives up (UC does not retransmit). */
    private static final long STALL_NANOS = 500_000_000L;
    /** The JIT is quiet when it compiled nothing for this long. */
    private static final long QUIET_NANOS = 300_000_000L;

    /** What a warm-up did: round trips of the side that started them. */
    record Result(int roundTrips, long nanos) {
    }

    /** How the warm-up's two QPs are made and joined: as the tool's own QP is. */
    interface Pair {
        QueuePair create(ProtectionDomain pd, CompletionQueue cq, QpCap cap);

        /** Walks both QPs to RTS, joined to each other. */
        void join(Device dev, ProtectionDomain pd, QueuePair a, QueuePair b);

        /** What a send from one QP to {@code to} names besides its data (datagram QPs: AH, QPN, Q_Key). */
        void address(SendWr wr, QueuePair to);

        /** Bytes in front of the payload of a receive buffer (UD's GRH area). */
        int headroom();

        /** Releases what {@link #join} made. */
        void close();
    }

    /** Connected QPs of {@code qpType} (RC, UC), joined with {@link RcConnect} at {@code mtuEnum}. */
    static Pair connected(int qpType, int mtuEnum) {
        return new Pair() {
            @Override
            public QueuePair create(ProtectionDomain pd, CompletionQueue cq, QpCap cap) {
                return pd.createQp(new QpInitAttr(qpType, cq, cq, cap));
            }

            @Override
            public void join(Device dev, ProtectionDomain pd, QueuePair a, QueuePair b) {
                new RcConnect().pathMtu(mtuEnum).pair(a, 0x100, b, 0x200);
            }

            @Override
            public void address(SendWr wr, QueuePair to) {
            }

            @Override
            public int headroom() {
                return 0;
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * Datagram QPs (UD, SRD) made by {@code create}, walked to RTS with {@code qkey}, each sending to
     * the other through an address handle of the device's own GID; {@code headroom} before each
     * received payload.
     */
    static Pair datagram(java.util.function.BiFunction<ProtectionDomain, QpInitAttr, QueuePair> create, int qpType,
                         int qkey, int headroom) {
        return new Pair() {
            private AddressHandle ah;

            @Override
            public QueuePair create(ProtectionDomain pd, CompletionQueue cq, QpCap cap) {
                return create.apply(pd, new QpInitAttr(qpType, cq, cq, cap));
            }

            @Override
            public void join(Device dev, ProtectionDomain pd, QueuePair a, QueuePair b) {
                UdSetup.toRts(a, qkey, 0x100);
                UdSetup.toRts(b, qkey, 0x200);
                ah = pd.createAh(new AhAttr(dev.queryGid(1, Device.IPV4_GID_INDEX), 1));
            }

            @Override
            public void address(SendWr wr, QueuePair to) {
                wr.ah = ah;
                wr.remoteQpn = to.qpNum();
                wr.remoteQkey = qkey;
            }

            @Override
            public int headroom() {
                return headroom;
            }

            @Override
            public void close() {
                if (ah != null) {
                    ah.close();
                }
            }
        };
    }

    private HotPathWarmup() {
    }

    /**
     * Runs SEND round trips between two fresh {@code qpType} QPs of {@code dev} until the JIT is
     * quiet, {@code roundTrips} are done or {@code budgetNanos} passed; everything it created is
     * gone when it returns. A completion in error ends it early (the run proper reports its own).
     */
    static Result run(Device dev, int qpType, int size, int mtuEnum, int roundTrips, long budgetNanos) {
        return run(dev, connected(qpType, mtuEnum), size, roundTrips, budgetNanos);
    }

    /** {@link #run(Device, int, int, int, int, long)} with QPs made and joined as {@code pair} says. */
    static Result run(Device dev, Pair pair, int size, int roundTrips, long budgetNanos) {
        long start = System.nanoTime();
        int[] done = new int[1];
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = dev.allocPd();
            int room = pair.headroom();
            MemorySegment bufA = arena.allocate(Math.max(size + room, 1), PingpongCommand.PAGE_SIZE);
            MemorySegment bufB = arena.allocate(Math.max(size + room, 1), PingpongCommand.PAGE_SIZE);
            MemoryRegion mrA = pd.registerMemory(bufA, Access.LOCAL_WRITE);
            MemoryRegion mrB = pd.registerMemory(bufB, Access.LOCAL_WRITE);
            CompletionQueue cqA = dev.createCq(RECV_DEPTH + 1);
            CompletionQueue cqB = dev.createCq(RECV_DEPTH + 1);
            QueuePair a = pair.create(pd, cqA, new QpCap(1, RECV_DEPTH, 1, 1, 0));
            QueuePair b = pair.create(pd, cqB, new QpCap(1, RECV_DEPTH, 1, 1, 0));
            try {
                pair.join(dev, pd, a, b);
                boolean inline = a.cap().maxInlineData >= size;
                // both sides' receives first: a UC message that finds none is dropped, and nothing
                // would ever answer it
                RecvWr ra = recvWr(bufA, size + room, mrA);
                RecvWr rb = recvWr(bufB, size + room, mrB);
                int routsA = PingpongCommand.postRecvs(a, ra, RECV_DEPTH);
                int routsB = PingpongCommand.postRecvs(b, rb, RECV_DEPTH);
                AtomicBoolean stop = new AtomicBoolean();
                long deadline = start + budgetNanos;
                Thread responder = Thread.ofPlatform().name("jrxe-warmup").start(() -> {
                    try {
                        side(b, a, pair, cqB, bufB, mrB, rb, routsB, size, inline, roundTrips, false, stop, deadline,
                            null);
                    } catch (RuntimeException e) {
                        stop.set(true); // a warm-up that fails only ends the warm-up
                    }
                });
                try {
                    side(a, b, pair, cqA, bufA, mrA, ra, routsA, size, inline, roundTrips, true, stop, deadline, done);
                } finally {
                    stop.set(true);
                    join(responder);
                }
            } finally {
                a.close();
                b.close();
                pair.close();
                cqA.close();
                cqB.close();
                mrA.close();
                mrB.close();
                pd.close();
            }
        }
        return new Result(done[0], System.nanoTime() - start);
    }

    /**
     * One side, as the tool's loop runs it: poll, hand each completion to the tool's
     * {@link PingpongCompletions}, which reposts receives and sends the next message. The side
     * that starts ({@code initiator}) also decides when to stop, and counts its round trips.
     */
    private static void side(QueuePair qp, QueuePair peer, Pair pair, CompletionQueue cq, MemorySegment buf,
                             MemoryRegion mr, RecvWr rwr, int routs, int size, boolean inline, int roundTrips,
                             boolean initiator, AtomicBoolean stop, long deadline, int[] done) {
        SendWr swr = new SendWr(1).sge(buf.address() + pair.headroom(), size, mr.lkey());
        pair.address(swr, peer);
        swr.wrId = PingpongCommand.SEND_WRID;
        swr.opcode = WrOpcode.SEND;
        swr.sendFlags = SendFlags.SIGNALED | (inline ? SendFlags.INLINE : 0);
        PrintWriter quiet = new PrintWriter(java.io.Writer.nullWriter());
        PingpongCompletions wcs = new PingpongCompletions(quiet, roundTrips, RECV_DEPTH, 1, routs, null,
            new PingpongCompletions.PostSend(qp, swr), new PingpongCompletions.PostRecvs(qp, rwr),
            new CompletionWatch(quiet, "warm-up", 0, 0, () -> 0));
        wcs.expect(0, PingpongCommand.RECV_WRID);
        if (initiator) {
            if (!PingpongCommand.postSend(qp, swr)) {
                return;
            }
            wcs.expect(0, PingpongCommand.RECV_WRID | PingpongCommand.SEND_WRID);
        }
        JitQuiet jit = new JitQuiet();
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
        int received = 0;
        int idle = 0;
        long lastCompletion = System.nanoTime();
        while (wcs.running() && !stop.get()) {
            int ne = cq.poll(wc);
            if (ne == 0) {
                // let the compiler threads (and the peer process) have the CPU: the warm-up is
                // there to get code compiled, not to win the race
                Thread.yield();
                if (++idle % 1024 == 0) {
                    long t = System.nanoTime();
                    if (t - deadline > 0 || t - lastCompletion > STALL_NANOS) {
                        break; // past the budget, or stalled (a UC message lost: nothing would ever come)
                    }
                }
                continue;
            }
            lastCompletion = System.nanoTime();
            for (int i = 0; i < ne; i++) {
                if (!wcs.complete(wc[i].wrId, wc[i].status, wc[i].qpNum)) {
                    stop.set(true);
                    return;
                }
                if (wc[i].wrId == PingpongCommand.RECV_WRID) {
                    received++;
                }
            }
            if (initiator && ne > 0 && received % 256 == 0 && received > 0) {
                if (System.nanoTime() - deadline > 0 || received >= MIN_ROUND_TRIPS && jit.quiet()) {
                    break;
                }
            }
        }
        if (wcs.running()) {
            stop.set(true); // ended early: the other side may be waiting for a message that will not come
        }
        if (done != null) {
            done[0] = received;
        }
    }

    private static RecvWr recvWr(MemorySegment buf, int size, MemoryRegion mr) {
        RecvWr rwr = new RecvWr(1).sge(buf.address(), size, mr.lkey());
        rwr.wrId = PingpongCommand.RECV_WRID;
        return rwr;
    }

    private static void join(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Whether the JIT has been idle for {@link #QUIET_NANOS}: its total compilation time (the JVM's
     * compilation MXBean) stopped growing. Compilations still queued when the measured loop starts
     * take a core from two busy processes on a small machine, which is what the cold figures show.
     */
    private static final class JitQuiet {
        private final java.lang.management.CompilationMXBean jit =
            java.lang.management.ManagementFactory.getCompilationMXBean();
        private long lastTotal = -1;
        private long since = System.nanoTime();

        boolean quiet() {
            if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
                return false;
            }
            long total = jit.getTotalCompilationTime();
            long t = System.nanoTime();
            if (total != lastTotal) {
                lastTotal = total;
                since = t;
                return false;
            }
            return t - since >= QUIET_NANOS;
        }
    }
}
