package dev.jrxe.tools;

import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.verbs.AddressHandle;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.CompletionChannel;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpAttr;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.UdSetup;
import dev.jrxe.verbs.WcFlagsEx;
import dev.jrxe.verbs.WorkCompletion;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

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
    /** A side that saw no completion and no packet for this long gives up (UC does not retransmit). */
    static final int STALL_SECONDS = 1;
    /** Episodes: the first few short, each followed by a deep sleep; then longer ones. */
    static final int SHORT_EPISODE = 300;
    private static final int LONG_EPISODE = 2_000;
    private static final int DEEP_SLEEP_EPISODES = 3;
    /**
     * Episodes after a deep sleep in a row that must compile nothing before the warm-up ends: a
     * deoptimisation compiles nothing itself, so one could end the warm-up with the code it threw
     * away (rc-pingpong -N's server: PingpongCompletions.complete, trapped in Engine.kick's wake
     * from deep sleep, ran interpreted into the measured run); the next episode compiles it again.
     */
    private static final int CONFIRMATIONS = 2;
    /**
     * Round trips of a confirming episode: enough for the JIT to compile again, at its top tier,
     * a method a trap threw back to the interpreter meanwhile (some 5,000 calls), so that the
     * episode sees that compilation and the warm-up goes on. With 300, a trap late in the warm-up
     * (RcCompleter.completeAcked meeting a head WQE not yet started, compiled as never seen) left
     * its recompilation, 12-29 ms of C2, to the measured run: the 3 slowest of 40 cold
     * rc-pingpong pairs (docs/BENCHMARKS.md).
     */
    static final int CONFIRMING_EPISODE = 6_000;
    /** Longer than an engine's idle time before its deep sleep (200 ms, transport.Engine). */
    private static final long DEEP_SLEEP_PAUSE_NANOS = 260_000_000L;
    /** Between longer episodes: the compiler threads get the CPU the two sides busy-polled. */
    private static final long SHORT_PAUSE_NANOS = 20_000_000L;
    /**
     * The end of the budget kept for the busy-polling episodes: a server warming up beside its
     * client's warm-up (four polling threads on 2 cores) used to spend all of its 5 s yielding,
     * and its measured run then began with the loop not compiled at all (-Xlog:jit+compilation).
     */
    private static final long BUSY_RESERVE_NANOS = 1_500_000_000L;
    /** A side that does not reach the meeting after an episode in this long has failed. */
    private static final int MEET_TIMEOUT_SECONDS = 10;

    /**
     * What a warm-up did: round trips of the side that started them; of those, the ones of
     * episodes past the yielding phase (the measured run's own loop: busy polling, or waiting for
     * events); the completion events its sides took; and the completions they read with their
     * time stamps.
     */
    record Result(int roundTrips, int busyRoundTrips, int events, long timestamped, long nanos) {
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

        /**
         * Whether the QPs start over between episodes ({@link #renew}): SRD's, whose first
         * exchange with a peer (a new context, the first RTT samples of its paths) takes branches
         * the rest never takes. Warmed up once only, the JIT compiled them as never taken, and the
         * measured run, a new peer, began with a deoptimisation of the whole receive path.
         */
        default boolean renews() {
            return false;
        }

        /** Walks both QPs through RESET back to RTS (they forget their peers); both sides are idle. */
        default void renew(QueuePair a, QueuePair b) {
        }

        /** How a side posts its send on {@code qp}: as the tool posts its own (the classic post). */
        default PingpongCompletions.Sender sender(QueuePair qp, SendWr wr) {
            return new PingpongCompletions.PostSend(qp, wr);
        }
    }

    /** Connected QPs of {@code qpType} (RC, UC), joined with {@link RcConnect} at {@code mtuEnum}. */
    static Pair connected(int qpType, int mtuEnum) {
        return connected(qpType, mtuEnum, false);
    }

    /**
     * {@link #connected(int, int)}; with {@code newSend} the QPs take sends through the extended
     * API as {@code rc-pingpong -N} does ({@link PingpongCompletions.BuildSend}).
     */
    static Pair connected(int qpType, int mtuEnum, boolean newSend) {
        return new Pair() {
            @Override
            public QueuePair create(ProtectionDomain pd, CompletionQueue cq, QpCap cap) {
                QpInitAttr init = new QpInitAttr(qpType, cq, cq, cap);
                init.sendOpsFlags = newSend ? dev.jrxe.ib.SendOps.SEND : 0;
                return pd.createQp(init);
            }

            @Override
            public PingpongCompletions.Sender sender(QueuePair qp, SendWr wr) {
                return newSend ? new PingpongCompletions.BuildSend(qp, wr) : new PingpongCompletions.PostSend(qp, wr);
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
        return datagram(create, qpType, qkey, headroom, false);
    }

    /** {@link #datagram(java.util.function.BiFunction, int, int, int)}; {@code renews}: see {@link Pair#renews}. */
    static Pair datagram(java.util.function.BiFunction<ProtectionDomain, QpInitAttr, QueuePair> create, int qpType,
                         int qkey, int headroom, boolean renews) {
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
            public boolean renews() {
                return renews;
            }

            @Override
            public void renew(QueuePair a, QueuePair b) {
                a.modify(new QpAttr().state(QpState.RESET), QpAttrMask.STATE);
                b.modify(new QpAttr().state(QpState.RESET), QpAttrMask.STATE);
                UdSetup.toRts(a, qkey, 0x100);
                UdSetup.toRts(b, qkey, 0x200);
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
        return run(dev, pair, size, roundTrips, budgetNanos, Memory.PINNED);
    }

    /**
     * How the warm-up registers its buffers: as the run registers its own (rc-pingpong's {@code -o}
     * and {@code -O}), so that the memory path the run takes (ODP's translation, an implicit
     * region's children) is compiled too.
     *
     * @param access   the registration's access flags
     * @param implicit an implicit ODP region over the whole address space instead of the buffer
     */
    record Memory(int access, boolean implicit) {
        static final Memory PINNED = new Memory(Access.LOCAL_WRITE, false);

        MemoryRegion register(ProtectionDomain pd, MemorySegment buf) {
            return implicit ? pd.registerMemory(0, -1L, access) : pd.registerMemory(buf, access);
        }

        /**
         * A buffer of {@code bytes} as the run takes its own: page-aligned from {@code arena}, or,
         * for an implicit region, from jrxe's allocator ({@link NativeMemory#map}), whose memory
         * the region reaches directly; the caller {@link #free}s it. An implicit region reaches
         * memory jrxe did not allocate through a system call per access (process_vm_readv/writev,
         * the price of not crashing on memory it cannot watch): 59 against 20 usec/iter.
         */
        MemorySegment allocate(Arena arena, long bytes) {
            return allocate(implicit, arena, bytes);
        }

        /** Gives back a buffer of {@link #allocate} (an arena's goes with its arena). */
        void free(MemorySegment buf) {
            free(implicit, buf);
        }

        /** {@link #allocate(Arena, long)} for a run whose region is implicit or not. */
        static MemorySegment allocate(boolean implicit, Arena arena, long bytes) {
            return implicit ? NativeMemory.map(bytes) : arena.allocate(bytes, PingpongCommand.PAGE_SIZE);
        }

        /** {@link #free(MemorySegment)} for a run whose region is implicit or not. */
        static void free(boolean implicit, MemorySegment buf) {
            if (implicit) {
                NativeMemory.unmap(buf);
            }
        }

        /**
         * Whether each episode takes fresh memory: an ODP region's first touch of a page (an
         * implicit one's first touch of a 2 MiB child) takes branches the rest never takes, and,
         * warmed up on one region only, the JIT compiled them as never taken: the run, on a
         * region of its own, began with a deoptimisation of the memory path.
         */
        boolean renews() {
            return (access & Access.ON_DEMAND) != 0;
        }
    }

    /**
     * A side's buffer and what names it: replaced between episodes when {@link Memory#renews}
     * (the regions before stay registered until the end, for the receives still posted on them).
     */
    static final class Buffers {
        private final java.util.List<MemoryRegion> regions = new java.util.ArrayList<>();
        private final java.util.List<MemorySegment> buffers = new java.util.ArrayList<>();
        private final Arena arena;
        private final ProtectionDomain pd;
        private final Memory memory;
        private final int bytes;
        private final int sendOffset;
        private final int sendLength;
        final RecvWr rwr;
        final SendWr swr = new SendWr(1);

        /** {@code bytes} received; the send takes {@code sendLength} from {@code sendOffset} (after UD's GRH room). */
        Buffers(Arena arena, ProtectionDomain pd, Memory memory, int bytes, int sendOffset, int sendLength) {
            this.arena = arena;
            this.pd = pd;
            this.memory = memory;
            this.bytes = bytes;
            this.sendOffset = sendOffset;
            this.sendLength = sendLength;
            this.rwr = new RecvWr(1);
            rwr.wrId = PingpongCommand.RECV_WRID;
            renew();
        }

        /** A new buffer and region; the receive and the send name them from now on. */
        void renew() {
            MemorySegment buf = memory.allocate(arena, bytes);
            MemoryRegion mr;
            try {
                mr = memory.register(pd, buf);
            } catch (RuntimeException e) {
                memory.free(buf);
                throw e;
            }
            buffers.add(buf);
            regions.add(mr);
            rwr.sge(buf.address(), bytes, mr.lkey());
            swr.sge(buf.address() + sendOffset, sendLength, mr.lkey());
        }

        void close() {
            for (MemoryRegion mr : regions) {
                mr.close();
            }
            for (MemorySegment buf : buffers) {
                memory.free(buf);
            }
        }
    }

    /** {@link #run(Device, Pair, int, int, long)} with buffers registered as {@code memory} says. */
    static Result run(Device dev, Pair pair, int size, int roundTrips, long budgetNanos, Memory memory) {
        return run(dev, pair, size, roundTrips, budgetNanos, memory, new JitQuiet());
    }

    /** {@link #run(Device, Pair, int, int, long, Memory)} with the JIT watched by {@code jit}. */
    static Result run(Device dev, Pair pair, int size, int roundTrips, long budgetNanos, Memory memory, JitQuiet jit) {
        return run(dev, pair, size, roundTrips, budgetNanos, memory, jit, false);
    }

    /**
     * {@link #run(Device, Pair, int, int, long, Memory, JitQuiet)}; with {@code events} each side
     * waits for completion events as a tool's {@code -e} run does ({@link PingpongCompletions#eventLoop}),
     * so that the path from the progress thread's event to the woken thread's answer is compiled.
     */
    static Result run(Device dev, Pair pair, int size, int roundTrips, long budgetNanos, Memory memory, JitQuiet jit,
                      boolean events) {
        return run(dev, pair, size, roundTrips, budgetNanos, memory, jit, events, false);
    }

    /**
     * {@link #run(Device, Pair, int, int, long, Memory, JitQuiet, boolean)}; with {@code timestamps}
     * the CQs are extended ones with completion time stamps, read as {@code rc-pingpong -t} reads
     * its own ({@link PingpongTimestamps}, busy polling or, with events, waiting as above).
     */
    static Result run(Device dev, Pair pair, int size, int roundTrips, long budgetNanos, Memory memory, JitQuiet jit,
                      boolean events, boolean timestamps) {
        long start = System.nanoTime();
        Episodes episodes = new Episodes(roundTrips, start + budgetNanos, jit);
        boolean renews = pair.renews();
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = null;
            Buffers bufA = null;
            Buffers bufB = null;
            CompletionChannel chA = null;
            CompletionChannel chB = null;
            CompletionQueue cqA = null;
            CompletionQueue cqB = null;
            QueuePair a = null;
            QueuePair b = null;
            // everything is made inside the try, so that whatever fails gives back what was made
            // before it (an implicit run's buffers are the process's mappings, not the device's),
            // and all of it before the arena its buffers may come from
            try {
                pd = dev.allocPd();
                int room = pair.headroom();
                bufA = new Buffers(arena, pd, memory, Math.max(size + room, 1), room, size);
                bufB = new Buffers(arena, pd, memory, Math.max(size + room, 1), room, size);
                if (events) {
                    chA = dev.createCompChannel();
                    chB = dev.createCompChannel();
                }
                long tsMask = timestamps ? dev.query().completionTimestampMask : 0;
                cqA = timestamps ? dev.createCqEx(RECV_DEPTH + 1, chA, 0, WcFlagsEx.WITH_COMPLETION_TIMESTAMP)
                    : dev.createCq(RECV_DEPTH + 1, chA, 0);
                cqB = timestamps ? dev.createCqEx(RECV_DEPTH + 1, chB, 0, WcFlagsEx.WITH_COMPLETION_TIMESTAMP)
                    : dev.createCq(RECV_DEPTH + 1, chB, 0);
                if (events) {
                    cqA.requestNotify(false);
                    cqB.requestNotify(false);
                }
                a = pair.create(pd, cqA, new QpCap(1, RECV_DEPTH, 1, 1, 0));
                b = pair.create(pd, cqB, new QpCap(1, RECV_DEPTH, 1, 1, 0));
                pair.join(dev, pd, a, b);
                play(dev, pair, a, b, cqA, cqB, chA, chB, bufA, bufB, size, renews, memory.renews(), episodes,
                    timestamps ? tsMask : 0);
            } finally {
                closeAll(pair, pd, bufA, bufB, chA, chB, cqA, cqB, a, b);
            }
        }
        return new Result(episodes.roundTrips(), episodes.busyRoundTrips(), episodes.events.get(),
            episodes.timestamped.get(), System.nanoTime() - start);
    }

    /** Both sides' episodes between {@code a} and {@code b}, joined already; the initiator plays {@code a}. */
    private static void play(Device dev, Pair pair, QueuePair a, QueuePair b, CompletionQueue cqA,
                             CompletionQueue cqB, CompletionChannel chA, CompletionChannel chB, Buffers bufA,
                             Buffers bufB, int size, boolean renews, boolean freshMemory, Episodes episodes,
                             long tsMask) {
        boolean inline = a.cap().maxInlineData >= size;
        // both sides' receives first: a UC message that finds none is dropped, and nothing
        // would ever answer it
        RecvWr ra = bufA.rwr;
        RecvWr rb = bufB.rwr;
        int routsA = PingpongCommand.postRecvs(a, ra, RECV_DEPTH);
        int routsB = PingpongCommand.postRecvs(b, rb, RECV_DEPTH);
        if (renews || freshMemory) {
            // (before the sides start: their threads see it)
            episodes.between = () -> {
                if (freshMemory) {
                    bufA.renew();
                    bufB.renew();
                }
                if (renews) {
                    pair.renew(a, b); // their receives are gone with RESET: post them again
                    PingpongCommand.postRecvs(a, ra, RECV_DEPTH);
                    PingpongCommand.postRecvs(b, rb, RECV_DEPTH);
                }
            };
        }
        Thread responder = Thread.ofPlatform().name("jrxe-warmup").start(() -> {
            try {
                side(dev, b, a, pair, cqB, chB, tsMask, bufB, routsB, size, inline, false, episodes);
            } catch (RuntimeException e) {
                episodes.abandon(); // a warm-up that fails only ends the warm-up
            }
        });
        try {
            side(dev, a, b, pair, cqA, chA, tsMask, bufA, routsA, size, inline, true, episodes);
        } catch (RuntimeException e) {
            episodes.abandon();
        } finally {
            join(responder);
        }
    }

    /** Closes what {@link #run} made, in the verbs' order (QPs, CQs, channels, buffers, PD); nulls were never made. */
    private static void closeAll(Pair pair, ProtectionDomain pd, Buffers bufA, Buffers bufB, CompletionChannel chA,
                                 CompletionChannel chB, CompletionQueue cqA, CompletionQueue cqB, QueuePair a,
                                 QueuePair b) {
        try {
            for (AutoCloseable c : new AutoCloseable[] {a, b, pair::close, cqA, cqB, chA, chB}) {
                if (c != null) {
                    c.close();
                }
            }
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        } finally {
            // the buffers whatever failed before them: an implicit run's are mappings of the process
            if (bufA != null) {
                bufA.close();
            }
            if (bufB != null) {
                bufB.close();
            }
            if (pd != null) {
                pd.close();
            }
        }
    }

    /**
     * One side: episodes of the tool's own loop ({@link PingpongCompletions#busyPoll}, or with a
     * {@code channel} {@link PingpongCompletions#eventLoop}; a busy-polling warm-up yields the CPU
     * in its first phase, {@link #yieldingPoll}),
     * each a whole ping-pong run of {@link Episodes#length} round trips that ends as the tool's
     * run ends, the two sides meeting at {@link Episodes#next} between them. The side that starts
     * each run ({@code initiator}) plays the client.
     */
    private static void side(Device dev, QueuePair qp, QueuePair peer, Pair pair, CompletionQueue cq,
                             CompletionChannel channel, long tsMask, Buffers buf, int routs, int size,
                             boolean inline, boolean initiator, Episodes episodes) {
        SendWr swr = buf.swr;
        RecvWr rwr = buf.rwr;
        pair.address(swr, peer);
        swr.wrId = PingpongCommand.SEND_WRID;
        swr.opcode = WrOpcode.SEND;
        swr.sendFlags = SendFlags.SIGNALED | (inline ? SendFlags.INLINE : 0);
        PrintWriter quiet = new PrintWriter(java.io.Writer.nullWriter());
        // the tool's watch, with a short give-up: a UC message lost would leave both sides waiting
        CompletionWatch watch = CompletionWatch.of(quiet, "warm-up", 0, STALL_SECONDS, dev);
        PingpongCompletions.Sender sender = pair.sender(qp, swr);
        PingpongCompletions.PostRecvs receiver = new PingpongCompletions.PostRecvs(qp, rwr);
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
        int length;
        while ((length = episodes.length()) > 0) {
            PingpongCompletions wcs = new PingpongCompletions(quiet, length, RECV_DEPTH, 1, routs, null, sender,
                receiver, watch);
            wcs.expect(0, PingpongCommand.RECV_WRID);
            boolean ok = true;
            if (initiator) {
                ok = sender.post(0);
                wcs.expect(0, PingpongCommand.RECV_WRID | PingpongCommand.SEND_WRID);
            }
            if (tsMask != 0 && (channel != null || !episodes.yielding())) {
                PingpongTimestamps ts = new PingpongTimestamps(tsMask);
                ok = ok && timestampLoop(ts, wcs, cq, channel, watch) == 0;
                episodes.timestamped.addAndGet(ts.reads());
            } else {
                ok = ok && loop(wcs, cq, channel, wc, watch, episodes.yielding()) == 0;
            }
            if (wcs.events() > 0) {
                cq.ackEvents(wcs.events());
                episodes.events.addAndGet(wcs.events());
            }
            routs = wcs.outstandingReceives();
            if (!episodes.next(ok)) {
                return;
            }
            if (pair.renews()) {
                routs = RECV_DEPTH; // what Episodes#between posted
            }
        }
    }

    /** An episode's loop with completion time stamps: the run's own, events or busy polling. */
    private static int timestampLoop(PingpongTimestamps ts, PingpongCompletions wcs, CompletionQueue cq,
                                     CompletionChannel channel, CompletionWatch watch) {
        if (channel == null) {
            return ts.busyPoll(wcs, cq, watch);
        }
        try {
            return ts.eventLoop(wcs, channel, cq, watch);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** An episode's loop: the run's own (events or busy polling), or the yielding one before it. */
    static int loop(PingpongCompletions wcs, CompletionQueue cq, CompletionChannel channel, WorkCompletion[] wc,
                    CompletionWatch watch, boolean yielding) {
        if (channel != null) {
            try {
                return wcs.eventLoop(channel, cq, wc);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }
        return yielding ? yieldingPoll(wcs, cq, wc, watch) : wcs.busyPoll(cq, wc);
    }

    /**
     * {@link PingpongCompletions#busyPoll} that yields the CPU after each empty poll: while both
     * processes warm up, four threads busy-poll on what may be 2 cores beside the compiler
     * threads, and without yielding each round trip waits for a time slice.
     */
    static int yieldingPoll(PingpongCompletions wcs, CompletionQueue cq, WorkCompletion[] wc,
                                    CompletionWatch watch) {
        while (wcs.running()) {
            int ne;
            while ((ne = cq.poll(wc)) < 1) {
                if (!watch.keepPolling()) {
                    return -1;
                }
                Thread.yield();
            }
            for (int i = 0; i < ne; i++) {
                if (!wcs.complete(wc[i].wrId, wc[i].status, wc[i].qpNum)) {
                    return ne;
                }
            }
        }
        return 0;
    }

    /**
     * The warm-up's plan, shared by its two sides: how long each episode is, the pause after it,
     * and when to stop. The first episodes are short and followed by a pause longer than an
     * engine's idle time before its deep sleep (200 ms), so that the branches of a device coming
     * back from that sleep are profiled before the JIT compiles its hot methods for good: the
     * measured run starts from there (the device idles while the peers exchange addresses). Later
     * episodes are longer, yield the CPU when a poll finds nothing, and pause shortly, so that the
     * compiler threads have the CPU, until the JIT has been quiet for {@link JitQuiet#QUIET_NANOS}
     * or only {@link #BUSY_RESERVE_NANOS} of the budget is left; then short episodes of the tool's
     * busy-polling loop until the JIT is quiet again; then {@link #CONFIRMATIONS} episodes, each
     * after a deep-sleep pause and {@link #CONFIRMING_EPISODE} round trips long (time for the JIT to
     * compile again what a trap in them threw away), must compile nothing, as the measured run should. The budget and the round trips
     * bound all of it. A warm-up with completion events waits for them in every episode: its
     * phases differ only in their lengths and pauses.
     */
    static final class Episodes {
        private final java.util.concurrent.CyclicBarrier meet = new java.util.concurrent.CyclicBarrier(2, this::decide);
        private final JitQuiet jit;
        private final int maxRoundTrips;
        private final long deadline;
        /** When the yielding phase ends whatever the JIT does, so that the busy one has its reserve. */
        private final long busyBy;
        private volatile int length;
        private volatile boolean yielding = true;
        private int episode;
        private int roundTrips;
        private int busyRoundTrips;
        private boolean failed;
        private boolean confirming;
        private int confirmed;
        private long compiledBefore;

        /** Completions both sides read with their time stamps ({@code -t}). */
        final java.util.concurrent.atomic.AtomicLong timestamped = new java.util.concurrent.atomic.AtomicLong();

        /** Completion events both sides took. */
        final java.util.concurrent.atomic.AtomicInteger events = new java.util.concurrent.atomic.AtomicInteger();

        /** Run by the barrier before each further episode, both sides idle (null: nothing). */
        Runnable between;

        Episodes(int maxRoundTrips, long deadline) {
            this(maxRoundTrips, deadline, new JitQuiet());
        }

        Episodes(int maxRoundTrips, long deadline, JitQuiet jit) {
            this.jit = jit;
            this.maxRoundTrips = maxRoundTrips;
            this.deadline = deadline;
            this.busyBy = deadline - BUSY_RESERVE_NANOS;
            this.length = Math.min(SHORT_EPISODE, maxRoundTrips);
        }

        /** Whether the next episode yields the CPU when it finds nothing (the first phase). */
        boolean yielding() {
            return yielding;
        }

        /** Round trips of the next episode; 0 to stop. */
        int length() {
            return length;
        }

        int roundTrips() {
            return roundTrips;
        }

        int busyRoundTrips() {
            return busyRoundTrips;
        }

        /** A side failed outside an episode: the other one stops at its next meeting, or now. */
        void abandon() {
            length = 0;
            meet.reset();
        }

        /** A side finished an episode ({@code ok}: as the tool's run ends); false to stop. */
        boolean next(boolean ok) {
            if (length == 0) {
                return false; // abandoned
            }
            if (!ok) {
                failed = true; // read by decide(), which the barrier runs after both arrived
            }
            try {
                meet.await(MEET_TIMEOUT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                length = 0;
                meet.reset();
            } catch (java.util.concurrent.BrokenBarrierException | java.util.concurrent.TimeoutException e) {
                length = 0;
                meet.reset();
            }
            return length > 0;
        }

        /** Run by the barrier, once both sides finished an episode: the next length, and the pause. */
        private void decide() {
            roundTrips += length;
            if (!yielding) {
                busyRoundTrips += length;
            }
            episode++;
            long now = System.nanoTime();
            if (failed || now - deadline > 0 || roundTrips >= maxRoundTrips) {
                length = 0;
                return;
            }
            long compiled = jit.total();
            boolean confirmAgain = false;
            if (confirming) {
                if (compiled == compiledBefore && ++confirmed >= CONFIRMATIONS) {
                    length = 0; // episodes after a deep sleep compiled nothing: warm
                    return;
                }
                confirmAgain = compiled == compiledBefore;
                if (!confirmAgain) {
                    confirming = false;
                    confirmed = 0;
                }
            }
            int next;
            if (confirmAgain) {
                // once more: an episode that compiled nothing may still have thrown code away (a
                // branch of the wake from deep sleep compiled as never taken), and what runs
                // interpreted since is compiled again in the next one
                next = confirmingEpisode(compiled);
            } else if (episode <= DEEP_SLEEP_EPISODES) {
                next = SHORT_EPISODE;
                pause(DEEP_SLEEP_PAUSE_NANOS);
            } else if (yielding && (roundTrips >= MIN_ROUND_TRIPS && jit.quiet() || now - busyBy > 0)) {
                // the shared code is compiled (or the budget's end nears): now the tool's own
                // loop, busy-polling
                yielding = false;
                next = SHORT_EPISODE;
                pause(SHORT_PAUSE_NANOS);
            } else if (!yielding && jit.quiet()) {
                confirming = true;
                next = confirmingEpisode(compiled);
            } else {
                next = yielding ? LONG_EPISODE : SHORT_EPISODE;
                pause(SHORT_PAUSE_NANOS);
            }
            length = Math.min(next, maxRoundTrips - roundTrips);
            if (between != null) {
                try {
                    between.run();
                } catch (RuntimeException e) {
                    length = 0; // a warm-up that fails only ends the warm-up
                }
            }
        }

        /**
         * Pauses for a deep sleep before a confirming episode, whose compilations are counted from
         * {@code compiled}, the end of the episode before (one it queued may finish in the pause).
         */
        private int confirmingEpisode(long compiled) {
            compiledBefore = compiled;
            pause(DEEP_SLEEP_PAUSE_NANOS);
            return CONFIRMING_EPISODE;
        }

        private void pause(long nanos) {
            if (System.nanoTime() + nanos - deadline < 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(nanos);
            }
        }
    }

    static void join(Thread t) {
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
}
