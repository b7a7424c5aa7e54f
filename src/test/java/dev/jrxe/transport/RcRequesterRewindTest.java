package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import dev.jrxe.wire.Psn;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The requester never sends a new message with a PSN it has used: found by the simulation (quick
 * profile, seed 864) as a lost SEND. A SEND got an RNR NAK; a network duplicate of it reached the
 * responder once a receive was posted, and its ACK completed the SEND; when the RNR wait ended, the
 * requester rewound to the NAKed PSN, and the next SENDs went out with PSNs of completed ones: the
 * responder took them for duplicates, acknowledged them, and dropped them.
 */
class RcRequesterRewindTest {
    private static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;

    private static void postSend(EngineHarness h, Qp qp, long wrId) {
        SendWqe w = qp.sq.claim();
        w.wrId = wrId;
        w.opcode = WrOpcode.SEND;
        w.sendFlags = SendFlags.SIGNALED;
        w.numSge = 0;
        w.length = 0;
        w.inlined = false;
        w.state = SendWqe.POSTED;
        qp.sq.publish();
        h.engine.kick();
        h.run();
    }

    @Test
    void shouldNotReusePsnsWhenAnRnrWaitEndsAfterItsMessageWasAcknowledged() {
        long[] now = {1_000_000_000L};
        try (EngineHarness h = new EngineHarness(null, () -> now[0])) {
            Qp qp = h.connect(3, ALL, 4, 0, 0x700, 1024);
            postSend(h, qp, 1);
            List<EngineHarness.Sent> first = h.sent();
            assertThat(first).hasSize(1);
            int f = first.get(0).psn();
            // RNR NAK for it (wait 0.64 ms), then the ACK that a delivered duplicate brought
            PacketWriter w = h.begin(Opcodes.RC_ACKNOWLEDGE, qp, f);
            w.aeth().syndrome(Aeth.rnrNak(12)).msn(0);
            h.inject(0);
            h.run();
            assertThat(qp.rnrWaiting).as("waiting out the RNR NAK").isTrue();
            w = h.begin(Opcodes.RC_ACKNOWLEDGE, qp, f);
            w.aeth().syndrome(Aeth.ACK).msn(1);
            h.inject(0);
            h.run();
            assertThat(h.cq.peek()).as("the SEND completed").isNotNull();
            postSend(h, qp, 2);
            now[0] += 5_000_000; // the RNR wait is over
            h.run();
            postSend(h, qp, 3);
            List<EngineHarness.Sent> later = h.sent();
            assertThat(later).extracting(EngineHarness.Sent::psn).as("PSNs after %d", f)
                .containsExactly(Psn.add(f, 1), Psn.add(f, 2));
        }
    }

    /**
     * An RNR NAK for a SEND behind a READ whose responses are still coming: the wait resumes at the
     * READ's missing responses, but it ends early only when the SEND itself is acknowledged, not
     * when the READ completes (found in review: the wait ended as the READ's last responses came,
     * the SEND was not resent until an ACK timeout, and with timeout 0 never).
     */
    @Test
    void shouldResendTheNakedSendWhenTheReadBeforeItCompletesDuringTheWait() {
        long[] now = {1_000_000_000L};
        try (EngineHarness h = new EngineHarness(null, () -> now[0])) {
            Qp qp = h.connect(3, ALL, 4, 0, 0x700, 1024);
            java.lang.foreign.MemorySegment buf = h.arena.allocate(16384, 4096);
            dev.jrxe.memory.Region mr = dev.jrxe.memory.MemoryRegions.register(h.keys, 3, buf, Access.LOCAL_WRITE);
            SendWqe read = qp.sq.claim();
            read.wrId = 1;
            read.opcode = WrOpcode.RDMA_READ;
            read.sendFlags = SendFlags.SIGNALED;
            read.numSge = 1;
            read.sgeAddr[0] = buf.address();
            read.sgeLength[0] = 10 * 1024;
            read.sgeLkey[0] = mr.lkey();
            read.length = 10 * 1024;
            read.remoteAddr = 0x10000;
            read.rkey = 0x1234;
            read.inlined = false;
            read.state = SendWqe.POSTED;
            qp.sq.publish();
            postSend(h, qp, 2);
            List<EngineHarness.Sent> sent = h.sent();
            assertThat(sent).extracting(EngineHarness.Sent::opcode)
                .containsExactly(Opcodes.RC_RDMA_READ_REQUEST, Opcodes.RC_SEND_ONLY);
            int f = sent.get(0).psn();
            int sendPsn = sent.get(1).psn();
            assertThat(sendPsn).isEqualTo(Psn.add(f, 10));
            readResponses(h, qp, f, 0, 5);
            PacketWriter w = h.begin(Opcodes.RC_ACKNOWLEDGE, qp, sendPsn);
            w.aeth().syndrome(Aeth.rnrNak(12)).msn(0); // 0.64 ms
            h.inject(0);
            h.run();
            readResponses(h, qp, f, 5, 10); // the READ's last responses came after the RNR NAK
            assertThat(h.cq.peek()).as("the READ completed").isNotNull();
            assertThat(qp.rnrWaiting).as("the SEND's RNR wait goes on").isTrue();
            assertThat(h.sent()).isEmpty();
            now[0] += 2_000_000; // past the RNR wait, far before the 67 ms ACK timeout
            h.run();
            assertThat(h.sent()).extracting(EngineHarness.Sent::psn).as("the SEND, resent").containsExactly(sendPsn);
        }
    }

    /** READ responses {@code from} .. {@code to - 1} of a 10-packet READ that began at {@code first}. */
    private static void readResponses(EngineHarness h, Qp qp, int first, int from, int to) {
        for (int i = from; i < to; i++) {
            int op = i == 0 ? Opcodes.RC_RDMA_READ_RESPONSE_FIRST
                : i == 9 ? Opcodes.RC_RDMA_READ_RESPONSE_LAST : Opcodes.RC_RDMA_READ_RESPONSE_MIDDLE;
            PacketWriter w = h.begin(op, qp, Psn.add(first, i));
            if (op != Opcodes.RC_RDMA_READ_RESPONSE_MIDDLE) {
                w.aeth().syndrome(Aeth.ACK).msn(1);
            }
            h.payload(1024).fill((byte) i);
            h.inject(1024);
            h.run();
        }
    }
}
