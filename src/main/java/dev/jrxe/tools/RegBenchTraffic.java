package dev.jrxe.tools;

import dev.jrxe.internal.Internals;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.KeyTable;
import dev.jrxe.memory.MemoryConfig;
import dev.jrxe.memory.MemoryRegions;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.memory.Region;
import dev.jrxe.ib.Errno;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.PostException;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The traffic half of {@code reg-bench}: two jrxe devices in this process joined by one RC QP; the
 * requester (device A) RDMA-WRITEs from pinned memory into device B, either into cold or warm
 * implicit ODP memory (first-touch cost per 2 MiB child) or, for bandwidth, into a window of
 * pinned memory and a window of implicit ODP memory, both from jrxe's allocator.
 */
final class RegBenchTraffic implements AutoCloseable {
    /** Hang guard for one completion; a healthy loopback WRITE completes in microseconds. */
    private static final long COMPLETION_TIMEOUT_NANOS = 30_000_000_000L;
    static final int TARGET_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE;

    /** Where the devices live and how the QP is set up. */
    record Setup(String ipA, String ipB, int udpPort, int mtuEnum, int maxInFlight, int maxWriteBytes) {
    }

    /**
     * Paired first-touch samples: for each chunk, one WRITE into it while cold (child creation and
     * page fault on the responder) and right after it the same WRITE again (warm).
     */
    record FirstTouch(int chunks, int writeBytes, long coldMedianNs, long coldP95Ns, long warmMedianNs,
                      long extraMedianNs, long childrenCreated) {
    }

    /** Steady-state WRITE bandwidth per round, in GB/s (10^9 bytes per second). */
    record Bandwidth(int writeBytes, int inFlight, long windowBytes, double secondsPerRound, double[] pinnedGbps,
                     double[] implicitGbps) {
        double pinnedMedian() {
            return median(pinnedGbps);
        }

        double implicitMedian() {
            return median(implicitGbps);
        }

        double pinnedBest() {
            return Arrays.stream(pinnedGbps).max().orElse(0);
        }

        double implicitBest() {
            return Arrays.stream(implicitGbps).max().orElse(0);
        }

        /**
         * Median over rounds of implicit / pinned within the round: the two runs of a round are
         * back to back, so load that drifts over seconds cancels out.
         */
        double pairedRatio() {
            double[] r = new double[pinnedGbps.length];
            for (int i = 0; i < r.length; i++) {
                r[i] = implicitGbps[i] / pinnedGbps[i];
            }
            return median(r);
        }

        private static double median(double[] v) {
            double[] s = v.clone();
            Arrays.sort(s);
            return s.length == 0 ? 0 : (s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2);
        }
    }

    private final Arena arena = Arena.ofShared();
    private final Device a;
    private final Device b;
    private final MemoryRegion source;
    private final MemoryRegion implicit;
    private final CompletionQueue cq;
    private final QueuePair qa;
    private final QueuePair qb;
    private final SendWr wr = new SendWr(1);
    private final WorkCompletion[] wc;

    RegBenchTraffic(Setup setup) {
        Device da = null;
        Device db = null;
        try {
            da = Device.open(DeviceConfig.of("jrxe-bench-a", setup.ipA()).udpPort(setup.udpPort()));
            db = Device.open(DeviceConfig.of("jrxe-bench-b", setup.ipB()).udpPort(setup.udpPort()));
            ProtectionDomain pda = da.allocPd();
            ProtectionDomain pdb = db.allocPd();
            MemorySegment src = arena.allocate(Math.max(setup.maxWriteBytes(), 4096), 4096);
            src.fill((byte) 0x5a);
            source = pda.registerMemory(src, Access.LOCAL_WRITE);
            implicit = pdb.registerMemory(0, -1L, Access.ON_DEMAND | TARGET_ACCESS);
            cq = da.createCq(Math.max(16, setup.maxInFlight() * 2));
            CompletionQueue cqb = db.createCq(16);
            // room beyond the WRITEs in flight: the engine frees a send slot just after it posts the
            // completion, so a slot may still look taken right after its completion was polled
            QpCap cap = new QpCap(setup.maxInFlight() * 2, 1, 1, 1, 0);
            qa = pda.createQp(new QpInitAttr(QpType.RC, cq, cq, cap));
            qb = pdb.createQp(new QpInitAttr(QpType.RC, cqb, cqb, new QpCap(1, 1, 1, 1, 0)));
            new RcConnect().pathMtu(setup.mtuEnum()).pair(qa, 0x100, qb, 0x200);
            a = da;
            b = db;
        } catch (RuntimeException e) {
            if (da != null) {
                da.close();
            }
            if (db != null) {
                db.close();
            }
            arena.close();
            throw e;
        }
        wc = new WorkCompletion[Math.max(16, setup.maxInFlight())];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        wr.opcode = WrOpcode.RDMA_WRITE;
        wr.sendFlags = SendFlags.SIGNALED;
    }


    /**
     * First touch: {@code chunks} fresh 2 MiB chunks of one new mapping; into each, a WRITE of
     * {@code writeBytes} while cold, then the same WRITE again. A first pass over a scratch mapping
     * (unmapped afterwards) runs the cold path until it is compiled.
     */
    FirstTouch firstTouch(int chunks, int writeBytes, Consumer<String> progress) {
        long chunk = NativeMemory.GRANULE;
        MemorySegment scratch = NativeMemory.map(chunks * chunk);
        try {
            for (int i = 0; i < chunks; i++) {
                write(scratch.address() + i * chunk, writeBytes, implicit.rkey());
                write(scratch.address() + i * chunk, writeBytes, implicit.rkey());
            }
        } finally {
            NativeMemory.unmap(scratch);
        }
        progress.accept("reg-bench: first touch, " + chunks + " chunks");
        MemorySegment target = NativeMemory.map(chunks * chunk);
        try {
            long createdBefore = Internals.keys(b).counters().childrenCreated();
            long[] cold = new long[chunks];
            long[] warm = new long[chunks];
            long[] extra = new long[chunks];
            for (int i = 0; i < chunks; i++) {
                long addr = target.address() + i * chunk;
                cold[i] = write(addr, writeBytes, implicit.rkey());
                warm[i] = write(addr, writeBytes, implicit.rkey());
                extra[i] = cold[i] - warm[i];
            }
            long created = Internals.keys(b).counters().childrenCreated() - createdBefore;
            Arrays.sort(cold);
            Arrays.sort(warm);
            Arrays.sort(extra);
            return new FirstTouch(chunks, writeBytes, rank(cold, 0.5), rank(cold, 0.95), rank(warm, 0.5),
                rank(extra, 0.5), created);
        } finally {
            NativeMemory.unmap(target);
        }
    }

    /**
     * Bandwidth: per round, {@code seconds} of {@code writeBytes} WRITEs with {@code inFlight}
     * outstanding, cycling through a window of {@code window} bytes; each round runs both kinds,
     * which goes first alternating (pinned-implicit, implicit-pinned, ...), so that both see the
     * same (shared, noisy) machine. Each window is written once, untimed,
     * before the first round (steady state: pages present, children live).
     */
    Bandwidth bandwidth(int writeBytes, int inFlight, long window, double seconds, int rounds,
                        Consumer<String> progress) {
        MemorySegment pinnedMem = NativeMemory.map(window);
        MemorySegment implicitMem = NativeMemory.map(window);
        MemoryRegion pinned = null;
        try {
            pinned = qb.pd().registerMemory(pinnedMem, TARGET_ACCESS);
            long nanos = (long) (seconds * 1e9);
            stream(pinnedMem.address(), window, pinned.rkey(), writeBytes, inFlight, 0);
            stream(implicitMem.address(), window, implicit.rkey(), writeBytes, inFlight, 0);
            double[] p = new double[rounds];
            double[] i = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                progress.accept("reg-bench: bandwidth round " + (r + 1) + "/" + rounds);
                if (r % 2 == 0) {
                    p[r] = stream(pinnedMem.address(), window, pinned.rkey(), writeBytes, inFlight, nanos);
                    i[r] = stream(implicitMem.address(), window, implicit.rkey(), writeBytes, inFlight, nanos);
                } else {
                    i[r] = stream(implicitMem.address(), window, implicit.rkey(), writeBytes, inFlight, nanos);
                    p[r] = stream(pinnedMem.address(), window, pinned.rkey(), writeBytes, inFlight, nanos);
                }
            }
            return new Bandwidth(writeBytes, inFlight, window, seconds, p, i);
        } finally {
            if (pinned != null) {
                pinned.close();
            }
            NativeMemory.unmap(pinnedMem);
            NativeMemory.unmap(implicitMem);
        }
    }

    /**
     * WRITEs through the window with up to {@code inFlight} outstanding, for {@code nanos}
     * (0: exactly one pass over the window); returns GB/s of completed WRITEs.
     */
    private double stream(long base, long window, int rkey, int writeBytes, int inFlight, long nanos) {
        long slots = Math.max(1, window / writeBytes);
        long posted = 0;
        long completed = 0;
        long start = System.nanoTime();
        long stopAt = start + nanos;
        boolean posting = true;
        wr.sge(source.addr(), writeBytes, source.lkey());
        wr.rkey = rkey;
        while (posting || completed < posted) {
            while (posting && posted - completed < inFlight) {
                wr.wrId = posted;
                wr.remoteAddr = base + (posted % slots) * writeBytes;
                post();
                posted++;
                if (nanos == 0 ? posted == slots : (posted & 15) == 0 && System.nanoTime() - stopAt >= 0) {
                    posting = false;
                }
            }
            completed += reap();
        }
        long elapsed = System.nanoTime() - start;
        return completed * (double) writeBytes / elapsed;
    }

    /** One signalled WRITE; returns post-to-completion nanoseconds. */
    private long write(long remoteAddr, int length, int rkey) {
        wr.wrId = -1;
        wr.sge(source.addr(), length, source.lkey());
        wr.rdma(remoteAddr, rkey);
        long t0 = System.nanoTime();
        post();
        reap();
        return System.nanoTime() - t0;
    }

    /** Posts {@link #wr}, waiting out a send queue that is full only because a slot is not freed yet. */
    private void post() {
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT_NANOS;
        while (true) {
            try {
                qa.postSend(wr);
                return;
            } catch (PostException e) {
                if (e.errno() != Errno.ENOMEM || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.onSpinWait();
            }
        }
    }

    /** Polls the requester's CQ once (waiting up to the hang guard for something); fails on errors. */
    private int reap() {
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT_NANOS;
        int n;
        while ((n = cq.poll(wc)) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no WRITE completion within 30 s (QP " + qa.transportState() + ")");
            }
        }
        for (int i = 0; i < n; i++) {
            if (wc[i].status != WcStatus.SUCCESS) {
                throw new IllegalStateException("RDMA WRITE failed: " + WcStatus.str(wc[i].status));
            }
        }
        return n;
    }

    /**
     * What the responder's memory path costs per packet: best-of-rounds nanoseconds of one
     * {@code packetBytes} write into a warm window through a pinned region and through an
     * implicit ODP key (the only part of a WRITE that differs between the two), without the
     * network. Returns {pinned, implicit}.
     */
    static double[] packetCopyNs(int packetBytes, long window, int writesPerRound, int rounds) {
        KeyTable table = new KeyTable(MemoryConfig.fromConfiguration());
        MemorySegment pinnedMem = NativeMemory.map(window);
        MemorySegment implicitMem = NativeMemory.map(window);
        try (Arena local = Arena.ofConfined()) {
            MemorySegment src = local.allocate(packetBytes, 4096);
            Region[] regions = {MemoryRegions.register(table, 1, pinnedMem, TARGET_ACCESS),
                MemoryRegions.registerImplicit(table, 1, TARGET_ACCESS)};
            long[] bases = {pinnedMem.address(), implicitMem.address()};
            long slots = Math.max(1, window / packetBytes);
            double[] best = {Double.MAX_VALUE, Double.MAX_VALUE};
            for (int round = 0; round <= rounds; round++) { // round 0 warms up (and faults the windows in)
                for (int k = 0; k < 2; k++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < writesPerRound; i++) {
                        int st = regions[k].write(1, Access.LOCAL_WRITE, bases[k] + (i % slots) * packetBytes, src, 0,
                            packetBytes);
                        if (st != 0) {
                            throw new IllegalStateException("write through " + regions[k].kind() + " failed: " + st);
                        }
                    }
                    double ns = (System.nanoTime() - t0) / (double) writesPerRound;
                    if (round > 0) {
                        best[k] = Math.min(best[k], ns);
                    }
                }
            }
            table.deregisterAll();
            return best;
        } finally {
            NativeMemory.unmap(pinnedMem);
            NativeMemory.unmap(implicitMem);
        }
    }

    /**
     * The page fault alone: median nanoseconds of one CPU store into each of {@code chunks} fresh
     * 2 MiB chunks of a new mapping from jrxe's allocator (no jrxe involved), for comparison.
     */
    static long plainFirstTouchNs(int chunks) {
        long chunk = NativeMemory.GRANULE;
        MemorySegment m = NativeMemory.map(chunks * chunk);
        try {
            long[] t = new long[chunks];
            for (int i = 0; i < chunks; i++) {
                long t0 = System.nanoTime();
                m.set(ValueLayout.JAVA_BYTE, i * chunk, (byte) 1);
                t[i] = System.nanoTime() - t0;
            }
            Arrays.sort(t);
            return rank(t, 0.5);
        } finally {
            NativeMemory.unmap(m);
        }
    }

    private static long rank(long[] sorted, double q) {
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    @Override
    public void close() {
        qa.close();
        qb.close();
        a.close();
        b.close();
        arena.close();
    }
}
