package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.transport.TransportCounters;
import org.junit.jupiter.api.Test;

/**
 * The responder may hold the ACK of a message that completed a receive while the application that
 * polls for it answers, so that answer and ACK leave in one system call, and coalesce the ACKs of
 * a requester that does not wait for them (transport.AckHold); a held ACK must still go when no
 * answer comes, and a requester that waits must not be kept waiting.
 */
class RcAckHoldTest {
    private static final int ROUND_TRIPS = 300;

    @Test
    void shouldSendTheAckInTheSameSystemCallAsTheAnswerToARequesterThatWaits() {
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
            // a first round warms the path up (cold code can miss the hold's 20 us); the second is measured
            long callsA = 0;
            long pktsA = 0;
            long callsB = 0;
            long pktsB = 0;
            boolean bSent = true;
            for (int i = 0; i < 2 * ROUND_TRIPS; i++) {
                if (i == ROUND_TRIPS) {
                    callsA = la.txCalls();
                    pktsA = la.txPackets();
                    callsB = lb.txCalls();
                    pktsB = lb.txPackets();
                }
                // both wait for their previous SEND's completion before the next, as
                // ibv_rc_pingpong does: every ACK is needed at once
                f.qa.postSend(sa);
                boolean recvB = false;
                while (!(recvB && bSent)) {
                    WorkCompletion c = f.pollOk(f.cqb);
                    recvB |= c.opcode == WcOpcode.RECV;
                    bSent |= c.opcode == WcOpcode.SEND;
                }
                f.qb.postRecv(rb);
                f.qb.postSend(sb);
                bSent = false;
                boolean recv = false;
                boolean sent = false;
                while (!(recv && sent)) {
                    WorkCompletion c = f.pollOk(f.cqa);
                    recv |= c.opcode == WcOpcode.RECV;
                    sent |= c.opcode == WcOpcode.SEND;
                }
                f.qa.postRecv(ra);
            }
            assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.SEND);
            long packetsB = lb.txPackets() - pktsB;
            long packetsA = la.txPackets() - pktsA;
            // both wait: every message is acknowledged on its own, 2 packets per round trip and side
            assertThat(packetsB).isEqualTo(2L * ROUND_TRIPS);
            assertThat(packetsA).isGreaterThanOrEqualTo(2L * ROUND_TRIPS - 1);
            // without holding, each ACK takes a call of its own (calls == packets); held, the ACKs
            // ride with the answers (about one call per round trip, plus the rare probes)
            assertThat(lb.txCalls() - callsB).as("b: calls for %d packets", packetsB).isLessThan(packetsB * 3 / 4);
            assertThat(la.txCalls() - callsA).as("a: calls for %d packets", packetsA).isLessThan(packetsA * 3 / 4);
            assertThat(f.a.transportCounters().get(TransportCounters.COMPLETER_RETRY_ERR)).isZero();
            assertThat(f.b.transportCounters().get(TransportCounters.COMPLETER_RETRY_ERR)).isZero();
        }
    }

    @Test
    void shouldCoalesceTheAcksOfARequesterThatDoesNotWait() throws Exception {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            RecvWr rb = new RecvWr(1).sge(f.bufB.address() + 4096, 64, f.mrb.lkey());
            for (int i = 0; i < 200; i++) {
                f.qb.postRecv(rb);
            }
            long acksBefore = f.b.transportCounters().get(TransportCounters.SENT_PKTS);
            // a's own thread streams SENDs, taking completions only when 32 are outstanding
            java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
            Thread requester = Thread.ofPlatform().start(() -> {
                try {
                    SendWr sa = new SendWr(1).sge(f.bufA.address(), 32, f.mra.lkey());
                    sa.sendFlags = SendFlags.SIGNALED;
                    WorkCompletion[] one = {new WorkCompletion()};
                    int completed = 0;
                    for (int i = 0; i < MESSAGES; i++) {
                        while (i - completed >= 32) {
                            completed += reap(f, one);
                        }
                        f.qa.postSend(sa);
                    }
                    while (completed < MESSAGES) {
                        completed += reap(f, one);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            for (int i = 0; i < MESSAGES; i++) {
                assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.RECV);
                if (i < MESSAGES - 200) {
                    f.qb.postRecv(rb);
                }
            }
            requester.join(30_000);
            assertThat(requester.isAlive()).isFalse();
            assertThat(failure.get()).isNull();
            long acks = f.b.transportCounters().get(TransportCounters.SENT_PKTS) - acksBefore;
            // Every message is acknowledged, by fewer ACKs than messages: those of a receive batch
            // coalesce, and lazily more (measured: 49-119 ACKs for 400 without lazy ACKs, 31-48
            // with them; the lazy policy itself is AckHoldTest's)
            assertThat(acks).as("ACKs for %d SENDs", MESSAGES).isPositive().isLessThan(MESSAGES);
            assertThat(f.a.transportCounters().get(TransportCounters.COMPLETER_RETRY_ERR)).isZero();
            assertThat(f.b.transportCounters().get(TransportCounters.DUPLICATE_REQUEST)).isZero();
        }
    }

    private static final int MESSAGES = 400;

    private static int reap(RcFixture f, WorkCompletion[] one) {
        if (f.cqa.poll(one) == 0) {
            return 0;
        }
        assertThat(one[0].status).isEqualTo(WcStatus.SUCCESS);
        return 1;
    }

    @Test
    void shouldSendAHeldAckWhenTheThreadGoesOnToAnotherDevice() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            RecvWr rb = new RecvWr(1).sge(f.bufB.address() + 4096, 64, f.mrb.lkey());
            SendWr sa = new SendWr(1).sge(f.bufA.address(), 32, f.mra.lkey());
            sa.sendFlags = SendFlags.SIGNALED;
            WorkCompletion[] one = {new WorkCompletion()};
            int prompt = 0;
            StringBuilder polled = new StringBuilder();
            for (int i = 0; i < 100; i++) {
                f.qb.postRecv(rb);
                f.qa.postSend(sa);
                assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.RECV);
                // one thread, two devices (as the demo does): b may have held its ACK for an
                // answer, but this thread now waits on a for the SEND's completion. Driving a
                // sends b's ACK first, and on loopback it is there at once: no hold time (20 us,
                // a dozen polls), no wait for b's progress thread (1 ms).
                int polls = 1;
                while (f.cqa.poll(one) == 0) {
                    polls++;
                }
                assertThat(one[0].opcode).isEqualTo(WcOpcode.SEND);
                polled.append(polls).append(' ');
                if (polls <= 3) {
                    prompt++;
                }
            }
            // A round may race b's progress thread, which then sends the ACK itself (measured: 0-2
            // rounds of 50). Without the release about a third of the rounds wait for it.
            assertThat(prompt).as("rounds done within 3 polls of a; polls: %s", polled).isGreaterThanOrEqualTo(90);
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
            assertThat(f.b.transportCounters().get(TransportCounters.SENT_PKTS)).as("one ACK per message").isEqualTo(50);
        }
    }
}
