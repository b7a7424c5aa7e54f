package dev.jrxe.transport;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.memory.KeyTable;
import dev.jrxe.memory.MemoryConfig;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.PacketWriter;
import dev.jrxe.wire.RocePacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One engine on a {@link MemoryLink}, without a progress thread (unless asked): the test connects QPs to a peer
 * that exists only as the packets it injects, runs duty cycles on its own thread and reads what
 * the engine sent. The receive path is the real one (RxDecoder, Engine.onPacket, RC transport).
 */
final class EngineHarness implements AutoCloseable {
    static final int LOCAL = 0x7F000002;
    static final int PEER = 0x7F000003;
    static final int PORT = 4791;
    static final int PEER_QPN = 0x4242;

    /** A packet the engine sent, decoded and copied. */
    record Sent(int opcode, int psn, int destQp, int syndrome, long atomicOriginal, byte[] payload) {
    }

    /** An async event the engine raised. */
    record Event(Qp qp, int type) {
    }

    final MemoryLink link = new MemoryLink(LOCAL, PORT);
    final KeyTable keys = new KeyTable(MemoryConfig.fromConfiguration());
    final List<Event> events = new CopyOnWriteArrayList<>();
    final Engine engine;
    final Arena arena = Arena.ofShared();
    final CompletionRing cq;
    private final PacketWriter writer = new PacketWriter();
    private final MemorySegment scratch = arena.allocate(8192, 8);

    EngineHarness() {
        this((KeyResolver) null);
    }

    /** {@code resolver}: where the engine looks keys up; null for the harness's own key table. */
    EngineHarness(KeyResolver resolver) {
        this(resolver, System::nanoTime);
    }

    /** {@code clock}: the engine's time, for tests that move it themselves. */
    EngineHarness(KeyResolver resolver, java.util.function.LongSupplier clock) {
        this(resolver, clock, false);
    }

    /** The same, with the engine's background progress thread when {@code progressThread}. */
    EngineHarness(KeyResolver resolver, java.util.function.LongSupplier clock, boolean progressThread) {
        this(resolver, new EngineOptions(progressThread, clock, 0));
    }

    /** The harness's own key table, and these options (a tuning of the test's own, say). */
    EngineHarness(EngineOptions options) {
        this(null, options);
    }

    private EngineHarness(KeyResolver resolver, EngineOptions options) {
        engine = new Engine("harness", link, resolver != null ? resolver : keys::lookup,
            (qp, type) -> events.add(new Event(qp, type)), () -> { }, options);
        cq = ring(4096);
    }

    /** A completion ring of {@code capacity} entries nobody is told about. */
    static CompletionRing ring(int capacity) {
        return new CompletionRing(capacity, new CompletionRing.Listener() {
            @Override
            public void onCompletionEvent(CompletionRing ring) {
            }

            @Override
            public void onOverflow(CompletionRing ring) {
            }
        });
    }

    /** An RC QP in RTS connected to the injected peer. */
    Qp connect(int pd, int access, int maxDestRdAtomic, int rqPsn, int sqPsn, int mtu) {
        return connect(pd, access, maxDestRdAtomic, rqPsn, sqPsn, mtu, cq);
    }

    /** The same, with its completions in {@code ring}. */
    Qp connect(int pd, int access, int maxDestRdAtomic, int rqPsn, int sqPsn, int mtu, CompletionRing ring) {
        return connect(QpType.RC, pd, access, maxDestRdAtomic, rqPsn, sqPsn, mtu, ring);
    }

    /** A QP of {@code type} (RC, UC, UD; a UD QP gets Q_Key {@link #UD_QKEY}) connected to the peer. */
    Qp connect(int type, int pd, int access, int maxDestRdAtomic, int rqPsn, int sqPsn, int mtu, CompletionRing ring) {
        Qp qp = new Qp(engine, type, pd, new SendQueue(64, 4, 64, arena), new RecvQueue(64, 4), null, ring, ring,
            false, arena);
        engine.register(qp);
        engine.withEngine(() -> {
            qp.destAddr = PEER;
            qp.destPort = PORT;
            qp.destQpn = PEER_QPN;
            qp.accessFlags = access;
            qp.maxDestRdAtomic = maxDestRdAtomic;
            qp.maxRdAtomic = 16;
            qp.pathMtu = mtu;
            qp.timeout = 14;
            qp.retryCnt = 7;
            qp.rnrRetry = 7;
            qp.minRnrTimer = 12;
            qp.rqPsn = rqPsn;
            qp.sqPsn = sqPsn;
            qp.qkey = UD_QKEY;
            QpControl.enter(qp, QpState.INIT, false);
            QpControl.enter(qp, QpState.RTR, false);
            QpControl.enter(qp, QpState.RTS, true);
        });
        return qp;
    }

    /** Posts a signaled SEND of 16 inline bytes on {@code qp} (the caller kicks the engine). */
    static void postInlineSend(Qp qp, long wrId) {
        SendWqe w = qp.sq.claim();
        w.wrId = wrId;
        w.opcode = dev.jrxe.ib.WrOpcode.SEND;
        w.sendFlags = dev.jrxe.ib.SendFlags.SIGNALED;
        w.numSge = 0;
        w.length = 16;
        w.inline.fill((byte) 7);
        w.inlined = true;
        w.inlineLength = 16;
        w.state = SendWqe.POSTED;
        qp.sq.publish();
    }

    /** Posts a receive of 64 bytes at {@code buf} (registered as {@code r}) on {@code qp}. */
    static void postRecv(Qp qp, MemorySegment buf, dev.jrxe.memory.Region r) {
        RecvWqe w = qp.rq.claim();
        w.wrId = 1;
        w.numSge = 1;
        w.sgeAddr[0] = buf.address();
        w.sgeLength[0] = 64;
        w.sgeLkey[0] = r.lkey();
        w.length = 64;
        qp.rq.publish();
    }

    /** The Q_Key of UD QPs the harness connects. */
    static final int UD_QKEY = 0x4242;

    /** Starts a packet from the peer to {@code qp}; fill its headers, then {@link #inject}. */
    PacketWriter begin(int opcode, Qp qp, int psn) {
        writer.begin(scratch, 0, opcode).bth().destQp(qp.qpn).psn(psn & 0xFFFFFF);
        return writer;
    }

    MemorySegment payload(int length) {
        return scratch.asSlice(writer.payloadOffset(), length);
    }

    /** Queues the packet being written (with {@code payloadLength} bytes) as coming from the peer. */
    void inject(int payloadLength) {
        inject(payloadLength, PEER);
    }

    void inject(int payloadLength, int from) {
        int len = writer.finish(payloadLength);
        link.inject(scratch, len, from, 0xC000);
    }

    /** Runs duty cycles until the injected packets are in and nothing more happens. */
    void run() {
        for (int i = 0; i < 10_000; i++) {
            if (engine.runDutyCycle() <= 0 && link.inboundEmpty()) {
                return;
            }
        }
    }

    /** What the engine sent since the last call, decoded. */
    List<Sent> sent() {
        List<Sent> out = new ArrayList<>();
        RocePacket p = new RocePacket();
        for (MemoryLink.Datagram d : link.takeSent()) {
            p.wrap(d.segment(), 0, d.bytes().length);
            int op = p.bth().opcode();
            int f = OpcodeTable.flags(op);
            byte[] payload = new byte[p.payloadLength()];
            MemorySegment.copy(p.segment(), ValueLayout.JAVA_BYTE, p.payloadOffset(), payload, 0, payload.length);
            out.add(new Sent(op, p.bth().psn(), p.bth().destQp(),
                (f & OpcodeTable.HAS_AETH) != 0 ? p.aeth().syndrome() : -1,
                (f & OpcodeTable.HAS_ATMACK) != 0 ? p.atomicAckEth().originalData() : 0, payload));
        }
        return out;
    }

    @Override
    public void close() {
        engine.close();
        keys.deregisterAll();
        arena.close();
    }
}
