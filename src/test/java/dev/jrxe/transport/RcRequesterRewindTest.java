package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.memory.Access;
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
}
