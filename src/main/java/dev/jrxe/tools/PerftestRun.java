package dev.jrxe.tools;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.memory.NativeMemory;
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
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One side of a perftest run on a device: the QPs and the buffer laid out as perftest lays them
 * out, their connection, and the traffic loops of perftest's {@code run_iter_bw},
 * {@code run_iter_bi} (SEND both ways), {@code run_iter_lat_write}, {@code run_iter_lat_send} and
 * {@code run_iter_lat} (READ), with their duration modes. Time is {@link System#nanoTime()} where
 * perftest counts CPU cycles.
 */
final class PerftestRun implements AutoCloseable {
    /** What a run is asked for. */
    record Params(PerftestTest test, int maxSize, int iters, int txDepth, int rxDepth, int cqMod, int qps,
                  boolean uc, int mtu, int gidIndex, boolean cmpAndSwap, int timeout, int cycleBuffer, int cacheLine,
                  int postList, boolean ud) {
        /** The same run over RC or UC ({@code ud} false). */
        Params(PerftestTest test, int maxSize, int iters, int txDepth, int rxDepth, int cqMod, int qps, boolean uc,
               int mtu, int gidIndex, boolean cmpAndSwap, int timeout, int cycleBuffer, int cacheLine, int postList) {
            this(test, maxSize, iters, txDepth, rxDepth, cqMod, qps, uc, mtu, gidIndex, cmpAndSwap, timeout, cycleBuffer,
                cacheLine, postList, false);
        }
    }

    /** perftest's UD Q_Key (DEF_QKEY). */
    static final int UD_QKEY = 0x11111111;
    /** What a UD receive needs before the message: the GRH area (perftest's UD_ADDITION). */
    static final int UD_GRH = 40;

    /** How long a run may go without a completion before it gives up (a peer that vanished). */
    static final long STALL_NANOS = 10_000_000_000L;
    /** This run's {@link #STALL_NANOS} (a warm-up's is shorter). */
    private final long stallNanos;

    final Params p;
    final Device dev;
    final int outReads;
    private final MemorySegment buf;
    /** Made in the constructor; null only while it runs (what {@link #close} finds made is released). */
    private MemoryRegion mr;
    private ProtectionDomain pd;
    /** Whether rdma_cm makes and connects the QPs (perftest's -R): {@link #adopt}; their CM ids own them. */
    private final boolean cmQps;
    /** UD: the address handle toward each peer QP (made in {@link #connect}). */
    private AddressHandle[] ahs;
    /** One CQ per engine of the device: QP i completes on {@code cqs[i % cqs.length]}, on engine i % K. */
    private final CompletionQueue[] cqs;
    /** The CQ the next {@link #poll} looks at first (they take turns). */
    private int nextCq;
    final QueuePair[] qps;
    final PerftestRecord[] mine;
    private PerftestRecord[] remote;
    /** BUFF_SIZE: one QP's slot, INC(max(size, cycle buffer)). */
    private final long slot;
    private final WorkCompletion[] wc = new WorkCompletion[16];
    private final SendWr wr = new SendWr(1);
    /** perftest's -l: the requests one post carries (a chain through {@link SendWr#next}). */
    private final SendWr[] list;
    private final RecvWr rwr = new RecvWr(1);
    /** Per QP, the receives posted since {@link #postReceives} (so where the next one goes) and the messages received. */
    private final long[] recvPosted;
    private final long[] recvDone;

    /**
     * One side of a run on {@code d} (the caller's, to close after this): the PD, the buffer laid
     * out as perftest's and registered, the CQs, and unless {@code cmQps} the QPs (RC and UC in
     * INIT) with their records; with {@code cmQps} rdma_cm makes the QPs from {@link #qpInitAttr}
     * and hands them over with {@link #adopt}.
     */
    PerftestRun(Device d, Params p, boolean cmQps) {
        this(d, p, cmQps, STALL_NANOS);
    }

    /** As {@link #PerftestRun(Device, Params, boolean)}, giving up after {@code stallNanos} without a completion. */
    PerftestRun(Device d, Params p, boolean cmQps, long stallNanos) {
        this.p = p;
        this.stallNanos = stallNanos;
        this.dev = d;
        this.cmQps = cmQps;
        this.outReads = p.test().readsOrAtomics() ? d.query().maxQpRdAtom : 1;
        // a UD receive takes the GRH area before the message
        this.slot = inc(Math.max(p.maxSize() + (p.ud() ? UD_GRH : 0), p.cycleBuffer()));
        // a CQ per engine: QPs that share a CQ share an engine, so this spreads them
        this.cqs = new CompletionQueue[Math.min(d.engines(), p.qps())];
        this.qps = new QueuePair[p.qps()];
        this.mine = new PerftestRecord[p.qps()];
        this.recvPosted = new long[p.qps()];
        this.recvDone = new long[p.qps()];
        try {
            // jrxe's allocator (page-aligned, as perftest's): its memory is copied directly and
            // payloads of 1 KiB and more leave from where they lie (docs/BENCHMARKS.md)
            this.buf = NativeMemory.map(slot * 2 * p.qps());
            this.pd = d.allocPd();
            this.mr = pd.registerMemory(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
                | Access.REMOTE_ATOMIC);
            int depth = p.txDepth() + (p.test().verb == PerftestTest.Verb.SEND ? p.rxDepth() : 1);
            int perCq = (p.qps() + cqs.length - 1) / cqs.length;
            for (int i = 0; i < cqs.length; i++) {
                cqs[i] = d.createCq(Math.min(32767, depth * perCq + 16));
            }
            for (int i = 0; i < p.qps() && !cmQps; i++) {
                qps[i] = pd.createQp(qpInitAttr(i));
                if (!p.ud()) {
                    connector().toInit(qps[i]);
                }
                mine[i] = record(i, ThreadLocalRandom.current().nextInt(1 << 24));
            }
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            this.list = new SendWr[Math.max(1, p.postList())];
            for (int i = 0; i < list.length; i++) {
                list[i] = new SendWr(1);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** What QP {@code i} is made with: the test's type, CQ {@code i % K} for both queues, tx and rx depth. */
    QpInitAttr qpInitAttr(int i) {
        int rx = p.test().verb == PerftestTest.Verb.SEND ? p.rxDepth() : 1;
        CompletionQueue cq = cqs[i % cqs.length];
        return new QpInitAttr(p.ud() ? QpType.UD : p.uc() ? QpType.UC : QpType.RC, cq, cq,
            new QpCap(p.txDepth(), rx, 1, 1, 0));
    }

    /** The PD the QPs are made in. */
    ProtectionDomain pd() {
        return pd;
    }

    /** QP {@code i} as rdma_cm made and connected it (-R): its record carries the PSN the CM gave it. */
    void adopt(int i, QueuePair qp) {
        qps[i] = qp;
        mine[i] = record(i, qp.query().sqPsn);
    }

    /** The record ({@code struct pingpong_dest}) of QP {@code i}: it targets its slot of the second half. */
    private PerftestRecord record(int i, int psn) {
        return new PerftestRecord(0, outReads, qps[i].qpNum(), psn, mr.rkey(), buf.address() + (p.qps() + i) * slot,
            dev.queryGid(1, p.gidIndex()), 0);
    }

    /** Polls the CQs in turn from the one after the last that had completions; what the first non-empty one gave. */
    private int poll(WorkCompletion[] into) {
        for (int i = 0; i < cqs.length; i++) {
            int c = nextCq;
            nextCq = c + 1 == cqs.length ? 0 : c + 1;
            int got = cqs[c].poll(into);
            if (got > 0) {
                return got;
            }
        }
        return 0;
    }

    /** INC(s): rounded up to the cache line, at least one line. */
    long inc(long size) {
        long line = p.cacheLine();
        return Math.max(line, (size + line - 1) / line * line);
    }

    /** How far apart consecutive requests' buffers lie: INC(size), every 64 bytes for atomics (perftest's). */
    long step(int size) {
        return p.test().verb == PerftestTest.Verb.ATOMIC ? 64 : inc(size);
    }

    /**
     * After how many requests the addresses start over: the cycle buffer's worth when a message
     * fits in it twice, else every request at the same address. Over UD always the same address,
     * on both sides: a UD receive takes the GRH before the message, so receives a message apart
     * (perftest's) would overlap, and the data check could not tell which message it finds.
     */
    long wrap(int size) {
        return !p.ud() && size <= p.cycleBuffer() / 2 ? Math.max(1, p.cycleBuffer() / step(size)) : 1;
    }

    private RcConnect connector() {
        int access = switch (p.test().verb) {
            case WRITE -> Access.LOCAL_WRITE | Access.REMOTE_WRITE;
            case SEND -> Access.LOCAL_WRITE | Access.REMOTE_WRITE;
            case READ -> Access.LOCAL_WRITE | Access.REMOTE_READ;
            case ATOMIC -> Access.LOCAL_WRITE | Access.REMOTE_ATOMIC;
        };
        return new RcConnect().accessFlags(access).pathMtu(p.mtu()).timeout(p.timeout()).retries(7, 7).minRnrTimer(12);
    }

    /** RTR then RTS toward the peer's records (perftest's ctx_connect); with rdma_cm's QPs, only where to write. */
    void connect(PerftestRecord[] peers) {
        this.remote = peers;
        if (cmQps) {
            return;
        }
        if (p.ud()) {
            // UD: to RTS with perftest's Q_Key; each QP sends through an address handle toward its peer
            ahs = new AddressHandle[qps.length];
            for (int i = 0; i < qps.length; i++) {
                UdSetup.toRts(qps[i], UD_QKEY, mine[i].psn());
                ahs[i] = pd.createAh(new AhAttr(peers[i].gid(), p.gidIndex()));
            }
            return;
        }
        for (int i = 0; i < qps.length; i++) {
            // the peer's outstanding reads, within what this device can have in flight
            int initiator = Math.min(Math.max(1, peers[i].outReads()), dev.query().maxQpRdAtom);
            RcConnect c = connector().rdAtomic(initiator, outReads);
            c.toRts(qps[i], mine[i].psn(), peers[i].gid(), peers[i].qpn(), peers[i].psn());
        }
    }

    /**
     * Posts every QP's receives for a SEND test ({@code rxDepth} each), the first of a run of
     * {@code size}: the counts of receives posted and messages received start again.
     */
    void postReceives(int size) {
        java.util.Arrays.fill(recvPosted, 0);
        java.util.Arrays.fill(recvDone, 0);
        for (int q = 0; q < qps.length; q++) {
            for (int i = 0; i < p.rxDepth(); i++) {
                postRecv(q, size);
            }
        }
    }

    private void postRecv(int q, int size) {
        postRecv(rwr, q, size);
    }

    /**
     * Posts the next receive of QP {@code q} into its slot of the second half, through {@code r}
     * (a thread's own). A BW test's receives step through the slot as the sender's messages do
     * (perftest's increase_loc_addr in ctx_set_recv_wqes and run_iter_bw_server), so message k
     * lands where it was sent from; UD's ({@link #wrap}), and a latency test's, all take the slot's start.
     */
    private void postRecv(RecvWr r, int q, int size) {
        long at = p.test().bw ? recvPosted[q] % wrap(size) * step(size) : 0;
        recvPosted[q]++;
        r.wrId = q;
        r.sge(buf.address() + (qps.length + q) * slot + at, Math.max(size, 1) + (p.ud() ? UD_GRH : 0), mr.lkey());
        qps[q].postRecv(r);
    }

    /**
     * One step of a bidirectional duration client's wait for the server to stop (its
     * {@link PerftestOob.Meanwhile}): the server's clock started with the first message, later than
     * this side's, so it sends on after this side has stopped; each receive that completes is posted
     * again so that none of its messages finds the queue empty (an RNR NAK it would retry until its
     * stall timeout). Polls every CQ once.
     */
    void receiveMeanwhile(int size) throws IOException {
        for (CompletionQueue cq : cqs) {
            int got = cq.poll(wc);
            for (int i = 0; i < got; i++) {
                check(wc[i]);
                if (wc[i].opcode == WcOpcode.RECV) {
                    postRecv(received(wc[i]), size);
                }
            }
        }
    }

    /** A receive of QP {@code c.wrId} completed: counted; its QP. */
    private int received(WorkCompletion c) {
        int q = (int) c.wrId;
        recvDone[q]++;
        return q;
    }

    // ------------------------------------------------------------------ data check (jrxe's --check)

    /** The byte the data check expects at offset {@code o} of a slot. */
    static byte pattern(long o) {
        return (byte) (o * 131 + 17);
    }

    /** Whether {@link #fillSources} filled this side's sources with the pattern. */
    private boolean filled;

    /** Fills the halves this side's requests read from (its first for WRITE/SEND, its second for a READ peer). */
    void fillSources(boolean client, boolean duplex) {
        boolean sendsData = duplex ? p.test().verb != PerftestTest.Verb.ATOMIC : switch (p.test().verb) {
            case WRITE -> client || !p.test().bw;
            case SEND -> client || !p.test().bw;
            case READ -> !client;
            case ATOMIC -> false;
        };
        if (!sendsData) {
            return;
        }
        filled = true;
        long base = p.test().verb == PerftestTest.Verb.READ ? qps.length * slot : 0;
        for (int q = 0; q < qps.length; q++) {
            MemorySegment m = buf.asSlice(base + q * slot, slot);
            for (long o = 0; o < slot; o++) {
                m.set(ValueLayout.JAVA_BYTE, o, pattern(o));
            }
        }
    }

    /**
     * After a run of {@code size}: checks what landed here (the second half for WRITE, SEND and
     * atomics, the first for READ) against what the peer sent; returns the bytes checked, or throws.
     */
    long verify(int size, boolean client, boolean duplex) throws IOException {
        PerftestTest t = p.test();
        boolean target = duplex || switch (t.verb) {
            case WRITE, SEND -> !client || !t.bw;
            case READ -> client;
            case ATOMIC -> !client;
        };
        if (!target) {
            return 0;
        }
        long checked = 0;
        long step = step(size);
        long wrap = wrap(size);
        int nq = t.bw ? qps.length : 1;
        for (int q = 0; q < nq; q++) {
            // a UD message lands after the GRH area
            long base = (t.verb == PerftestTest.Verb.READ ? 0 : qps.length * slot) + q * slot + (p.ud() ? UD_GRH : 0);
            MemorySegment m = buf.asSlice(base, slot - (p.ud() ? UD_GRH : 0));
            if (t.verb == PerftestTest.Verb.ATOMIC) {
                long sum = 0;
                for (long k = 0; k < wrap; k++) {
                    sum += m.get(ValueLayout.JAVA_LONG_UNALIGNED, k * 64);
                }
                long want = p.cmpAndSwap() ? 0 : p.iters();
                if (sum != want) {
                    throw new IOException("data check: the " + (p.cmpAndSwap() ? "compare-and-swaps" : "fetch-and-adds")
                        + " left a sum of " + sum + " in QP " + q + "'s buffer, not " + want);
                }
                checked += wrap * 8;
                continue;
            }
            // SEND: what the receives of this run took, each where its message was sent from
            long segments = !t.bw ? 1 : Math.min(t.verb == PerftestTest.Verb.SEND ? recvDone[q] : p.iters(), wrap);
            for (long k = 0; k < segments; k++) {
                long at = k * step;
                // write latency: the last byte is the iteration counter, checked below
                long len = !t.bw && t.verb == PerftestTest.Verb.WRITE ? size - 1 : size;
                for (long o = 0; o < len; o++) {
                    if (m.get(ValueLayout.JAVA_BYTE, at + o) != pattern(at + o)) {
                        throw new IOException("data check: byte " + (at + o) + " of QP " + q + "'s buffer is "
                            + m.get(ValueLayout.JAVA_BYTE, at + o) + ", not " + pattern(at + o));
                    }
                }
                checked += len;
                if (!t.bw && t.verb == PerftestTest.Verb.WRITE) {
                    // the peer's counter: its writes this side saw; after a duration run maybe one more
                    byte last = m.get(ValueLayout.JAVA_BYTE, size - 1);
                    if (last != (byte) writesSeen && !(peerMayWriteAgain && last == (byte) (writesSeen + 1))) {
                        throw new IOException("data check: the last iteration byte is " + last + ", not "
                            + (byte) writesSeen);
                    }
                }
            }
        }
        return checked;
    }

    // ------------------------------------------------------------------ bandwidth

    /**
     * The client's bandwidth loop: every QP posts {@code iters} requests, up to tx depth in flight.
     * With {@code receives} (bidirectional SEND, perftest's run_iter_bi) it also takes the peer's
     * {@code iters} messages per QP, reposting receives until that many were posted, and ends when
     * they have come too; the report is of its own sends. With {@code afterFirstReceive} (the
     * server of run_iter_bi) it posts nothing before the peer's first message has come.
     */
    PerftestOob.Report bwClient(int size, boolean gbits, boolean receives, boolean afterFirstReceive) throws IOException {
        int n = p.iters();
        int nq = qps.length;
        long toReceive = receives ? (long) n * nq : 0;
        long[] posted = new long[n * nq];
        long[] completed = new long[n * nq];
        int[] scnt = new int[nq];
        int[] ccnt = new int[nq];
        long step = step(size);
        long wrap = wrap(size);
        int cqMod = p.cqMod();
        long last = System.nanoTime();
        int done = 0;
        boolean sending = !afterFirstReceive;
        while (done < nq || toReceive > 0) {
            for (int q = 0; q < nq && sending; q++) {
                int l = list.length;
                while (scnt[q] < n && scnt[q] - ccnt[q] + l <= p.txDepth()) {
                    int count = Math.min(l, n - scnt[q]);
                    long t = System.nanoTime();
                    for (int j = 0; j < count; j++) {
                        int k = scnt[q] + j;
                        long off = (k % wrap) * step;
                        boolean signal = (k + 1) % cqMod == 0 || k == n - 1;
                        fill(list[j], q, size, off, signal, ((long) q << 32) | k);
                        list[j].next = j + 1 < count ? list[j + 1] : null;
                        posted[q * n + k] = t;
                    }
                    qps[q].postSend(list[0]); // one post, one doorbell, for the whole list
                    scnt[q] += count;
                }
            }
            int got = poll(wc);
            long now = System.nanoTime();
            if (got == 0) {
                stalled(now, last);
                continue;
            }
            last = now;
            for (int i = 0; i < got; i++) {
                check(wc[i]);
                if (wc[i].opcode == WcOpcode.RECV) {
                    sending = true;
                    toReceive--;
                    int q = received(wc[i]);
                    if (recvPosted[q] < n) {
                        postRecv(q, size);
                    }
                    continue;
                }
                int q = (int) (wc[i].wrId >>> 32);
                int k = (int) wc[i].wrId;
                for (int j = ccnt[q]; j <= k; j++) {
                    completed[q * n + j] = now;
                }
                ccnt[q] = k + 1;
                if (ccnt[q] == n) {
                    done++;
                }
            }
        }
        long first = Long.MAX_VALUE;
        long end = 0;
        for (int q = 0; q < nq; q++) {
            first = Math.min(first, posted[q * n]);
            end = Math.max(end, completed[q * n + n - 1]);
        }
        return report(size, (long) n * nq, end - first, peak(posted, completed, size), gbits);
    }

    /**
     * Posts {@code count} requests on QP 0 (the last one signaled) and leaves them to the device's
     * progress thread for {@code millis} before taking the completion: how a warm-up
     * ({@link PerftestWarmup}) runs the path of a passive BW server, whose progress thread does all
     * the work, and not only the path of an application that polls.
     */
    void postUnpolled(int size, int count, long millis) throws IOException, InterruptedException {
        long step = step(size);
        long wrap = wrap(size);
        for (int k = 0; k < count; k++) {
            fill(0, size, (k % wrap) * step, k == count - 1, k);
            qps[0].postSend(wr);
        }
        Thread.sleep(millis);
        awaitOne(null);
    }

    private void fill(int q, int size, long off, boolean signal, long wrId) {
        fill(wr, q, size, off, signal, wrId);
    }

    /**
     * perftest's duration mode (-D) for the BW tests' posting side (run_iter_bw, run_iter_bi):
     * posts from the start of {@code window} until it is over, counting the requests completed in
     * its measured part, then stops at a signaled request and waits for what is in flight
     * (perftest leaves it in flight). A side that also receives (bidirectional SEND) reposts every
     * receive and counts the messages that come in the measured part too; when {@code window} has
     * not started (the server of run_iter_bi) it posts nothing until the peer's first message has
     * come and started it. With {@code peerDone} (that server's) it stops posting once the peer is
     * done, and receives on until then, so that none of the peer's messages finds no receive. The
     * report divides by the measured part.
     */
    PerftestOob.Report bwClientTimed(int size, PerftestWindow window, boolean gbits,
                                     java.util.function.BooleanSupplier peerDone) throws IOException {
        long counted;
        if (cqs.length == 1) {
            counted = timedWorker(0, wc, wr, rwr, size, window, peerDone);
        } else {
            // one thread per engine, each posting to and polling the QPs of its CQ
            long[] count = new long[cqs.length];
            IOException[] failure = new IOException[cqs.length];
            Thread[] threads = new Thread[cqs.length];
            for (int w = 0; w < cqs.length; w++) {
                int worker = w;
                threads[w] = Thread.ofPlatform().name("perftest-engine-" + w).start(() -> {
                    WorkCompletion[] mine = new WorkCompletion[wc.length];
                    for (int i = 0; i < mine.length; i++) {
                        mine[i] = new WorkCompletion();
                    }
                    try {
                        count[worker] = timedWorker(worker, mine, new SendWr(1), new RecvWr(1), size, window, peerDone);
                    } catch (IOException | RuntimeException e) {
                        failure[worker] = e instanceof IOException io ? io : new IOException(e.toString(), e);
                        workersFailed = true; // the others stop too
                    }
                });
            }
            counted = 0;
            for (int w = 0; w < cqs.length; w++) {
                try {
                    threads[w].join();
                } catch (InterruptedException e) {
                    workersFailed = true;
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
                counted += count[w];
            }
            for (IOException f : failure) { // every worker has stopped: report the first failure
                if (f != null && !f.getMessage().equals("another engine's worker failed")) {
                    throw f;
                }
            }
            for (IOException f : failure) {
                if (f != null) {
                    throw f;
                }
            }
        }
        return timedReport(size, counted, window, gbits);
    }

    /** The report of a duration run: {@code counted} messages over the measured part of {@code w}, no peak (as perftest). */
    private static PerftestOob.Report timedReport(int size, long counted, PerftestWindow w, boolean gbits) {
        double seconds = w.measuredNanos() / 1e9;
        return new PerftestOob.Report(size, counted, 0, PerftestOutput.bw(size * (double) counted / seconds, gbits),
            counted / seconds / 1e6);
    }

    /** Some worker of a run of several failed: the others give up too. */
    private volatile boolean workersFailed;

    /**
     * The timed loop over the QPs of CQ {@code w} (every QP for a device of one engine): posts
     * while {@code window} runs (once it has started: a message received starts it), counting the
     * requests completed in its measured part and the messages received then (reposting each
     * receive through {@code rwr}); returns when its requests are done and {@code peerDone}, if
     * any, says the peer is.
     */
    private long timedWorker(int w, WorkCompletion[] wc, SendWr wr, RecvWr rwr, int size, PerftestWindow window,
                             java.util.function.BooleanSupplier peerDone) throws IOException {
        CompletionQueue cq = cqs[w];
        int nq = qps.length;
        long[] scnt = new long[nq];
        long[] ccnt = new long[nq];
        long step = step(size);
        long wrap = wrap(size);
        int cqMod = p.cqMod();
        long counted = 0;
        long last = System.nanoTime();
        long peerAsked = last;
        boolean stopping = false;
        while (true) {
            long now = System.nanoTime();
            boolean started = window.started();
            stopping |= window.over(now);
            if (!stopping && started && peerDone != null && now - peerAsked > 1_000_000L) {
                // a server whose clock started after the client's: once the client is done, what
                // this side sends would find no receive posted
                peerAsked = now;
                stopping = peerDone.getAsBoolean();
            }
            boolean drained = stopping;
            for (int q = w; q < nq; q += cqs.length) {
                // when stopping, post on only up to the next signaled request, so that the last one is
                while (started && scnt[q] - ccnt[q] < p.txDepth() && (!stopping || scnt[q] % cqMod != 0)) {
                    long k = scnt[q];
                    boolean signal = (k + 1) % cqMod == 0;
                    fill(wr, q, size, (k % wrap) * step, signal, ((long) q << 32) | (k & 0xFFFFFFFFL));
                    qps[q].postSend(wr);
                    scnt[q]++;
                }
                drained &= ccnt[q] == scnt[q] && scnt[q] % cqMod == 0;
            }
            if (drained && (peerDone == null || peerDone.getAsBoolean())) {
                return counted;
            }
            if (workersFailed) {
                throw new IOException("another engine's worker failed");
            }
            int got = cq.poll(wc);
            now = System.nanoTime();
            if (got == 0) {
                stalled(now, last);
                continue;
            }
            last = now;
            for (int i = 0; i < got; i++) {
                check(wc[i]);
                if (wc[i].opcode == WcOpcode.RECV) {
                    window.start(now); // run_iter_bi's server: its clock starts with the first message
                    postRecv(rwr, received(wc[i]), size); // a duration run reposts every receive
                    if (window.measuring(now)) {
                        counted++;
                    }
                    continue;
                }
                int q = (int) (wc[i].wrId >>> 32);
                long low = wc[i].wrId & 0xFFFFFFFFL;
                long k = (ccnt[q] & ~0xFFFFFFFFL) | low; // the completed index, from its low 32 bits
                if (k < ccnt[q]) {
                    k += 1L << 32;
                }
                long n = k + 1 - ccnt[q];
                ccnt[q] = k + 1;
                if (window.measuring(now)) {
                    counted += n;
                }
            }
        }
    }

    private void fill(SendWr wr, int q, int size, long off, boolean signal, long wrId) {
        wr.reset();
        wr.wrId = wrId;
        wr.sendFlags = signal ? SendFlags.SIGNALED : 0;
        long local = buf.address() + q * slot + off;
        switch (p.test().verb) {
            case WRITE -> {
                wr.opcode = WrOpcode.RDMA_WRITE;
                wr.sge(local, size, mr.lkey()).rdma(remote[q].vaddr() + off, remote[q].rkey());
            }
            case READ -> {
                wr.opcode = WrOpcode.RDMA_READ;
                wr.sge(local, size, mr.lkey()).rdma(remote[q].vaddr() + off, remote[q].rkey());
            }
            case ATOMIC -> {
                wr.opcode = p.cmpAndSwap() ? WrOpcode.ATOMIC_CMP_AND_SWP : WrOpcode.ATOMIC_FETCH_AND_ADD;
                wr.sge(local, 8, mr.lkey()).rdma(remote[q].vaddr() + off, remote[q].rkey());
                wr.compareAdd = p.cmpAndSwap() ? 0 : 1;
                wr.swap = 0;
            }
            case SEND -> {
                wr.opcode = WrOpcode.SEND;
                wr.sge(local, size, mr.lkey());
                if (p.ud()) {
                    wr.ah = ahs[q];
                    wr.remoteQpn = remote[q].qpn();
                    wr.remoteQkey = UD_QKEY;
                }
            }
        }
    }

    /** Messages the last {@link #sendBwServer} expected and did not get (UD drops what finds no receive posted). */
    long lost;

    /**
     * The SEND server: receives {@code iters} messages per QP, reposting, and measures them. Over
     * UD a message that finds no receive posted is dropped and never comes again, so the server
     * also stops when {@code peerDone} says the client has finished (its next exchange is waiting),
     * and counts the rest as {@link #lost}.
     */
    PerftestOob.Report sendBwServer(int size, boolean gbits, java.util.function.BooleanSupplier peerDone)
            throws IOException {
        long total = (long) p.iters() * qps.length;
        long received = 0;
        long first = 0;
        long end = 0;
        long last = System.nanoTime();
        while (received < total) {
            int got = poll(wc);
            long now = System.nanoTime();
            if (got == 0) {
                if (p.ud() && now - last > 100_000_000L && peerDone.getAsBoolean()) {
                    break; // the client is done and nothing came for 100 ms: the rest was dropped
                }
                stalled(now, last);
                continue;
            }
            last = now;
            for (int i = 0; i < got; i++) {
                check(wc[i]);
                if (wc[i].opcode != WcOpcode.RECV) {
                    continue;
                }
                if (received++ == 0) {
                    first = now;
                }
                end = now;
                int q = received(wc[i]);
                if (recvPosted[q] < p.iters()) {
                    postRecv(q, size);
                }
            }
        }
        lost = total - received;
        return report(size, received, Math.max(1, end - first), 0, gbits);
    }

    /**
     * The SEND server of a duration run: receives and reposts until the client has finished (its
     * next exchange waits and the CQ is empty), counting the messages received in the measured
     * part of {@code w}, which the first one starts, as perftest's run_iter_bw_server.
     */
    PerftestOob.Report sendBwServerTimed(int size, PerftestWindow w, boolean gbits,
                                         java.util.function.BooleanSupplier peerDone) throws IOException {
        long counted = 0;
        boolean any = false;
        long last = System.nanoTime();
        while (true) {
            int got = poll(wc);
            long now = System.nanoTime();
            if (got == 0) {
                if (any && now - last > 1_000_000L && peerDone.getAsBoolean()) {
                    break;
                }
                stalled(now, last);
                continue;
            }
            last = now;
            for (int i = 0; i < got; i++) {
                check(wc[i]);
                if (wc[i].opcode != WcOpcode.RECV) {
                    continue;
                }
                any = true;
                w.start(now);
                if (w.measuring(now)) {
                    counted++;
                }
                postRecv(received(wc[i]), size); // a duration run reposts every receive
            }
        }
        return timedReport(size, counted, w, gbits);
    }

    private PerftestOob.Report report(int size, long iters, long nanos, double peakBytesPerSecond, boolean gbits) {
        double seconds = nanos / 1e9;
        double avg = PerftestOutput.bw(size * (double) iters / seconds, gbits);
        double peak = PerftestOutput.bw(peakBytesPerSecond, gbits);
        return new PerftestOob.Report(size, iters, peak, avg, iters / seconds / 1e6);
    }

    /**
     * perftest's peak: the best average over any run of consecutive messages, {@code size / min over
     * i <= j of (completed[j] - posted[i]) / (j - i + 1)}; 0 beyond 20,000 iterations (it turns it off).
     */
    static double peak(long[] posted, long[] completed, int size) {
        int n = posted.length;
        if (n > 20_000 || n == 0) {
            return 0;
        }
        double best = Double.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            for (int j = i; j < n; j++) {
                double t = (completed[j] - posted[i]) / (double) (j - i + 1);
                if (t > 0 && t < best) {
                    best = t;
                }
            }
        }
        return best == Double.MAX_VALUE ? 0 : size / (best / 1e9);
    }

    // ------------------------------------------------------------------ latency

    /** The peer's writes the last {@link #writeLat} saw (its counter in the last byte of the receive area). */
    private long writesSeen;
    /** Whether the last {@link #writeLat} ended by the clock, so the peer may write once more after it. */
    private boolean peerMayWriteAgain;

    /**
     * WRITE latency, both sides: the server writes first (as perftest's run_iter_lat_write); each
     * side waits until the peer's write has set the last byte of its receive area to the
     * iteration's number, then writes its own. {@code -n} iterations, whose post times it returns,
     * or with {@code w} until the window is over (each side on its own clock, started here, as
     * perftest's alarm), counting the completed writes in it; null then. With its sources filled
     * (--check) it puts the pattern back in its counter byte when done: with -a the next sizes
     * send that byte as data.
     */
    long[] writeLat(int size, boolean client, PerftestWindow w) throws IOException {
        long n = w == null ? p.iters() : Long.MAX_VALUE;
        long[] posted = w == null ? new long[p.iters()] : null;
        MemorySegment post = buf.asSlice(0, slot);
        long scnt = 0;
        long rcnt = 0;
        long ccnt = 0;
        writesSeen = 0;
        peerMayWriteAgain = w != null;
        if (w != null) {
            w.start(System.nanoTime());
        }
        while (scnt < n || ccnt < n || rcnt < n) {
            if (rcnt < n && !(scnt < 1 && !client)) {
                rcnt++;
                long t0 = System.nanoTime();
                while (peerCounter(size) != (byte) rcnt) {
                    dev.progress();
                    long now = System.nanoTime();
                    if (w != null && w.over(now)) {
                        return posted;
                    }
                    if (now - t0 > stallNanos) {
                        throw new IOException("no WRITE from the peer for " + stallNanos / 1_000_000_000L
                            + " s (iteration " + rcnt + ")");
                    }
                }
                writesSeen = rcnt;
            }
            if (w != null && w.over(System.nanoTime())) {
                return posted;
            }
            if (scnt < n) {
                if (posted != null) {
                    posted[(int) scnt] = System.nanoTime();
                }
                post.set(ValueLayout.JAVA_BYTE, size - 1, (byte) ++scnt);
                fill(0, size, 0, true, scnt);
                qps[0].postSend(wr);
            }
            if (ccnt < n) {
                // a duration run may end while the peer, done already, no longer answers
                if (awaitOne(w) == null) {
                    return posted;
                }
                ccnt++;
                if (w != null) {
                    w.count(System.nanoTime());
                }
            }
        }
        if (filled) {
            // -a: the next sizes' writes carry this byte as data, not as a counter
            post.set(ValueLayout.JAVA_BYTE, size - 1, pattern(size - 1));
        }
        return posted;
    }

    /** The last byte of QP 0's receive area: where a write-latency peer's writes put its iteration counter. */
    byte peerCounter(int size) {
        return buf.get(ValueLayout.JAVA_BYTE, qps.length * slot + size - 1);
    }

    /** Clears {@link #peerCounter}, before a {@link #writeLat} whose first expected value may be there still. */
    void clearPeerCounter(int size) {
        buf.set(ValueLayout.JAVA_BYTE, qps.length * slot + size - 1, (byte) 0);
    }

    /**
     * READ (or atomic) latency, client only: one request at a time, each waited for; {@code -n}
     * of them, whose post times it returns, or with {@code w} until the window is over, counting
     * the completed ones in it (null then).
     */
    long[] readLat(int size, PerftestWindow w) throws IOException {
        long n = w == null ? p.iters() : Long.MAX_VALUE;
        long[] posted = w == null ? new long[p.iters()] : null;
        if (w != null) {
            w.start(System.nanoTime());
        }
        for (long i = 0; i < n && (w == null || !w.over(System.nanoTime())); i++) {
            fill(0, size, 0, true, i);
            if (posted != null) {
                posted[(int) i] = System.nanoTime();
            }
            qps[0].postSend(wr);
            awaitOne(null); // the server waits in the exchange meanwhile: this completes
            if (w != null) {
                w.count(System.nanoTime());
            }
        }
        return posted;
    }

    /**
     * SEND latency: the client sends first; each side answers every message it receives with one
     * of its own. {@code -n} iterations, whose post times it returns, or with {@code w} until the
     * window is over, its clock started by the first message received and the messages received
     * in it counted (perftest's set_on_first_rx_packet); null then. Every send is waited for
     * before returning (the peer reposts its receives until it is done).
     */
    long[] sendLat(int size, boolean client, PerftestWindow w) throws IOException {
        long n = w == null ? p.iters() : Long.MAX_VALUE;
        long[] posted = w == null ? new long[p.iters()] : null;
        long scnt = 0;
        long rcnt = 0;
        int sendsOut = 0;
        run:
        while (scnt < n || rcnt < n) {
            if (rcnt < n && !(scnt < 1 && client)) {
                long t0 = System.nanoTime();
                boolean got = false;
                while (!got) {
                    int k = cqs[0].poll(wc, 1); // latency tests run QP 0 alone
                    long now = System.nanoTime();
                    if (k == 0) {
                        if (w != null && w.over(now)) {
                            break run;
                        }
                        if (now - t0 > stallNanos) {
                            throw new IOException("no SEND from the peer for " + stallNanos / 1_000_000_000L
                                + " s (message " + (rcnt + 1) + ")");
                        }
                        continue;
                    }
                    check(wc[0]);
                    if (wc[0].opcode == WcOpcode.RECV) {
                        got = true;
                        rcnt++;
                        if (w != null) {
                            w.start(now);
                            w.count(now);
                        }
                        if (w != null || rcnt + p.rxDepth() <= n) {
                            postRecv(0, size);
                        }
                    } else {
                        sendsOut--;
                    }
                }
            }
            if (w != null && w.over(System.nanoTime())) {
                break;
            }
            if (scnt < n) {
                while (sendsOut >= p.txDepth()) {
                    WorkCompletion c = awaitOne(null);
                    if (c.opcode == WcOpcode.RECV) {
                        throw new IOException("a message came before our send completed");
                    }
                    sendsOut--;
                }
                fill(0, size, 0, true, scnt);
                if (posted != null) {
                    posted[(int) scnt] = System.nanoTime();
                }
                scnt++;
                qps[0].postSend(wr);
                sendsOut++;
            }
        }
        while (sendsOut > 0) {
            // a duration run's peer may have answered once more: not a send's completion
            if (awaitOne(null).opcode != WcOpcode.RECV) {
                sendsOut--;
            }
        }
        return posted;
    }

    /**
     * The next completion of CQ 0; null when the window {@code w} (if any) is over first, else an
     * IOException after 10 s without one.
     */
    private WorkCompletion awaitOne(PerftestWindow w) throws IOException {
        long t0 = System.nanoTime();
        while (cqs[0].poll(wc, 1) == 0) {
            long now = System.nanoTime();
            if (w != null && w.over(now)) {
                return null;
            }
            stalled(now, t0);
        }
        check(wc[0]);
        return wc[0];
    }

    private void stalled(long now, long since) throws IOException {
        if (now - since > stallNanos) {
            throw new IOException("no completion for " + stallNanos / 1_000_000_000L
                + " s: the peer is gone or cannot be reached");
        }
    }

    private static void check(WorkCompletion c) throws IOException {
        if (c.status != WcStatus.SUCCESS) {
            throw new IOException("Completion with error at client: " + WcStatus.str(c.status) + " (wr " + c.wrId + ")");
        }
    }

    /**
     * Releases what the run made on the device, in the order verbs wants (QPs, address handles,
     * MR, CQs, PD; rdma_cm's QPs are their CM ids', closed before this), then the buffer.
     */
    @Override
    public void close() {
        for (int i = 0; i < qps.length && !cmQps; i++) {
            if (qps[i] != null) {
                qps[i].close();
            }
        }
        for (int i = 0; ahs != null && i < ahs.length; i++) {
            if (ahs[i] != null) {
                ahs[i].close();
            }
        }
        if (mr != null) {
            mr.close();
        }
        for (CompletionQueue cq : cqs) {
            if (cq != null) {
                cq.close();
            }
        }
        if (pd != null) {
            pd.close();
        }
        if (buf != null) {
            NativeMemory.unmap(buf);
        }
    }
}
