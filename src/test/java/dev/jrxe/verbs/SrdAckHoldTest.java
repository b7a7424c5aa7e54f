package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.transport.TransportCounters;
import org.junit.jupiter.api.Test;

/**
 * An SRD responder whose application thread polls may hold the ACK of a SEND that completed a
 * receive until the application answers, and the answer takes it along in one system call (as RC
 * does, RcAckHoldTest): the ACK leaves from the answer's path port, since the link sends one run
 * of datagrams per source port. A held ACK still goes when no answer comes.
 */
class SrdAckHoldTest {
    private static final int QKEY = 0x11111111;
    private static final int ROUND_TRIPS = 300;

    /** One SRD QP on each device, in RTS, and the address handles between them. */
    private static final class Pair implements AutoCloseable {
        final RcFixture f = new RcFixture(8192);
        final QueuePair qa;
        final QueuePair qb;
        final AddressHandle toB;
        final AddressHandle toA;

        Pair() {
            QpCap cap = new QpCap(16, 16, 1, 1, 0);
            qa = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, cap.copy()), 0);
            qb = SrdDv.createQp(f.pdb, new QpInitAttr(QpType.DRIVER, f.cqb, f.cqb, cap.copy()), 0);
            UdSetup.toRts(qa, QKEY, 0x100);
            UdSetup.toRts(qb, QKEY, 0x200);
            toB = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1));
            toA = f.pdb.createAh(new AhAttr(f.a.queryGid(1, 1), 1));
        }

        SendWr send(boolean fromA) {
            SendWr w = fromA ? new SendWr(1).sge(f.bufA.address(), 32, f.mra.lkey())
                : new SendWr(1).sge(f.bufB.address(), 32, f.mrb.lkey());
            w.sendFlags = SendFlags.SIGNALED;
            w.ah = fromA ? toB : toA;
            w.remoteQpn = (fromA ? qb : qa).qpNum();
            w.remoteQkey = QKEY;
            return w;
        }

        @Override
        public void close() {
            qa.close();
            qb.close();
            toB.close();
            toA.close();
            f.close();
        }
    }

    /** Polls {@code cq} until both a RECV and a SEND completed (in either order). */
    private static void awaitRecvAndSend(RcFixture f, CompletionQueue cq) {
        boolean recv = false;
        boolean sent = false;
        while (!(recv && sent)) {
            WorkCompletion c = f.pollOk(cq);
            recv |= c.opcode == WcOpcode.RECV;
            sent |= c.opcode == WcOpcode.SEND;
        }
    }

    @Test
    void shouldSendTheAckInTheSameSystemCallAsTheAnswer() {
        try (Pair p = new Pair()) {
            RcFixture f = p.f;
            RecvWr ra = new RecvWr(1).sge(f.bufA.address() + 4096, 64, f.mra.lkey());
            RecvWr rb = new RecvWr(1).sge(f.bufB.address() + 4096, 64, f.mrb.lkey());
            SendWr sa = p.send(true);
            SendWr sb = p.send(false);
            for (int i = 0; i < 4; i++) {
                p.qa.postRecv(ra);
                p.qb.postRecv(rb);
            }
            LinkCounters la = f.a.link().counters();
            LinkCounters lb = f.b.link().counters();
            long callsA = 0;
            long pktsA = 0;
            long callsB = 0;
            long pktsB = 0;
            // as srd-pingpong (ibv_ud_pingpong's loop): each side sends its next message once its
            // receive and its previous SEND (that is, the peer's ACK) completed
            p.qa.postSend(sa);
            awaitRecvAndSendOnB(p, rb, sb, true);
            for (int i = 0; i < 2 * ROUND_TRIPS; i++) {
                if (i == ROUND_TRIPS) { // the first half warms the path up (cold code can miss the hold)
                    callsA = la.txCalls();
                    pktsA = la.txPackets();
                    callsB = lb.txCalls();
                    pktsB = lb.txPackets();
                }
                awaitRecvAndSend(f, f.cqa);
                p.qa.postRecv(ra);
                p.qa.postSend(sa);
                awaitRecvAndSendOnB(p, rb, sb, false);
            }
            long packetsA = la.txPackets() - pktsA;
            long packetsB = lb.txPackets() - pktsB;
            // every message is acknowledged: a message and an ACK per round trip and side (a's ACK
            // of b's last answer may or may not have gone yet; a stall can add a retransmission)
            assertThat(packetsA).isGreaterThanOrEqualTo(2L * ROUND_TRIPS - 1);
            assertThat(packetsB).isGreaterThanOrEqualTo(2L * ROUND_TRIPS);
            // without the hold (or with the ACK on another port than the answer) calls == packets
            assertThat(la.txCalls() - callsA).as("a: calls for %d packets", packetsA).isLessThan(packetsA * 3 / 4);
            assertThat(lb.txCalls() - callsB).as("b: calls for %d packets", packetsB).isLessThan(packetsB * 3 / 4);
        }
    }

    /** b's side of a round: its receive (and, after the first, its previous SEND) complete; it answers. */
    private static void awaitRecvAndSendOnB(Pair p, RecvWr rb, SendWr sb, boolean first) {
        if (first) {
            assertThat(p.f.pollOk(p.f.cqb).opcode).isEqualTo(WcOpcode.RECV);
        } else {
            awaitRecvAndSend(p.f, p.f.cqb);
        }
        p.qb.postRecv(rb);
        p.qb.postSend(sb);
    }

    @Test
    void shouldSendAHeldAckBeforeTheQpGoesToErrorOrReset() {
        for (int round = 0; round < 6; round++) {
            try (Pair p = new Pair()) {
                RcFixture f = p.f;
                p.qb.postRecv(new RecvWr(1).sge(f.bufB.address() + 4096, 64, f.mrb.lkey()));
                p.qa.postSend(p.send(true));
                // b's application takes the message (its poll holds the ACK for an answer) and
                // at once tears its QP down: the message was delivered, so the ACK must go first,
                // or a retries into a QP that forgot it and fails a delivered message
                assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.RECV);
                int state = round % 2 == 0 ? dev.jrxe.ib.QpState.ERR : dev.jrxe.ib.QpState.RESET;
                p.qb.modify(new QpAttr().state(state), dev.jrxe.ib.QpAttrMask.STATE);
                WorkCompletion c = f.pollOk(f.cqa);
                assertThat(c.opcode).isEqualTo(WcOpcode.SEND);
                assertThat(f.a.transportCounters().get(TransportCounters.SRD_RETRANSMITS)).as("round %d", round).isZero();
            }
        }
    }

    @Test
    void shouldSendAHeldAckWhenTheApplicationDoesNotAnswer() {
        try (Pair p = new Pair()) {
            RcFixture f = p.f;
            RecvWr rb = new RecvWr(1).sge(f.bufB.address() + 4096, 64, f.mrb.lkey());
            SendWr sa = p.send(true);
            for (int i = 0; i < 50; i++) {
                p.qb.postRecv(rb);
                p.qa.postSend(sa);
                // b's application takes the message and never answers: it keeps polling (the held
                // ACK goes after the hold time) or, every other time, stops driving b at all (its
                // progress thread sends it)
                assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.RECV);
                if (i % 2 == 0) {
                    assertThat(f.quiet(f.cqb, 1)).isTrue();
                }
                assertThat(f.pollOk(f.cqa).opcode).isEqualTo(WcOpcode.SEND);
            }
            assertThat(f.b.transportCounters().get(TransportCounters.SRD_ACKS_SENT)).isGreaterThanOrEqualTo(50);
        }
    }
}
