package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemoryRegions;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.memory.Region;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import dev.jrxe.wire.Psn;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the RC responder does with requests that come while READ responses are still going out
 * (they leave 64 per duty cycle), and what the completer accepts as READ responses. The wire keeps
 * PSN order: an ACK never overtakes pending responses; nothing an honest requester sends is lost.
 */
class RcPendingRepliesTest {
    private static final int PD = 3;
    private static final int MTU = 1024;
    private static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE | Access.REMOTE_ATOMIC;
    private static final int P = 0x100;

    private static void read(EngineHarness h, Qp qp, int psn, long va, int rkey, int length) {
        PacketWriter w = h.begin(Opcodes.RC_RDMA_READ_REQUEST, qp, psn);
        w.bth().ackReq(true);
        w.reth().va(va).rkey(rkey).dmaLength(length);
        h.inject(0);
    }

    private static void send(EngineHarness h, Qp qp, int psn) {
        PacketWriter w = h.begin(Opcodes.RC_SEND_ONLY, qp, psn);
        w.bth().ackReq(true);
        h.payload(16).fill((byte) 4);
        h.inject(16);
    }

    /** Runs duty cycles until quiet; returns everything sent, in order. */
    private static List<EngineHarness.Sent> drain(EngineHarness h) {
        List<EngineHarness.Sent> all = new java.util.ArrayList<>();
        h.run();
        all.addAll(h.sent());
        return all;
    }

    private static int indexOfAck(List<EngineHarness.Sent> sent, int psn) {
        for (int i = 0; i < sent.size(); i++) {
            if (sent.get(i).opcode() == Opcodes.RC_ACKNOWLEDGE && sent.get(i).psn() == psn) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void shouldExecuteASendBehindPendingResponsesAndAcknowledgeItAfterThem() {
        MemorySegment mem = NativeMemory.map(512 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            Region r = MemoryRegions.register(h.keys, PD, mem, ALL);
            Qp qp = h.connect(PD, ALL, 4, P, 0, MTU);
            EngineHarness.postRecv(qp, mem.asSlice(256 * 1024), r);
            read(h, qp, P, mem.address(), r.rkey(), 256 * MTU); // 256 responses: four duty cycles
            send(h, qp, P + 256);
            List<EngineHarness.Sent> sent = drain(h);
            assertThat(sent.stream().filter(s -> s.opcode() >= Opcodes.RC_RDMA_READ_RESPONSE_FIRST
                && s.opcode() <= Opcodes.RC_RDMA_READ_RESPONSE_ONLY)).hasSize(256);
            int ack = indexOfAck(sent, P + 256);
            assertThat(ack).as("the SEND's ACK, after all 256 responses").isEqualTo(256);
            assertThat(sent.get(ack).syndrome()).isEqualTo(Aeth.ACK);
            Cqe recv = h.cq.peek();
            assertThat(recv).isNotNull();
            assertThat(recv.status).isEqualTo(WcStatus.SUCCESS);
            assertThat(qp.resp.ePsn).isEqualTo(P + 257);
            assertThat(h.engine.counters().get("behind_replies")).isZero();
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldAcknowledgeADuplicateSendThatArrivesWhileAnOlderReadIsReplayed() {
        MemorySegment mem = NativeMemory.map(512 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            Region r = MemoryRegions.register(h.keys, PD, mem, ALL);
            Qp qp = h.connect(PD, ALL, 4, P, 0, MTU);
            EngineHarness.postRecv(qp, mem.asSlice(256 * 1024), r);
            read(h, qp, P, mem.address(), r.rkey(), 256 * MTU);
            drain(h);
            send(h, qp, P + 256);
            assertThat(indexOfAck(drain(h), P + 256)).isZero();
            // the requester lost the last 100 responses: it asks for them again and resends the SEND
            read(h, qp, P + 156, mem.address() + 156L * MTU, r.rkey(), 100 * MTU);
            send(h, qp, P + 256);
            List<EngineHarness.Sent> again = drain(h);
            assertThat(again.stream().filter(s -> s.opcode() >= Opcodes.RC_RDMA_READ_RESPONSE_FIRST
                && s.opcode() <= Opcodes.RC_RDMA_READ_RESPONSE_ONLY)).hasSize(100);
            assertThat(indexOfAck(again, P + 256)).as("the duplicate SEND acknowledged after the replay").isEqualTo(100);
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldNakOnceAfterTheResponsesWhatItCouldNotAnswerWhileTheyWerePending() {
        MemorySegment mem = NativeMemory.map(512 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            Region r = MemoryRegions.register(h.keys, PD, mem, ALL);
            Qp qp = h.connect(PD, ALL, 4, P, 0, MTU);
            read(h, qp, P, mem.address(), r.rkey(), 256 * MTU);
            send(h, qp, P + 256); // no receive WQE: an RNR NAK would overtake the responses
            send(h, qp, P + 258); // out of sequence
            List<EngineHarness.Sent> sent = drain(h);
            assertThat(sent).hasSize(257);
            EngineHarness.Sent nak = sent.get(256);
            assertThat(nak.opcode()).isEqualTo(Opcodes.RC_ACKNOWLEDGE);
            assertThat(nak.syndrome()).isEqualTo(Aeth.NAK_PSN_SEQ_ERR);
            assertThat(nak.psn()).isEqualTo(P + 256);
            assertThat(h.engine.counters().get("behind_replies")).isEqualTo(2);
            assertThat(qp.state()).isEqualTo(QpState.RTS);
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldGiveTheRingEntryOfAReplayToANewRequest() {
        MemorySegment mem = NativeMemory.map(512 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            Region r = MemoryRegions.register(h.keys, PD, mem, ALL);
            Qp qp = h.connect(PD, ALL, 1, P, 0, MTU); // max_dest_rd_atomic 1
            read(h, qp, P, mem.address(), r.rkey(), 256 * MTU);
            drain(h);
            // a late duplicate of the whole READ (replayed over four cycles), then the next READ,
            // which the requester sends once it has every response of the first
            read(h, qp, P, mem.address(), r.rkey(), 256 * MTU);
            read(h, qp, P + 256, mem.address(), r.rkey(), 8);
            h.engine.runDutyCycle();
            List<EngineHarness.Sent> sent = drain(h);
            assertThat(qp.state()).isEqualTo(QpState.RTS);
            assertThat(sent.get(sent.size() - 1).opcode()).isEqualTo(Opcodes.RC_RDMA_READ_RESPONSE_ONLY);
            assertThat(sent.get(sent.size() - 1).psn()).isEqualTo(P + 256);
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldNotAcknowledgeAMessageWhoseCompletionWasLostToACqOverflow() {
        MemorySegment mem = NativeMemory.map(64 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            Region r = MemoryRegions.register(h.keys, PD, mem, ALL);
            CompletionRing one = EngineHarness.ring(1);
            Qp qp = h.connect(PD, ALL, 4, P, 0, MTU, one);
            EngineHarness.postRecv(qp, mem.asSlice(0, 64), r);
            EngineHarness.postRecv(qp, mem.asSlice(64, 64), r);
            send(h, qp, P);
            send(h, qp, P + 1); // its receive completion finds the CQ full: the QP fails
            List<EngineHarness.Sent> sent = drain(h);
            assertThat(qp.state()).isEqualTo(QpState.ERR);
            assertThat(indexOfAck(sent, P + 1)).as("no ACK for the message whose completion was lost").isNegative();
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldGiveUpAReadThatThePeerKeepsAcknowledgingWithoutAnswering() throws Exception {
        MemorySegment mem = NativeMemory.map(64 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            Region r = MemoryRegions.register(h.keys, PD, mem, ALL);
            Qp qp = h.connect(PD, ALL, 4, P, 0x500, MTU);
            h.engine.withEngine(() -> qp.timeout = 10); // 4.2 ms
            int f = Psn.of(postRead(h, qp, mem, r, MTU));
            // a plain ACK of the READ's PSN every millisecond, never a response: each asks for the
            // READ again, none is progress, so the ACK timeout still runs out, retry_cnt times
            for (int i = 0; i < 2000 && h.cq.peek() == null; i++) {
                PacketWriter w = h.begin(Opcodes.RC_ACKNOWLEDGE, qp, f);
                w.aeth().syndrome(Aeth.ACK).msn(1);
                h.inject(0);
                h.run();
                Thread.sleep(1);
            }
            assertThat(h.cq.peek()).as("the READ completes in error").isNotNull();
            assertThat(h.cq.peek().status).isEqualTo(WcStatus.RETRY_EXC_ERR);
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    /** The QP's own READ of {@code length} bytes, sent to the peer; returns its first PSN. */
    private static long postRead(EngineHarness h, Qp qp, MemorySegment into, Region r, int length) {
        SendWqe w = qp.sq.claim();
        w.wrId = 9;
        w.opcode = WrOpcode.RDMA_READ;
        w.sendFlags = dev.jrxe.ib.SendFlags.SIGNALED;
        w.numSge = 1;
        w.sgeAddr[0] = into.address();
        w.sgeLength[0] = length;
        w.sgeLkey[0] = r.lkey();
        w.length = length;
        w.remoteAddr = 0x10000;
        w.rkey = 0x1234;
        w.inlined = false;
        w.state = SendWqe.POSTED;
        qp.sq.publish();
        h.engine.kick();
        h.run();
        h.sent();
        return qp.compPsn;
    }

    @Test
    void shouldFailAReadWhoseResponsesDoNotFitItsMtuOrItsPsns() {
        MemorySegment mem = NativeMemory.map(64 * 1024);
        try (EngineHarness h = new EngineHarness()) {
            Region r = MemoryRegions.register(h.keys, PD, mem, ALL);
            // a READ of 4096 bytes at MTU 1024 answered by one response carrying all of it
            Qp a = h.connect(PD, ALL, 4, P, 0x500, MTU);
            int f = Psn.of(postRead(h, a, mem, r, 4 * MTU));
            PacketWriter w = h.begin(Opcodes.RC_RDMA_READ_RESPONSE_ONLY, a, f);
            w.aeth().syndrome(Aeth.ACK).msn(1);
            h.inject(4 * MTU);
            h.run();
            assertThat(h.cq.peek().status).isEqualTo(WcStatus.BAD_RESP_ERR);
            assertThat(a.state()).isEqualTo(QpState.ERR);
            while (h.cq.peek() != null) {
                h.cq.pop();
            }
            // a READ of one MTU answered by a FIRST that says more is to come: its LAST would
            // take a PSN of the next request
            Qp b = h.connect(PD, ALL, 4, P, 0x900, MTU);
            f = Psn.of(postRead(h, b, mem, r, MTU));
            h.begin(Opcodes.RC_RDMA_READ_RESPONSE_FIRST, b, f);
            h.inject(MTU);
            h.run();
            assertThat(h.cq.peek().status).isEqualTo(WcStatus.BAD_RESP_ERR);
            while (h.cq.peek() != null) {
                h.cq.pop();
            }
            // and four proper responses complete a READ of four
            Qp c = h.connect(PD, ALL, 4, P, 0xD00, MTU);
            f = Psn.of(postRead(h, c, mem, r, 4 * MTU));
            h.begin(Opcodes.RC_RDMA_READ_RESPONSE_FIRST, c, f);
            h.inject(MTU);
            for (int i = 1; i <= 2; i++) {
                h.begin(Opcodes.RC_RDMA_READ_RESPONSE_MIDDLE, c, f + i);
                h.inject(MTU);
            }
            w = h.begin(Opcodes.RC_RDMA_READ_RESPONSE_LAST, c, f + 3);
            w.aeth().syndrome(Aeth.ACK).msn(1);
            h.inject(MTU);
            h.run();
            assertThat(h.cq.peek().status).isEqualTo(WcStatus.SUCCESS);
            assertThat(h.cq.peek().wrId).isEqualTo(9);
        } finally {
            NativeMemory.unmap(mem);
        }
    }
}
