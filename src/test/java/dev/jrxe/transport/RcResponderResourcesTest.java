package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemoryRegions;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.memory.Region;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import dev.jrxe.wire.Psn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The READ/atomic resource ring of the RC responder, driven through the receive path. */
class RcResponderResourcesTest {
    private static final int PD = 3;
    private static final int MTU = 1024;
    private static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;

    private static void read(EngineHarness h, Qp qp, int psn, long va, int rkey, int length) {
        PacketWriter w = h.begin(Opcodes.RC_RDMA_READ_REQUEST, qp, psn);
        w.bth().ackReq(true);
        w.reth().va(va).rkey(rkey).dmaLength(length);
        h.inject(0);
        h.run();
    }

    /**
     * After the PSN space wrapped, an old entry may cover the PSN of a duplicate as well as the
     * entry the duplicate really repeats: the duplicate is answered from the newest.
     */
    @Test
    void shouldReplayADuplicateReadFromTheNewestEntryThatCoversItsPsn() {
        MemorySegment mem = NativeMemory.map(64 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            for (long i = 0; i < mem.byteSize(); i++) {
                mem.set(ValueLayout.JAVA_BYTE, i, (byte) (i / 1024));
            }
            Region r = MemoryRegions.register(h.keys, PD, mem, ALL);
            int a = 0x000100;
            Qp qp = h.connect(PD, ALL, 4, a, 0, MTU);
            read(h, qp, a, mem.address(), r.rkey(), 8); // entry 1: PSN a, 8 bytes at the start
            assertThat(h.sent()).hasSize(1);
            // 2^24 - 1 PSNs later (as after 16 M SENDs): a 2-response READ at a - 1 covers a again
            h.engine.withEngine(() -> qp.resp.ePsn = Psn.add(a, -1));
            read(h, qp, Psn.add(a, -1), mem.address() + 8 * 1024, r.rkey(), 2 * MTU);
            List<EngineHarness.Sent> second = h.sent();
            assertThat(second).hasSize(2);
            // its second response was lost: the requester asks for it again, PSN a
            read(h, qp, a, mem.address() + 9 * 1024, r.rkey(), MTU);
            List<EngineHarness.Sent> replay = h.sent();
            assertThat(replay).hasSize(1);
            assertThat(replay.get(0).opcode()).isEqualTo(Opcodes.RC_RDMA_READ_RESPONSE_LAST);
            assertThat(replay.get(0).psn()).isEqualTo(a);
            assertThat(replay.get(0).payload()).hasSize(MTU).containsOnly((byte) 9);
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldNakAReadBeyondTheRingAsTooManyOutstanding() {
        MemorySegment mem = NativeMemory.map(256 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            Region r = MemoryRegions.register(h.keys, PD, mem, ALL);
            Qp qp = h.connect(PD, ALL, 2, 0x10, 0, MTU);
            // three READs of 256 responses in one receive batch, with max_dest_rd_atomic 2: the
            // replies go out 64 a duty cycle, so the third finds both entries still answering
            for (int i = 0; i < 3; i++) {
                PacketWriter w = h.begin(Opcodes.RC_RDMA_READ_REQUEST, qp, 0x10 + 256 * i);
                w.reth().va(mem.address()).rkey(r.rkey()).dmaLength(256 * MTU);
                h.inject(0);
            }
            h.engine.runDutyCycle();
            List<EngineHarness.Sent> sent = h.sent();
            EngineHarness.Sent nak = sent.get(sent.size() - 1);
            assertThat(nak.opcode()).isEqualTo(Opcodes.RC_ACKNOWLEDGE);
            assertThat(nak.syndrome()).isEqualTo(dev.jrxe.wire.Aeth.NAK_INVALID_REQ);
            assertThat(nak.psn()).isEqualTo(0x10 + 512);
            assertThat(qp.state()).isEqualTo(dev.jrxe.ib.QpState.ERR);
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldSendAHugeReadABudgetPerDutyCycleInPsnOrder() {
        MemorySegment mem = NativeMemory.map(256 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            Region r = MemoryRegions.register(h.keys, PD, mem, ALL);
            Qp qp = h.connect(PD, ALL, 4, 0x10, 0, MTU);
            PacketWriter w = h.begin(Opcodes.RC_RDMA_READ_REQUEST, qp, 0x10);
            w.reth().va(mem.address()).rkey(r.rkey()).dmaLength(256 * MTU);
            h.inject(0);
            int psn = 0x10;
            for (int cycle = 0; cycle < 4; cycle++) {
                h.engine.runDutyCycle();
                List<EngineHarness.Sent> sent = h.sent();
                assertThat(sent).as("cycle %d", cycle).hasSize(RcResponder.BUDGET);
                for (EngineHarness.Sent s : sent) {
                    assertThat(s.psn()).isEqualTo(psn++);
                }
            }
            h.engine.runDutyCycle();
            assertThat(h.sent()).isEmpty();
            assertThat(qp.resp.pendingReplies).isZero();
        } finally {
            NativeMemory.unmap(mem);
        }
    }
}
