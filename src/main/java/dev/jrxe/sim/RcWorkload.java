package dev.jrxe.sim;

import dev.jrxe.ib.Flush;
import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
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
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A random mix of RC operations between QP pairs, and the oracle that checks what the verbs API
 * reports against what must have happened: every work request completes exactly once, in order,
 * successfully (the network's faults are all recoverable); every SEND and WRITE with immediate is
 * received exactly once, in order, with its bytes; every READ returns the bytes of the remote
 * region; every atomic returns the value the model says; at the end the memory that WRITEs target
 * holds exactly what the model says. In some runs the workload also breaks a QP now and then
 * (modify to ERR): then that pair's outstanding work must complete in error, flushed or after the
 * peer's retries ran out, never a success after an error and never a message lost that its sender
 * saw succeed; the pair is reset, reconnected and goes on.
 *
 * <p>Each side of a QP pair has one buffer: payload sources, receive buffers, the area the peer
 * WRITEs, a static area the peer READs, READ destinations and atomic words. Sizes run from 0 to
 * 1 MiB (SENDs up to 256 KiB, the size of a receive buffer). Memory is pinned, explicit ODP or
 * implicit ODP, over jrxe's allocator or a shared arena. One run in eight posts thirty times as many
 * operations of at most 256 bytes instead: QPs that live long enough to meet many timeouts.
 */
final class RcWorkload implements SimWorkload {
    static final long MIB = 1 << 20;
    private static final long SRC = 0;
    private static final long SRC_BYTES = 2 * MIB;
    private static final long RECV = 2 * MIB;
    private static final int RECV_SLOTS = 4;
    private static final long RECV_SLOT = 256 * 1024;
    private static final long WRITE_AREA = 3 * MIB;
    private static final long READ_AREA = 4 * MIB;
    private static final long AREA = MIB;
    private static final long DST = 5 * MIB;
    private static final long DST_BYTES = 2 * MIB;
    private static final long ATOMIC = 7 * MIB;
    private static final int WORDS = 512;
    private static final long SIDE_BYTES = 8 * MIB;

    private static final int SEND = 0;
    private static final int SEND_IMM = 1;
    private static final int WRITE = 2;
    private static final int WRITE_IMM = 3;
    private static final int READ = 4;
    private static final int FETCH_ADD = 5;
    private static final int CMP_SWAP = 6;
    /** IBTA 1.5: an 8-byte store to an atomic word, and a FLUSH (global) of part or all of the region. */
    private static final int ATOMIC_WRITE = 7;
    private static final int FLUSH = 8;
    /** What both ends of every connection allow, at first and after each recovery. */
    private static final int QP_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
        | Access.REMOTE_ATOMIC | Access.FLUSH_GLOBAL;

    /** One posted work request and what its completions must say. */
    private static final class Op {
        long id;
        int kind;
        long size;
        long local;
        long remote;
        long compare;
        long swapAdd;
        long expectOriginal;
        int imm;
        /** Its sender saw it complete successfully. */
        boolean senderOk;
    }

    /** Offsets in a region of {@code capacity} bytes handed out and given back in the same order. */
    private static final class Ring {
        private final long capacity;
        private final ArrayDeque<long[]> used = new ArrayDeque<>();

        Ring(long capacity) {
            this.capacity = capacity;
        }

        long alloc(long size) {
            if (size == 0) {
                used.addLast(new long[] {0, 0});
                return 0;
            }
            long start;
            if (usedBytes() == 0) {
                start = 0;
            } else {
                long head = firstNonEmpty();
                long tail = lastEnd();
                if (tail >= head) {
                    start = tail + size <= capacity ? tail : (size <= head ? 0 : -1);
                } else {
                    start = tail + size <= head ? tail : -1;
                }
            }
            if (start < 0) {
                return -1;
            }
            used.addLast(new long[] {start, start + size});
            return start;
        }

        private long usedBytes() {
            long n = 0;
            for (long[] u : used) {
                n += u[1] - u[0];
            }
            return n;
        }

        private long firstNonEmpty() {
            for (long[] u : used) {
                if (u[1] > u[0]) {
                    return u[0];
                }
            }
            return 0;
        }

        private long lastEnd() {
            long end = 0;
            for (long[] u : used) {
                if (u[1] > u[0]) {
                    end = u[1];
                }
            }
            return end;
        }

        void free() {
            used.pollFirst();
        }
    }

    /** One end of a QP pair. */
    final class Side {
        final int device;
        final Device dev;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final MemorySegment mem;
        final MemoryRegion mr;
        final int lkey;
        final int rkey;
        final int salt;
        QueuePair qp;
        Side peer;
        final ArrayDeque<Op> outstanding = new ArrayDeque<>();
        /** Ops of the peer that take one of our receive WQEs, in the order the peer posted them. */
        final ArrayDeque<Op> toReceive = new ArrayDeque<>();
        final ArrayDeque<Integer> postedRecvs = new ArrayDeque<>();
        final boolean[] slotPosted = new boolean[RECV_SLOTS];
        final Ring src = new Ring(SRC_BYTES);
        final Ring dst = new Ring(DST_BYTES);
        /** What the peer's WRITEs must have left in our WRITE area. */
        final byte[] writeModel = new byte[(int) AREA];
        /** What our atomic words must hold. */
        final long[] words = new long[WORDS];
        int maxOutstanding;
        long repostAt;
        /** The pair was broken on purpose and has not been reconnected yet. */
        boolean broken;
        /** This side has seen an error completion since it was broken. */
        boolean sawError;

        Side(int device, Device dev, ProtectionDomain pd, MemoryRegion implicit, String kind, int salt) {
            this.device = device;
            this.dev = dev;
            this.pd = pd;
            this.salt = salt;
            this.cq = dev.createCq(256);
            this.mem = memory.allocate(SIDE_BYTES, !kind.endsWith("arena"));
            int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC
                | Access.FLUSH_GLOBAL;
            if (kind.startsWith("implicit")) {
                this.mr = implicit;
            } else {
                this.mr = pd.registerMemory(mem, kind.startsWith("odp") ? access | Access.ON_DEMAND : access);
            }
            this.lkey = mr.lkey();
            this.rkey = mr.rkey();
            for (long i = 0; i < AREA; i++) {
                mem.set(ValueLayout.JAVA_BYTE, READ_AREA + i, readByte(i));
            }
            for (int w = 0; w < WORDS; w++) {
                words[w] = (long) salt << 32 | w;
                mem.set(ValueLayout.JAVA_LONG, ATOMIC + 8L * w, words[w]);
            }
        }

        byte readByte(long i) {
            return (byte) ((i * 13) ^ (i >>> 9) ^ salt);
        }

        long addr(long offset) {
            return mem.address() + offset;
        }
    }

    private final SplittableRandom random;
    private final Simulation.Settings settings;
    private final Trace trace;
    private final SimClock clock;
    private final SimMemory memory = new SimMemory();
    private final List<Side> sides = new ArrayList<>();
    private final WorkCompletion[] wc = new WorkCompletion[8];
    private final SendWr wr = new SendWr(1);
    private final RecvWr recv = new RecvWr(1);
    private final boolean lazyReceiver;
    private final boolean breaksQps;
    /** Operations in this run: the settings' number, or ten times as many small ones (a long-lived QP). */
    private final int operations;
    private final long maxSize;
    long breaks;
    private long nextId = 1;
    private int posted;
    private long nextAction;
    long completions;

    RcWorkload(long seed, Simulation.Settings settings, Trace trace, SimClock clock, List<Device> devices) {
        this.random = new SplittableRandom(seed);
        this.settings = settings;
        this.trace = trace;
        this.clock = clock;
        this.lazyReceiver = random.nextInt(4) == 0;
        this.breaksQps = random.nextInt(3) == 0;
        boolean stream = random.nextInt(8) == 0;
        this.operations = stream ? 30 * settings.operations() : settings.operations();
        this.maxSize = stream ? Math.min(256, settings.maxSize()) : settings.maxSize();
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        String[] kinds = {"pinned", "pinned-arena", "odp", "odp-arena", "implicit", "implicit-arena"};
        ProtectionDomain[] pds = new ProtectionDomain[devices.size()];
        MemoryRegion[] implicit = new MemoryRegion[devices.size()];
        for (int d = 0; d < devices.size(); d++) {
            pds[d] = devices.get(d).allocPd();
            implicit[d] = pds[d].registerMemory(0, -1L, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
                | Access.REMOTE_ATOMIC | Access.FLUSH_GLOBAL | Access.ON_DEMAND);
        }
        int pairs = 1 + random.nextInt(settings.maxQpPairs());
        for (int p = 0; p < pairs; p++) {
            int a = random.nextInt(devices.size());
            int b = (a + 1 + random.nextInt(devices.size() - 1)) % devices.size();
            Side x = new Side(a, devices.get(a), pds[a], implicit[a], kinds[random.nextInt(kinds.length)], 2 * p);
            Side y = new Side(b, devices.get(b), pds[b], implicit[b], kinds[random.nextInt(kinds.length)], 2 * p + 1);
            connect(x, y);
            sides.add(x);
            sides.add(y);
        }
        for (Side s : sides) {
            for (int slot = 0; slot < RECV_SLOTS; slot++) {
                postRecv(s, slot);
            }
        }
    }

    private void connect(Side x, Side y) {
        QpCap cap = new QpCap(32, RECV_SLOTS, 1, 1, 64);
        x.qp = x.pd.createQp(new QpInitAttr(QpType.RC, x.cq, x.cq, cap));
        y.qp = y.pd.createQp(new QpInitAttr(QpType.RC, y.cq, y.cq, cap));
        x.peer = y;
        y.peer = x;
        int rdAtomic = 1 + random.nextInt(16);
        RcConnect how = new RcConnect().pathMtu(Mtu.MTU_256 + random.nextInt(5)).timeout(8 + random.nextInt(5))
            .retries(7, 7).rdAtomic(rdAtomic, rdAtomic).minRnrTimer(1 + random.nextInt(14))
            .accessFlags(QP_ACCESS);
        how.pair(x.qp, random.nextInt(1 << 24), y.qp, random.nextInt(1 << 24));
        x.maxOutstanding = 1 + random.nextInt(24);
        y.maxOutstanding = 1 + random.nextInt(24);
    }

    private void postRecv(Side s, int slot) {
        trace.note(clock.getAsLong(), "post recv side " + sides.indexOf(s) + " slot " + slot);
        recv.wrId = slot;
        recv.sge(s.addr(RECV + slot * RECV_SLOT), (int) RECV_SLOT, s.lkey);
        s.qp.postRecv(recv);
        s.postedRecvs.addLast(slot);
        s.slotPosted[slot] = true;
    }

    /** When the workload next wants to act. */
    @Override
    public long nextAction() {
        return done() ? Long.MAX_VALUE : nextAction;
    }

    @Override
    public boolean done() {
        if (posted < operations) {
            return false;
        }
        for (Side s : sides) {
            if (!s.outstanding.isEmpty() || !s.toReceive.isEmpty() || s.broken) {
                return false;
            }
        }
        return true;
    }

    /** Polls every CQ; when due, posts more work and gives receive buffers back. */
    @Override
    public void step() {
        poll();
        long now = clock.getAsLong();
        if (now < nextAction) {
            return;
        }
        nextAction = now + random.nextLong(50_000);
        for (Side s : sides) {
            if (s.broken) {
                recover(s);
                continue;
            }
            if (breaksQps && !s.outstanding.isEmpty() && random.nextInt(400) == 0) {
                // break this end: everything outstanding on both ends must complete in error
                breaks++;
                s.broken = true;
                s.peer.broken = true;
                s.qp.modify(new dev.jrxe.verbs.QpAttr().state(dev.jrxe.ib.QpState.ERR), dev.jrxe.ib.QpAttrMask.STATE);
                continue;
            }
            repost(s, now);
            int burst = random.nextInt(4);
            for (int i = 0; i < burst && posted < operations && s.outstanding.size() < s.maxOutstanding; i++) {
                if (!post(s)) {
                    break;
                }
            }
        }
        poll();
    }

    /**
     * A broken pair, once both ends have completed everything they had posted: both go to ERR
     * (flushing their receives), then RESET and back to RTS with new PSNs. What the failed
     * operations did remotely is unknown, so the model takes the memory as it is.
     */
    private void recover(Side s) {
        Side p = s.peer;
        if (!s.outstanding.isEmpty() || !p.outstanding.isEmpty()) {
            return;
        }
        for (Side x : new Side[] {s, p}) {
            if (x.qp.state() != dev.jrxe.ib.QpState.ERR) {
                x.qp.modify(new dev.jrxe.verbs.QpAttr().state(dev.jrxe.ib.QpState.ERR), dev.jrxe.ib.QpAttrMask.STATE);
            }
        }
        poll();
        if (!s.postedRecvs.isEmpty() || !p.postedRecvs.isEmpty()) {
            return; // their flushed receives are still to come
        }
        for (Side x : new Side[] {s, p}) {
            for (Op op : x.toReceive) {
                if (op.senderOk) {
                    throw new SimulationFailure("op " + op.id + " completed successfully at its sender but was never"
                        + " received");
                }
            }
            x.toReceive.clear();
            x.qp.modify(new dev.jrxe.verbs.QpAttr().state(dev.jrxe.ib.QpState.RESET), dev.jrxe.ib.QpAttrMask.STATE);
            MemorySegment.copy(x.mem, ValueLayout.JAVA_BYTE, WRITE_AREA, x.writeModel, 0, (int) AREA);
            for (int w = 0; w < WORDS; w++) {
                x.words[w] = x.mem.get(ValueLayout.JAVA_LONG, ATOMIC + 8L * w);
            }
            x.broken = false;
            x.sawError = false;
        }
        int rdAtomic = 1 + random.nextInt(16);
        new RcConnect().pathMtu(Mtu.MTU_256 + random.nextInt(5)).timeout(8 + random.nextInt(5)).retries(7, 7)
            .rdAtomic(rdAtomic, rdAtomic).minRnrTimer(1 + random.nextInt(14)).accessFlags(QP_ACCESS)
            .pair(s.qp, random.nextInt(1 << 24), p.qp, random.nextInt(1 << 24));
        for (Side x : new Side[] {s, p}) {
            for (int slot = 0; slot < RECV_SLOTS; slot++) {
                postRecv(x, slot);
            }
        }
    }

    private void repost(Side s, long now) {
        if (lazyReceiver && now < s.repostAt) {
            return; // a slow receiver: the peer meets RNR NAKs
        }
        for (int slot = 0; slot < RECV_SLOTS; slot++) {
            if (!s.slotPosted[slot]) {
                postRecv(s, slot);
            }
        }
        s.repostAt = now + random.nextLong(2_000_000);
    }

    /**
     * ATOMIC_WRITE (the model's word takes the value in post order: the responder executes it on
     * arrival, in PSN order with the QP's atomics) or FLUSH GLOBAL of a random range or the whole
     * region (it must succeed; the final memory check covers the data).
     */
    private void postWithoutBuffer(Side s, Op op) {
        Side peer = s.peer;
        wr.next = null;
        wr.wrId = op.id;
        wr.sendFlags = SendFlags.SIGNALED;
        wr.numSge = 0;
        if (op.kind == ATOMIC_WRITE) {
            int w = random.nextInt(WORDS);
            op.size = 8;
            op.remote = ATOMIC + 8L * w;
            long value = random.nextLong();
            peer.words[w] = value;
            wr.opcode = WrOpcode.ATOMIC_WRITE;
            wr.atomicWriteValue = value;
        } else {
            op.size = random.nextLong(AREA);
            op.remote = WRITE_AREA + random.nextLong(AREA - op.size + 1);
            wr.opcode = WrOpcode.FLUSH;
            wr.flushType = Flush.GLOBAL;
            wr.flushLevel = random.nextInt(4) == 0 ? Flush.MR : Flush.RANGE;
            wr.flushLength = op.size;
        }
        wr.rdma(peer.addr(op.remote), peer.rkey);
        trace.note(clock.getAsLong(), "post side " + sides.indexOf(s) + " qp 0x" + Integer.toHexString(s.qp.qpNum())
            + " op " + op.id + " kind " + op.kind + " size " + op.size);
        s.qp.postSend(wr);
        s.outstanding.addLast(op);
        posted++;
    }

    /** Posts one random operation from {@code s} to its peer; false when there is no room for it. */
    private boolean post(Side s) {
        Side peer = s.peer;
        int roll = random.nextInt(100);
        int kind = roll < 30 ? SEND : roll < 35 ? SEND_IMM : roll < 60 ? WRITE : roll < 65 ? WRITE_IMM
            : roll < 82 ? READ : roll < 89 ? FETCH_ADD : roll < 95 ? CMP_SWAP : roll < 98 ? ATOMIC_WRITE : FLUSH;
        Op op = new Op();
        op.id = nextId++;
        op.kind = kind;
        op.imm = (int) op.id;
        if (kind == ATOMIC_WRITE || kind == FLUSH) {
            postWithoutBuffer(s, op);
            return true;
        }
        boolean atomic = kind == FETCH_ADD || kind == CMP_SWAP;
        op.size = atomic ? 8 : size(Math.min(maxSize, kind == SEND || kind == SEND_IMM ? RECV_SLOT : AREA));
        wr.next = null;
        wr.wrId = op.id;
        wr.sendFlags = SendFlags.SIGNALED;
        wr.immData = op.imm;
        if (kind == READ || atomic) {
            long local = s.dst.alloc(op.size);
            if (local < 0) {
                nextId--;
                return false;
            }
            op.local = DST + local;
            if (atomic) {
                int w = random.nextInt(WORDS);
                op.remote = ATOMIC + 8L * w;
                op.expectOriginal = peer.words[w];
                if (kind == FETCH_ADD) {
                    op.swapAdd = random.nextLong();
                    peer.words[w] += op.swapAdd;
                    wr.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
                    wr.compareAdd = op.swapAdd;
                } else {
                    op.compare = random.nextBoolean() ? peer.words[w] : peer.words[w] + 1;
                    op.swapAdd = random.nextLong();
                    if (op.compare == peer.words[w]) {
                        peer.words[w] = op.swapAdd;
                    }
                    wr.opcode = WrOpcode.ATOMIC_CMP_AND_SWP;
                    wr.compareAdd = op.compare;
                    wr.swap = op.swapAdd;
                }
            } else {
                op.remote = READ_AREA + random.nextLong(AREA - op.size + 1);
                wr.opcode = WrOpcode.RDMA_READ;
            }
            wr.sge(s.addr(op.local), (int) op.size, s.lkey).rdma(peer.addr(op.remote), peer.rkey);
        } else {
            long local = s.src.alloc(op.size);
            if (local < 0) {
                nextId--;
                return false;
            }
            op.local = SRC + local;
            fillPayload(s, op);
            wr.sge(s.addr(op.local), (int) op.size, s.lkey);
            if (op.size <= 64 && random.nextBoolean()) {
                wr.sendFlags |= SendFlags.INLINE;
            }
            switch (kind) {
                case SEND -> wr.opcode = WrOpcode.SEND;
                case SEND_IMM -> wr.opcode = WrOpcode.SEND_WITH_IMM;
                default -> {
                    op.remote = WRITE_AREA + random.nextLong(AREA - op.size + 1);
                    wr.opcode = kind == WRITE ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_WRITE_WITH_IMM;
                    wr.rdma(peer.addr(op.remote), peer.rkey);
                    // RC executes a QP's WRITEs in order: the model applies them in that order
                    MemorySegment.copy(s.mem, ValueLayout.JAVA_BYTE, op.local, peer.writeModel,
                        (int) (op.remote - WRITE_AREA), (int) op.size);
                }
            }
            if (kind != WRITE) {
                peer.toReceive.addLast(op);
            }
        }
        trace.note(clock.getAsLong(), "post side " + sides.indexOf(s) + " qp 0x" + Integer.toHexString(s.qp.qpNum())
            + " op " + op.id + " kind " + kind + " size " + op.size);
        s.qp.postSend(wr);
        s.outstanding.addLast(op);
        posted++;
        return true;
    }

    /** A size from 0 to {@code max}: most small, some up to the largest. */
    private long size(long max) {
        int c = random.nextInt(10);
        long bound = c < 4 ? 64 : c < 7 ? 4096 : c < 9 ? 65536 : max;
        return random.nextLong(Math.min(bound, max) + 1);
    }

    private static byte payloadByte(long id, long i) {
        return (byte) (id * 31 + i * 7 + (i >>> 8));
    }

    private static void fillPayload(Side s, Op op) {
        for (long i = 0; i < op.size; i++) {
            s.mem.set(ValueLayout.JAVA_BYTE, op.local + i, payloadByte(op.id, i));
        }
    }

    private void poll() {
        for (Side s : sides) {
            int n;
            while ((n = s.cq.poll(wc)) > 0) {
                for (int i = 0; i < n; i++) {
                    check(s, wc[i]);
                }
            }
        }
    }

    private void check(Side s, WorkCompletion w) {
        completions++;
        trace.completion(clock.getAsLong(), s.device, s.qp.qpNum(), w.wrId, w.status, w.opcode, w.byteLen);
        boolean receive = w.opcode == WcOpcode.RECV || w.opcode == WcOpcode.RECV_RDMA_WITH_IMM;
        if (w.status != WcStatus.SUCCESS) {
            if (!s.broken || (w.status != WcStatus.WR_FLUSH_ERR && w.status != WcStatus.RETRY_EXC_ERR)) {
                throw new SimulationFailure("side " + sides.indexOf(s) + " (QPN 0x" + Integer.toHexString(s.qp.qpNum())
                    + ") completion " + w + " failed: " + WcStatus.str(w.status) + "; " + s.qp.transportState());
            }
            s.sawError = true;
            if (receive) {
                Integer slot = s.postedRecvs.pollFirst();
                if (slot == null || slot != (int) w.wrId) {
                    throw new SimulationFailure("flushed receive " + w.wrId + ", " + slot + " was next");
                }
                s.slotPosted[slot] = false;
                return;
            }
            Op op = s.outstanding.pollFirst();
            if (op == null || op.id != w.wrId) {
                throw new SimulationFailure("error completion of wr " + w.wrId + " but " + (op == null ? "none"
                    : "wr " + op.id) + " was next");
            }
            freeBuffer(s, op);
            return;
        }
        if (s.sawError) {
            throw new SimulationFailure("side " + sides.indexOf(s) + ": a success after an error completion: " + w);
        }
        if (receive) {
            checkReceive(s, w);
        } else {
            checkSend(s, w);
        }
    }

    private void checkSend(Side s, WorkCompletion w) {
        Op op = s.outstanding.pollFirst();
        if (op == null || op.id != w.wrId) {
            throw new SimulationFailure("side " + sides.indexOf(s) + ": completion of wr " + w.wrId + " but "
                + (op == null ? "none was outstanding" : "wr " + op.id + " was next"));
        }
        switch (op.kind) {
            case READ -> {
                for (long i = 0; i < op.size; i++) {
                    byte got = s.mem.get(ValueLayout.JAVA_BYTE, op.local + i);
                    if (got != s.peer.readByte(op.remote - READ_AREA + i)) {
                        throw new SimulationFailure("READ wr " + op.id + " of " + op.size + " bytes: byte " + i
                            + " is " + got + ", the remote memory holds " + s.peer.readByte(op.remote - READ_AREA + i));
                    }
                }
                s.dst.free();
            }
            case FETCH_ADD, CMP_SWAP -> {
                long got = s.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, op.local);
                if (got != op.expectOriginal) {
                    throw new SimulationFailure("atomic wr " + op.id + " returned " + got + ", expected "
                        + op.expectOriginal);
                }
                s.dst.free();
            }
            case ATOMIC_WRITE, FLUSH -> {
                int expect = op.kind == FLUSH ? WcOpcode.FLUSH : WcOpcode.ATOMIC_WRITE;
                if (w.opcode != expect) {
                    throw new SimulationFailure("wr " + op.id + " completed with opcode " + w.opcode + ", expected " + expect);
                }
            }
            default -> s.src.free();
        }
        op.senderOk = true;
    }

    /** Returns the op's local buffer (if it has one) to its allocator. */
    private static void freeBuffer(Side s, Op op) {
        switch (op.kind) {
            case READ, FETCH_ADD, CMP_SWAP -> s.dst.free();
            case ATOMIC_WRITE, FLUSH -> {
            }
            default -> s.src.free();
        }
    }

    private void checkReceive(Side s, WorkCompletion w) {
        Op op = s.toReceive.pollFirst();
        if (op == null) {
            throw new SimulationFailure("side " + sides.indexOf(s) + ": a receive completed that nothing sent: " + w);
        }
        int slot = (int) w.wrId;
        Integer expectSlot = s.postedRecvs.pollFirst();
        if (expectSlot == null || expectSlot != slot) {
            throw new SimulationFailure("receive WQE " + slot + " completed, " + expectSlot + " was next");
        }
        s.slotPosted[slot] = false;
        boolean write = op.kind == WRITE_IMM;
        if (w.opcode != (write ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV)) {
            throw new SimulationFailure("receive of op " + op.id + " has opcode " + w.opcode);
        }
        if (Integer.toUnsignedLong(w.byteLen) != op.size) {
            throw new SimulationFailure("receive of op " + op.id + ": byte_len " + w.byteLen + ", sent " + op.size);
        }
        if ((op.kind == SEND_IMM || write) && w.immData != op.imm) {
            throw new SimulationFailure("receive of op " + op.id + ": immediate " + w.immData + ", sent " + op.imm);
        }
        if (!write) {
            long base = RECV + slot * RECV_SLOT;
            for (long i = 0; i < op.size; i++) {
                byte got = s.mem.get(ValueLayout.JAVA_BYTE, base + i);
                if (got != payloadByte(op.id, i)) {
                    throw new SimulationFailure("SEND op " + op.id + " of " + op.size + " bytes received with byte " + i
                        + " = " + got + " (receive order or data wrong)");
                }
            }
        }
    }

    /** At the end: each WRITE area holds what the model says, each atomic word its value. */
    @Override
    public void checkMemory() {
        for (Side s : sides) {
            for (int i = 0; i < AREA; i++) {
                byte got = s.mem.get(ValueLayout.JAVA_BYTE, WRITE_AREA + i);
                if (got != s.writeModel[i]) {
                    throw new SimulationFailure("side " + sides.indexOf(s) + ": WRITE area byte " + i + " is " + got
                        + ", the WRITEs posted leave " + s.writeModel[i]);
                }
            }
            for (int wd = 0; wd < WORDS; wd++) {
                long got = s.mem.get(ValueLayout.JAVA_LONG, ATOMIC + 8L * wd);
                if (got != s.words[wd]) {
                    throw new SimulationFailure("side " + sides.indexOf(s) + ": atomic word " + wd + " is " + got
                        + ", expected " + s.words[wd]);
                }
            }
        }
    }

    /** What is still outstanding (for a stuck run's report). */
    @Override
    public String pending() {
        StringBuilder b = new StringBuilder();
        for (Side s : sides) {
            b.append("\n  side ").append(sides.indexOf(s)).append(": ").append(s.outstanding.size())
                .append(" outstanding, ").append(s.toReceive.size()).append(" to receive; ")
                .append(s.qp.transportState());
        }
        return b.toString();
    }

    int operations() {
        return posted;
    }

    @Override
    public void close() {
        for (Side s : sides) {
            s.qp.close();
        }
    }

    /** After the devices are closed. */
    @Override
    public long completions() {
        return completions;
    }

    @Override
    public long breaks() {
        return breaks;
    }

    @Override
    public void unmap() {
        memory.release();
    }

    /** Whether every buffer got its fixed address (else the digest may differ from another run's). */
    boolean fixedAddresses() {
        return memory.fixed;
    }
}
