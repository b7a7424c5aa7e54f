package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.transport.TransportCounters;
import org.junit.jupiter.api.Test;

/**
 * The responder may hold the ACK of a message that completed a receive while the application that
 * polls for it answers, so that answer and ACK leave in one system call (Engine.sendAcks); a held
 * ACK must still go when no answer comes.
 */
class RcAckHoldTest {
    private static final int ROUND_TRIPS = 300;

    @Test
    void shouldSendTheAckInTheSameSystemCallAsTheAnswer() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            RecvWr ra = new RecvWr(1).sge(f.bufA.address() + 4096, 64, f.mra.lkey());
            RecvWr rb = new RecvWr(1).sge(f.bufB.address() + 4096, 64, f.mrb.lkey());
            SendWr sa = new SendWr(1).sge(f.bufA.address(), 32, f.mra.lkey());
            sa.sendFlags = SendFlags.SIGNALED;
            SendWr sb = new SendWr(1).sge(f.bufB.address(), 32, f.mrb.lkey());
            sb.sendFlags = SendFlags.SIGNALED;
            for (int i = 0; i < 4; i++) {
                f.qa.postRecv(ra);
                f.qb.postRecv(rb);
            }
            LinkCounters la = f.a.link().counters();
            LinkCounters lb = f.b.link().counters();
            long callsA = la.txCalls();
            long pktsA = la.txPackets();
            long callsB = lb.txCalls();
            long pktsB = lb.txPackets();
            int sentB = 0;
            for (int i = 0; i < ROUND_TRIPS; i++) {
                f.qa.postSend(sa);
                // b: the message, and on the way the completions of its earlier answers (whose
                // ACKs a holds until it sends again, as a ping-pong does)
                WorkCompletion w;
                while ((w = f.pollOk(f.cqb)).opcode == WcOpcode.SEND) {
                    sentB++;
                }
                assertThat(w.opcode).isEqualTo(WcOpcode.RECV);
                f.qb.postRecv(rb);
                f.qb.postSend(sb);
                // a: the answer and the completion of its own SEND, in either order
                boolean recv = false;
                boolean sent = false;
                while (!(recv && sent)) {
                    WorkCompletion c = f.pollOk(f.cqa);
                    recv |= c.opcode == WcOpcode.RECV;
                    sent |= c.opcode == WcOpcode.SEND;
                }
                f.qa.postRecv(ra);
            }
            while (sentB < ROUND_TRIPS) {
                assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.SEND);
                sentB++;
            }
            long packetsB = lb.txPackets() - pktsB;
            long packetsA = la.txPackets() - pktsA;
            // every message is acknowledged: 2 packets per round trip and side
            assertThat(packetsB).isGreaterThanOrEqualTo(2L * ROUND_TRIPS);
            assertThat(packetsA).isGreaterThanOrEqualTo(2L * ROUND_TRIPS - 1);
            // without holding, each ACK takes a call of its own (calls == packets); held, most
            // ACKs ride with the answer (about one call per round trip)
            assertThat(lb.txCalls() - callsB).as("b: calls for %d packets", packetsB).isLessThan(packetsB * 3 / 4);
            assertThat(la.txCalls() - callsA).as("a: calls for %d packets", packetsA).isLessThan(packetsA * 3 / 4);
            assertThat(f.a.counters().get(TransportCounters.COMPLETER_RETRY_ERR)).isZero();
            assertThat(f.b.counters().get(TransportCounters.COMPLETER_RETRY_ERR)).isZero();
        }
    }

    @Test
    void shouldSendAHeldAckWhenTheApplicationDoesNotAnswer() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            RecvWr rb = new RecvWr(1).sge(f.bufB.address() + 4096, 64, f.mrb.lkey());
            SendWr sa = new SendWr(1).sge(f.bufA.address(), 32, f.mra.lkey());
            sa.sendFlags = SendFlags.SIGNALED;
            for (int i = 0; i < 50; i++) {
                f.qb.postRecv(rb);
                f.qa.postSend(sa);
                // b's application takes the message and never answers: keeps polling (the held
                // ACK goes after the hold time) or, every other time, stops driving b at all (its
                // progress thread sends it)
                assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.RECV);
                if (i % 2 == 0) {
                    assertThat(f.quiet(f.cqb, 1)).isTrue();
                }
                assertThat(f.pollOk(f.cqa).opcode).isEqualTo(WcOpcode.SEND);
            }
            assertThat(f.b.counters().get(TransportCounters.SENT_PKTS)).as("one ACK per message").isEqualTo(50);
        }
    }
}
