package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.KeyTable;
import dev.jrxe.memory.MemoryConfig;
import dev.jrxe.memory.MemoryRegions;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.memory.Region;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A million remote accesses with forged or misused keys into a live engine: random keys, the right
 * key's neighbours, its index with each wrong 8-bit key, keys of another PD (one of them an implicit
 * ODP key covering every address), the lkey of a region without remote rights, a read-only key
 * for WRITEs, a deregistered key whose index
 * a new region of the same PD took over, ranges that run past a region or overflow 64-bit
 * addition, lengths of 2^31 and more, misaligned atomics. Every one must be answered with exactly
 * one NAK of the kind IBTA gives (remote access error; invalid request for lengths and
 * misalignment), carry no byte of memory, change no byte, and be counted under its reason.
 */
class ForgedKeyTest {
    private static final int PD = 3;
    private static final int OTHER_PD = 4;
    private static final int MTU = 1024;
    private static final long PAGE = 4096;
    private static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
    private static final int KINDS = 12;
    private static final int ATTEMPTS = Integer.getInteger("jrxe.test.forgedKeys", 1_000_000);

    /** What one forged access must earn: the NAK's syndrome and the counter that counts it. */
    record Expect(int syndrome, int counter) {
    }

    @Test
    void shouldRefuseAMillionForgedAndMisusedKeysWithoutTouchingAByte() {
        // max_mr 8: the table is full, so deregistering D lets the next region (G) take D's index
        KeyTable keys = new KeyTable(MemoryConfig.fromConfiguration().withMaxMr(8), new SplittableRandom(8));
        MemorySegment mem = NativeMemory.map(8 * PAGE);
        try (EngineHarness h = new EngineHarness(keys::lookup)) {
            mem.fill((byte) 0xA5);
            Region a = MemoryRegions.register(keys, PD, mem.asSlice(0, PAGE), ALL);
            Region b = MemoryRegions.register(keys, OTHER_PD, mem.asSlice(PAGE, PAGE), ALL);
            Region c = MemoryRegions.register(keys, PD, mem.asSlice(2 * PAGE, PAGE), Access.LOCAL_WRITE);
            Region d = MemoryRegions.register(keys, PD, mem.asSlice(3 * PAGE, PAGE), ALL);
            Region readOnly = MemoryRegions.register(keys, PD, mem.asSlice(4 * PAGE, PAGE), Access.REMOTE_READ);
            Region implicitOther = MemoryRegions.registerImplicit(keys, OTHER_PD, ALL);
            Region implicitLocal = MemoryRegions.registerImplicit(keys, PD, Access.LOCAL_WRITE);
            Region filler = MemoryRegions.register(keys, OTHER_PD, mem.asSlice(5 * PAGE, PAGE), ALL);
            int stale = d.rkey();
            MemoryRegions.deregister(d);
            Region g = MemoryRegions.register(keys, PD, mem.asSlice(3 * PAGE, PAGE), ALL);
            assertThat(g.rkey() >>> 8).as("G took D's index").isEqualTo(stale >>> 8);
            assertThat(g.rkey()).as("with another 8-bit key").isNotEqualTo(stale);
            java.util.Map<Integer, Region> keyOf = new java.util.HashMap<>();
            for (Region r : List.of(a, b, c, readOnly, implicitOther, implicitLocal, filler, g)) {
                keyOf.put(r.key(), r);
            }
            byte[] before = new byte[(int) mem.byteSize()];
            MemorySegment.copy(mem, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, before, 0, before.length);
            MemorySegment snapshot = MemorySegment.ofArray(before);

            Qp qp = h.connect(PD, ALL, 4, 0, 0, MTU);
            SplittableRandom random = new SplittableRandom(20261201);
            long[] expectedCounts = new long[TransportCounters.count()];
            long[] forged = new long[KINDS];
            for (int i = 0; i < ATTEMPTS; i++) {
                int kind = random.nextInt(KINDS);
                int op = random.nextInt(3); // 0 WRITE, 1 READ, 2 atomic
                long va = a.start() + random.nextLong(PAGE / 8) * 8;
                long len = 1 + random.nextInt(64);
                int rkey;
                switch (kind) {
                    case 0 -> rkey = random.nextInt(); // random
                    case 1 -> rkey = a.rkey() + (random.nextBoolean() ? 256 : -256); // the index next to it
                    case 2 -> rkey = (a.rkey() & ~0xFF) | ((a.rkey() + 1 + random.nextInt(255)) & 0xFF); // wrong key8
                    case 3 -> rkey = random.nextBoolean() ? b.rkey() : filler.rkey(); // another PD
                    case 4 -> { // covers every address with every right, in another PD
                        rkey = implicitOther.rkey();
                        va = random.nextLong();
                    }
                    case 5 -> { // the QP's PD, no remote rights: its lkey sent as an rkey
                        rkey = random.nextBoolean() ? c.key() : implicitLocal.key();
                        va = c.start() + random.nextLong(PAGE / 8) * 8;
                    }
                    case 6 -> rkey = stale; // deregistered; its index belongs to G now
                    case 7 -> { // a valid key, a range past its end or before its start
                        rkey = a.rkey();
                        va = random.nextBoolean() ? a.start() + PAGE - random.nextInt(8) : a.start() - 8 - random.nextInt(64);
                        len = 16 + random.nextInt(64);
                    }
                    case 8 -> { // va + len overflows 64 bits
                        rkey = a.rkey();
                        va = -8L * (1 + random.nextInt(8));
                        len = 64 + random.nextInt(1024);
                    }
                    case 9 -> { // 2^31 bytes and more: more than a message may be
                        rkey = a.rkey();
                        len = (1L << 31) + random.nextInt(Integer.MAX_VALUE);
                        op = random.nextInt(2);
                    }
                    case 10 -> { // misaligned atomic with a key that allows it
                        rkey = a.rkey();
                        va = a.start() + 1 + random.nextLong(PAGE - 16);
                        if ((va & 7) == 0) {
                            va++;
                        }
                        op = 2;
                    }
                    default -> { // a WRITE with a read-only key of the right PD
                        rkey = readOnly.rkey();
                        va = readOnly.start() + random.nextLong(PAGE - 64);
                        op = 0;
                    }
                }
                int checkedBy = kind == 9 ? -1 : kind == 10 ? TransportCounters.MISALIGNED_ATOMIC
                    : kind >= 7 && kind <= 8 ? TransportCounters.RKEY_OUT_OF_RANGE : refusal(rkey, op, keyOf);
                if (checkedBy == 0) {
                    i--; // a random or neighbouring value that is a real key allowing this: not a forgery
                    continue;
                }
                Expect e = new Expect(checkedBy < 0 || checkedBy == TransportCounters.MISALIGNED_ATOMIC
                    ? Aeth.NAK_INVALID_REQ : Aeth.NAK_REMOTE_ACCESS, checkedBy);
                int psn = qp.resp.ePsn;
                PacketWriter w;
                int payload = 0;
                if (op == 0) {
                    boolean only = len <= MTU;
                    w = h.begin(only ? Opcodes.RC_RDMA_WRITE_ONLY : Opcodes.RC_RDMA_WRITE_FIRST, qp, psn);
                    w.reth().va(va).rkey(rkey).dmaLength((int) len);
                    payload = (int) Math.min(len, MTU);
                    h.payload(payload).fill((byte) 0x3C);
                } else if (op == 1) {
                    w = h.begin(Opcodes.RC_RDMA_READ_REQUEST, qp, psn);
                    w.reth().va(va).rkey(rkey).dmaLength((int) len);
                } else {
                    w = h.begin(random.nextBoolean() ? Opcodes.RC_FETCH_ADD : Opcodes.RC_COMPARE_SWAP, qp, psn);
                    w.atomicEth().va(va).rkey(rkey).swapAdd(-1).compare(0xA5A5A5A5A5A5A5A5L);
                }
                w.bth().ackReq(true);
                long countedBefore = checkedBy > 0 ? h.engine.counters().get(checkedBy) : 0;
                h.inject(payload);
                h.run();
                List<EngineHarness.Sent> sent = h.sent();
                assertThat(sent).as("attempt %d (kind %d, op %d, rkey 0x%08x, va 0x%x, len %d)", i, kind, op, rkey,
                    va, len).hasSize(1);
                EngineHarness.Sent s = sent.get(0);
                if (s.opcode() != Opcodes.RC_ACKNOWLEDGE || s.syndrome() != e.syndrome()) {
                    throw new AssertionError(String.format("attempt %d (kind %d, op %d, rkey 0x%08x, va 0x%x, len %d): "
                        + "opcode 0x%x syndrome 0x%x, expected a NAK 0x%x", i, kind, op, rkey, va, len, s.opcode(),
                        s.syndrome(), e.syndrome()));
                }
                if (mem.mismatch(snapshot) != -1) {
                    throw new AssertionError("attempt " + i + " (kind " + kind + ") changed byte "
                        + mem.mismatch(snapshot));
                }
                if (checkedBy > 0 && h.engine.counters().get(checkedBy) != countedBefore + 1) {
                    throw new AssertionError(String.format("attempt %d (kind %d, op %d, rkey 0x%08x, va 0x%x, len %d) "
                        + "not counted under %s", i, kind, op, rkey, va, len, TransportCounters.name(checkedBy)));
                }
                expectedCounts[e.syndrome() == Aeth.NAK_INVALID_REQ ? TransportCounters.NAK_INVALID_REQUEST_SENT
                    : TransportCounters.NAK_REMOTE_ACCESS_SENT]++;
                if (e.counter() >= 0) {
                    expectedCounts[e.counter()]++;
                }
                forged[kind]++;
                assertThat(qp.state).isEqualTo(QpState.ERR);
                int event = e.syndrome() == Aeth.NAK_INVALID_REQ ? AsyncEventType.QP_REQ_ERR : AsyncEventType.QP_ACCESS_ERR;
                if (h.events.size() != 1 || h.events.get(0).type() != event) {
                    throw new AssertionError("attempt " + i + " (kind " + kind + "): events " + h.events);
                }
                h.events.clear();
                reconnect(h, qp, random.nextInt() & 0xFFFFFF);
                while (h.cq.peek() != null) {
                    h.cq.pop();
                }
            }
            TransportCounters counters = h.engine.counters();
            for (int k : new int[] {TransportCounters.RKEY_INVALID, TransportCounters.RKEY_WRONG_PD,
                TransportCounters.RKEY_NO_ACCESS, TransportCounters.RKEY_OUT_OF_RANGE, TransportCounters.MISALIGNED_ATOMIC,
                TransportCounters.NAK_INVALID_REQUEST_SENT, TransportCounters.NAK_REMOTE_ACCESS_SENT}) {
                assertThat(counters.get(k)).as(TransportCounters.name(k)).isEqualTo(expectedCounts[k]);
            }
            assertThat(counters.get(TransportCounters.RKEY_INVALID_STATE) + counters.get(TransportCounters.RKEY_FAULT)
                + counters.get(TransportCounters.NAK_REMOTE_OP_SENT)).isZero();
            for (int k = 0; k < KINDS; k++) {
                assertThat(forged[k]).as("forgeries of kind %d", k).isGreaterThan(ATTEMPTS / 24);
            }
            assertThat(java.util.Arrays.stream(forged).sum()).isEqualTo(ATTEMPTS);
        } finally {
            keys.deregisterAll(); // pins outlive an unmap on the process-wide ledger otherwise
            NativeMemory.unmap(mem);
        }
    }

    /**
     * The counter a key check must refuse {@code rkey} under for operation {@code op} (0 WRITE, 1
     * READ, 2 atomic) at an address inside the region, or 0 when the key allows it.
     */
    private static int refusal(int rkey, int op, java.util.Map<Integer, Region> keyOf) {
        Region r = keyOf.get(rkey);
        if (r == null) {
            return TransportCounters.RKEY_INVALID;
        }
        if (r.pdHandle() != PD) {
            return TransportCounters.RKEY_WRONG_PD;
        }
        int need = op == 0 ? Access.REMOTE_WRITE : op == 1 ? Access.REMOTE_READ : Access.REMOTE_ATOMIC;
        return (r.access() & need) == 0 ? TransportCounters.RKEY_NO_ACCESS : 0;
    }

    /** ERR -> RESET -> INIT -> RTR -> RTS, expecting requests from {@code psn} on. */
    private static void reconnect(EngineHarness h, Qp qp, int psn) {
        h.engine.withEngine(() -> {
            QpControl.enter(qp, QpState.RESET, false);
            qp.rqPsn = psn;
            qp.sqPsn = psn ^ 0x5A5A5A;
            QpControl.enter(qp, QpState.INIT, false);
            QpControl.enter(qp, QpState.RTR, false);
            QpControl.enter(qp, QpState.RTS, true);
        });
    }
}
