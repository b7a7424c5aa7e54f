package dev.jrxe.transport;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemoryRegions;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.memory.Region;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import dev.jrxe.wire.Psn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Arbitrary packet sequences from a connected peer (and from strangers) into a live engine with
 * registered memory, to RC, UC and UD QPs, and the two invariants of the security boundary after every input:
 * <ol>
 *   <li>no byte changes outside the memory a peer may write: the remote-writable region, the
 *       remote-atomic region and the receive buffers posted (SENDs and READ responses land
 *       there);</li>
 *   <li>no READ response carries a byte of anything but the remote-readable region, whose bytes
 *       are 0..0x7F in a fixed pattern (each next byte one more, mod 128) while every byte a peer
 *       cannot write and may not read is 0x80 or more.</li>
 * </ol>
 * And every packet is accounted for: dropped under a reason, or accepted by a responder or completer.
 * The memory is one mapping: a local-only secret, the regions, a region of another PD with every
 * right (reachable only across the PD check), guard gaps; an implicit ODP region of the QP's PD
 * with local access only and one of another PD with all rights cover the whole address space.
 * The input is read by {@link Input}: the fuzzer's bytes, or a test's random ones.
 */
final class LiveEngineHarness implements AutoCloseable {
    private static final int PD = 5;
    private static final int OTHER_PD = 6;
    private static final int MTU = 256;
    private static final long PAGE = 4096;
    static final long SECRET = 0;
    static final long WRITABLE = 2 * PAGE;
    static final long READABLE = 5 * PAGE;
    static final long ATOMIC = 8 * PAGE;
    static final long OTHER = 11 * PAGE;
    static final long RECV = 14 * PAGE;
    static final long SIZE = 18 * PAGE;
    private static final long REGION = 2 * PAGE;
    private static final int[] OPCODES = {
        Opcodes.RC_SEND_FIRST, Opcodes.RC_SEND_MIDDLE, Opcodes.RC_SEND_LAST, Opcodes.RC_SEND_LAST_WITH_IMMEDIATE,
        Opcodes.RC_SEND_ONLY, Opcodes.RC_SEND_ONLY_WITH_IMMEDIATE, Opcodes.RC_RDMA_WRITE_FIRST,
        Opcodes.RC_RDMA_WRITE_MIDDLE, Opcodes.RC_RDMA_WRITE_LAST, Opcodes.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
        Opcodes.RC_RDMA_WRITE_ONLY, Opcodes.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcodes.RC_RDMA_READ_REQUEST,
        Opcodes.RC_RDMA_READ_RESPONSE_FIRST, Opcodes.RC_RDMA_READ_RESPONSE_MIDDLE,
        Opcodes.RC_RDMA_READ_RESPONSE_LAST, Opcodes.RC_RDMA_READ_RESPONSE_ONLY, Opcodes.RC_ACKNOWLEDGE,
        Opcodes.RC_ATOMIC_ACKNOWLEDGE, Opcodes.RC_COMPARE_SWAP, Opcodes.RC_FETCH_ADD,
        Opcodes.RC_SEND_LAST_WITH_INVALIDATE, Opcodes.RC_SEND_ONLY_WITH_INVALIDATE, Opcodes.UD_SEND_ONLY,
        Opcodes.UD_SEND_ONLY_WITH_IMMEDIATE, Opcodes.UC_SEND_FIRST, Opcodes.UC_SEND_MIDDLE, Opcodes.UC_SEND_LAST,
        Opcodes.UC_SEND_LAST_WITH_IMMEDIATE, Opcodes.UC_SEND_ONLY, Opcodes.UC_SEND_ONLY_WITH_IMMEDIATE,
        Opcodes.UC_RDMA_WRITE_FIRST, Opcodes.UC_RDMA_WRITE_MIDDLE, Opcodes.UC_RDMA_WRITE_LAST,
        Opcodes.UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, Opcodes.UC_RDMA_WRITE_ONLY, Opcodes.UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
    };
    private static final long[] LENGTHS = {0, 1, 7, 8, MTU - 1, MTU, MTU + 1, 2 * MTU, REGION - 1, REGION,
        REGION + 1, 1L << 31, (1L << 31) + 1, 0xFFFFFFFFL};

    private final EngineHarness h = new EngineHarness();
    private final MemorySegment mem = NativeMemory.map(SIZE);
    private final byte[] before = new byte[(int) SIZE];
    private final int[] keys;
    /** Two RC QPs (one with every right, one with none), a UC QP with every right, a UD QP. */
    private final Qp[] qps = new Qp[4];
    private final MemorySegment scratch = MemorySegment.ofArray(new byte[4096]);
    long inputs;
    long packets;

    LiveEngineHarness() {
        for (long i = 0; i < SIZE; i++) {
            mem.set(ValueLayout.JAVA_BYTE, i, (byte) (0x80 | (i * 31 >>> 3)));
        }
        for (long i = 0; i < REGION; i++) {
            mem.set(ValueLayout.JAVA_BYTE, READABLE + i, (byte) (i & 0x7F));
        }
        Region writable = MemoryRegions.register(h.keys, PD, slice(WRITABLE), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        Region readable = MemoryRegions.register(h.keys, PD, slice(READABLE), Access.REMOTE_READ);
        Region atomic = MemoryRegions.register(h.keys, PD, slice(ATOMIC), Access.LOCAL_WRITE | Access.REMOTE_ATOMIC);
        Region other = MemoryRegions.register(h.keys, OTHER_PD, slice(OTHER),
            Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
        Region recv = MemoryRegions.register(h.keys, PD, mem.asSlice(RECV, 4 * PAGE), Access.LOCAL_WRITE);
        Region secret = MemoryRegions.register(h.keys, PD, slice(SECRET), Access.LOCAL_WRITE);
        Region implicitLocal = MemoryRegions.registerImplicit(h.keys, PD, Access.LOCAL_WRITE);
        Region implicitOther = MemoryRegions.registerImplicit(h.keys, OTHER_PD,
            Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC);
        keys = new int[] {writable.key(), readable.key(), atomic.key(), other.key(), recv.key(), secret.key(),
            implicitLocal.key(), implicitOther.key()};
        int all = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
        qps[0] = h.connect(PD, all, 4, 0, 0, MTU);
        qps[1] = h.connect(PD, 0, 1, 0, 0, MTU);
        qps[2] = h.connect(dev.jrxe.ib.QpType.UC, PD, all, 0, 0, 0, MTU, h.cq);
        qps[3] = h.connect(dev.jrxe.ib.QpType.UD, PD, 0, 0, 0, 0, MTU, h.cq);
    }

    private MemorySegment slice(long offset) {
        return mem.asSlice(offset, REGION);
    }

    /** Reads an input as a stream of small decisions; past its end every read is 0. */
    static final class Input {
        private final byte[] data;
        private int at;

        Input(byte[] data) {
            this.data = data;
        }

        boolean more() {
            return at < data.length;
        }

        int u8() {
            return at < data.length ? data[at++] & 0xFF : 0;
        }

        int u16() {
            return u8() << 8 | u8();
        }

        int i32() {
            return u16() << 16 | u16();
        }

        long i64() {
            return (long) i32() << 32 | (i32() & 0xFFFFFFFFL);
        }

        int pick(int n) {
            return u8() % n;
        }
    }

    /** One input: fresh QPs and receive buffers, up to 48 packets, duty cycles, the invariants. */
    void run(byte[] data) {
        Input in = new Input(data);
        inputs++;
        int startPsn = in.u16() << 8 | in.u8();
        h.engine.withEngine(() -> {
            for (Qp qp : qps) {
                QpControl.enter(qp, QpState.RESET, false);
                qp.rqPsn = startPsn;
                qp.sqPsn = startPsn ^ 0x5A5A5A;
                QpControl.enter(qp, QpState.INIT, false);
                QpControl.enter(qp, QpState.RTR, false);
                QpControl.enter(qp, QpState.RTS, true);
            }
        });
        while (h.cq.peek() != null) {
            h.cq.pop();
        }
        h.sent();
        for (Qp qp : qps) {
            postReceives(qp, in);
            if (qp.isRc()) {
                postRequests(qp, in); // READs and atomics: RC's; the completer of UC/UD has none
            }
        }
        h.run();
        h.sent(); // the requests the QPs sent: the peer's answers come from the input
        MemorySegment.copy(mem, ValueLayout.JAVA_BYTE, 0, before, 0, before.length);
        for (int n = 0; n < 48 && in.more(); n++) {
            packet(in);
            packets++;
            if (in.u8() < 64) {
                h.run();
                check();
            }
        }
        h.run();
        check();
    }

    private void postReceives(Qp qp, Input in) {
        for (int i = 0; i < 4; i++) {
            RecvWqe w = qp.rq.claim();
            if (w == null) {
                return;
            }
            w.wrId = i;
            w.numSge = 1 + in.pick(3);
            w.length = 0;
            for (int s = 0; s < w.numSge; s++) {
                w.sgeAddr[s] = mem.address() + RECV + in.u16() % (3 * PAGE);
                w.sgeLength[s] = in.pick(4) == 0 ? 0 : 1 + in.u16() % 600;
                w.sgeLkey[s] = in.pick(8) == 0 ? in.i32() : keys[4];
                w.length += w.sgeLength[s];
            }
            qp.rq.publish();
        }
    }

    /** A READ and an atomic of the QP's own, into the receive area, so the completer has work. */
    private void postRequests(Qp qp, Input in) {
        SendWqe r = qp.sq.claim();
        if (r != null) {
            fillWqe(r, WrOpcode.RDMA_READ, 1 + in.u16() % (4 * MTU));
            qp.sq.publish();
        }
        SendWqe a = qp.sq.claim();
        if (a != null) {
            fillWqe(a, WrOpcode.ATOMIC_FETCH_AND_ADD, 8);
            qp.sq.publish();
        }
        h.engine.kick();
    }

    private void fillWqe(SendWqe w, int opcode, int length) {
        w.wrId = 100 + opcode;
        w.opcode = opcode;
        w.sendFlags = SendFlags.SIGNALED;
        w.numSge = 1;
        w.sgeAddr[0] = mem.address() + RECV + 3 * PAGE;
        w.sgeLength[0] = length;
        w.sgeLkey[0] = keys[4];
        w.length = length;
        w.remoteAddr = 0x10000;
        w.rkey = 0x1234;
        w.compareAdd = 1;
        w.inlined = false;
        w.state = SendWqe.POSTED;
    }

    private void packet(Input in) {
        Qp qp = qps[in.pick(qps.length)];
        int opcode = OPCODES[in.pick(OPCODES.length)];
        int type = qp.transport.opcodeType();
        for (int tries = 0; tries < 8 && in.pick(4) != 0 && !OpcodeTable.has(opcode, type); tries++) {
            opcode = OPCODES[in.pick(OPCODES.length)]; // mostly the QP's own transport, sometimes any
        }
        boolean response = !OpcodeTable.has(opcode, OpcodeTable.REQUEST);
        int base = response ? Psn.of(qp.compPsn) : qp.resp.ePsn;
        int psn = in.pick(4) == 0 ? in.i32() : Psn.add(base, (byte) in.u8() % 5);
        int destQp = in.pick(16) == 0 ? in.i32() & 0xFFFFFF : qp.qpn;
        PacketWriter w = h.begin(opcode, qp, psn);
        w.bth().destQp(destQp).ackReq(in.u8() < 128);
        if (in.pick(16) == 0) {
            w.bth().pkey(in.u16());
        }
        int f = OpcodeTable.flags(opcode);
        int rkey = in.pick(8) == 0 ? in.i32() : keys[in.pick(keys.length)] ^ (in.pick(16) == 0 ? 1 : 0);
        long va = address(in);
        long length = in.pick(4) == 0 ? in.i32() & 0xFFFFFFFFL : LENGTHS[in.pick(LENGTHS.length)];
        if ((f & OpcodeTable.HAS_RETH) != 0) {
            w.reth().va(va).rkey(rkey).dmaLength((int) length);
        }
        if ((f & OpcodeTable.HAS_ATMETH) != 0) {
            w.atomicEth().va(va).rkey(rkey).swapAdd(in.i64()).compare(in.i64());
        }
        if ((f & OpcodeTable.HAS_AETH) != 0) {
            w.aeth().syndrome(in.pick(2) == 0 ? 0x1F : in.u8()).msn(in.u16());
        }
        if ((f & OpcodeTable.HAS_ATMACK) != 0) {
            w.atomicAckEth().originalData(in.i64());
        }
        if ((f & OpcodeTable.HAS_IMMDT) != 0) {
            w.immDt().immediate(in.i32());
        }
        if ((f & OpcodeTable.HAS_IETH) != 0) {
            w.ieth().rkey(rkey);
        }
        if ((f & OpcodeTable.HAS_DETH) != 0) {
            w.deth().qkey(in.pick(4) == 0 ? in.i32() : EngineHarness.UD_QKEY).srcQp(in.i32() & 0xFFFFFF);
        }
        int payload = 0;
        if ((f & OpcodeTable.HAS_PAYLOAD) != 0) {
            payload = switch (in.pick(4)) {
                case 0 -> MTU;
                case 1 -> 0;
                default -> in.u16() % (MTU + 2);
            };
            h.payload(payload).fill((byte) in.u8());
        }
        h.inject(payload, in.pick(16) == 0 ? EngineHarness.PEER + 1 : EngineHarness.PEER);
    }

    /** An address at or near a region's edges, or anywhere. */
    private long address(Input in) {
        long[] starts = {SECRET, WRITABLE, READABLE, ATOMIC, OTHER, RECV};
        return switch (in.pick(4)) {
            case 0 -> in.i64();
            case 1 -> mem.address() + starts[in.pick(starts.length)] + REGION - in.pick(16);
            default -> mem.address() + starts[in.pick(starts.length)] + (in.u16() % (REGION + 64)) - 32;
        };
    }

    private void check() {
        if (h.engine.counters().get(TransportCounters.TRANSPORT_ERRORS) != 0
            || h.link.counters().drops(dev.jrxe.net.DropReason.OTHER) != 0) {
            throw new AssertionError("an exception escaped the transport (" + inputs + " inputs)");
        }
        // every packet is accounted for: a drop under its reason, or taken by a responder/completer
        long dropped = 0;
        for (dev.jrxe.net.DropReason r : dev.jrxe.net.DropReason.values()) {
            if (r != dev.jrxe.net.DropReason.SEND_FAILED) {
                dropped += h.link.counters().drops(r);
            }
        }
        if (dropped + accepted() != packets) {
            throw new AssertionError(packets + " packets in, " + dropped + " dropped and " + accepted()
                + " accepted (" + inputs + " inputs)");
        }
        for (int i = 0; i < before.length; i++) {
            long off = i;
            boolean mayChange = (off >= WRITABLE && off < WRITABLE + REGION) || (off >= ATOMIC && off < ATOMIC + REGION)
                || (off >= RECV && off < RECV + 4 * PAGE);
            if (!mayChange && mem.get(ValueLayout.JAVA_BYTE, off) != before[i]) {
                throw new AssertionError("byte at offset " + off + " changed: " + before[i] + " -> "
                    + mem.get(ValueLayout.JAVA_BYTE, off) + " (" + inputs + " inputs, " + packets + " packets)");
            }
        }
        for (EngineHarness.Sent s : h.sent()) {
            if (s.opcode() < Opcodes.RC_RDMA_READ_RESPONSE_FIRST || s.opcode() > Opcodes.RC_RDMA_READ_RESPONSE_ONLY) {
                continue;
            }
            byte[] p = s.payload();
            for (int k = 0; k < p.length; k++) {
                if ((p[k] & 0x80) != 0 || (k > 0 && p[k] != (byte) ((p[k - 1] + 1) & 0x7F))) {
                    throw new AssertionError("READ response psn 0x" + Integer.toHexString(s.psn())
                        + " carries a byte that is not of the readable region at " + k);
                }
            }
        }
    }

    /** Packets that passed the engine's checks and reached a responder or completer. */
    long accepted() {
        return h.engine.counters().get(TransportCounters.RCVD_PKTS);
    }

    @Override
    public void close() {
        h.close();
        NativeMemory.unmap(mem);
    }
}
