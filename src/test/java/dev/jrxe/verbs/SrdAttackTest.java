package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.transport.TransportCounters;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import dev.jrxe.wire.Srdeth;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * Forged SRD packets from a raw peer on the wire (docs/SRD.md §6): a packet of another epoch
 * cannot take over a pair that is talking, nor bring back an epoch its sender left; a base that
 * jumps past the window is dropped; an ACK with the wrong epoch, a timestamp the requester never
 * sent or a trigger PSN it never used resolves nothing; only the right ACK completes the send.
 */
class SrdAttackTest {
    private static final int QKEY = 0x3131;
    private static final String RAW = "127.0.0.9";
    private static final String A = "127.0.0.2";
    private static final int RAW_QPN = 0x4242;

    /** An SRD data packet from the raw peer to {@code destQp}. */
    private static void send(RawPeer raw, int opcode, int destQp, int psn, int epoch, int base, String to, int len) {
        PacketWriter w = raw.begin(opcode, destQp, psn);
        w.deth().qkey(QKEY).reserved(0).srcQp(RAW_QPN);
        w.srdeth().epoch(epoch).flags(Srdeth.VERSION << 4).base(base).timestamp(1).length(len);
        raw.payload(len).fill((byte) 0x5A);
        raw.send(len, to);
    }

    private static void ack(RawPeer raw, int destQp, int psn, int epoch, int base, int ts, String to) {
        PacketWriter w = raw.begin(Opcodes.SRD_ACK, destQp, psn);
        w.deth().qkey(0).reserved(0).srcQp(RAW_QPN);
        w.srdeth().epoch(epoch).flags(Srdeth.VERSION << 4).base(base).timestamp(ts).length(128);
        MemorySegment bits = raw.payload(OpcodeTable.SRD_SACK_LENGTH);
        bits.fill((byte) 0);
        bits.set(ValueLayout.JAVA_BYTE, 0, (byte) 1); // base + 0
        raw.send(OpcodeTable.SRD_SACK_LENGTH, to);
    }

    @Test
    void shouldKeepAnotherEpochOutOfAPairThatIsTalkingAndNeverBringBackAnOldOne() throws Exception {
        try (RcFixture f = new RcFixture(1 << 16);
             RawPeer raw = new RawPeer(RAW, f.a.udpPort(), RAW_QPN);
             QueuePair b = SrdDv.createQp(f.pdb, new QpInitAttr(QpType.DRIVER, f.cqb, f.cqb, new QpCap(4, 64, 1, 1, 0)), 0)) {
            UdSetup.toRts(b, QKEY, 1);
            for (int i = 0; i < 16; i++) {
                b.postRecv(new RecvWr().sge(f.bufB.address(), 1024, f.mrb.lkey()));
            }
            String to = "127.0.0.3";
            int epoch = 0x1000;
            send(raw, Opcodes.SRD_SEND, b.qpNum(), 10, epoch, 10, to, 64);
            assertThat(f.pollOk(f.cqb).srcQp).isEqualTo(RAW_QPN);
            long stale = f.b.transportCounters().get(TransportCounters.SRD_STALE);
            // a forger's other epochs, either half of the serial-number space: refused while the pair talks
            send(raw, Opcodes.SRD_SEND, b.qpNum(), 10, epoch + 5, 10, to, 64);
            send(raw, Opcodes.SRD_SEND, b.qpNum(), 10, epoch + (1 << 31), 10, to, 64);
            send(raw, Opcodes.SRD_SEND, b.qpNum(), 11, epoch, 10, to, 64); // the real sender goes on
            assertThat(f.pollOk(f.cqb).srcQp).isEqualTo(RAW_QPN);
            assertThat(f.quiet(f.cqb, 50)).as("nothing of the forged epochs delivered").isTrue();
            assertThat(f.b.transportCounters().get(TransportCounters.SRD_STALE) - stale).isEqualTo(2);
            // a replay of PSN 10 in its own epoch is a duplicate: acknowledged, not delivered again
            send(raw, Opcodes.SRD_SEND, b.qpNum(), 10, epoch, 10, to, 64);
            assertThat(f.quiet(f.cqb, 50)).isTrue();
            // after the pair has been silent long enough, a new epoch takes it (a sender that started over)
            Thread.sleep(250);
            send(raw, Opcodes.SRD_SEND, b.qpNum(), 500, epoch + 7, 500, to, 64);
            assertThat(f.pollOk(f.cqb).srcQp).isEqualTo(RAW_QPN);
            // and the epoch it left never comes back, however long the silence
            Thread.sleep(250);
            send(raw, Opcodes.SRD_SEND, b.qpNum(), 12, epoch, 12, to, 64);
            assertThat(f.quiet(f.cqb, 50)).as("the previous epoch is stale for good").isTrue();
            // a base more than the window ahead is no correct sender's: dropped, statuses kept
            long oow = f.b.transportCounters().get(TransportCounters.SRD_OUT_OF_WINDOW);
            send(raw, Opcodes.SRD_SEND, b.qpNum(), 500 + 1000, epoch + 7, 500 + 1000, to, 64);
            assertThat(f.quiet(f.cqb, 50)).isTrue();
            assertThat(f.b.transportCounters().get(TransportCounters.SRD_OUT_OF_WINDOW) - oow).isEqualTo(1);
            send(raw, Opcodes.SRD_SEND, b.qpNum(), 500, epoch + 7, 500, to, 64); // still a duplicate
            assertThat(f.quiet(f.cqb, 50)).as("the window did not move: PSN 500 is still known").isTrue();
        }
    }

    @Test
    void shouldResolveNothingOnAForgedAckAndCompleteOnlyOnTheRightOne() throws Exception {
        try (RcFixture f = new RcFixture(1 << 16);
             RawPeer raw = new RawPeer(RAW, f.a.udpPort(), RAW_QPN);
             QueuePair a = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)), 0);
             AddressHandle ah = f.pda.createAh(new AhAttr(raw.gid(), 1))) {
            UdSetup.toRts(a, QKEY, 77);
            SendWr w = new SendWr().sge(f.bufA.address(), 100, f.mra.lkey());
            w.sendFlags = SendFlags.SIGNALED;
            w.ah = ah;
            w.remoteQpn = RAW_QPN;
            w.remoteQkey = QKEY;
            a.postSend(w);
            RawPeer.Packet p = raw.await(k -> k.opcode() == Opcodes.SRD_SEND, 5000);
            assertThat(p).isNotNull();
            assertThat(p.psn()).isEqualTo(77);
            long bad = f.a.transportCounters().get(TransportCounters.SRD_BAD_RESPONSE);
            ack(raw, a.qpNum(), p.psn(), p.srdEpoch() ^ 1, p.srdBase(), p.srdTimestamp(), A); // wrong epoch
            ack(raw, a.qpNum(), p.psn(), p.srdEpoch(), p.srdBase(), p.srdTimestamp() + 60_000_000, A); // future
            ack(raw, a.qpNum(), p.psn(), p.srdEpoch(), p.srdBase(), p.srdTimestamp() - 60_000_000, A); // ancient
            ack(raw, a.qpNum(), p.psn() + 50, p.srdEpoch(), p.srdBase(), p.srdTimestamp(), A); // never sent
            assertThat(f.quiet(f.cqa, 100)).as("no forged ACK completes the send").isTrue();
            assertThat(f.a.transportCounters().get(TransportCounters.SRD_BAD_RESPONSE) - bad).isEqualTo(4);
            ack(raw, a.qpNum(), p.psn(), p.srdEpoch(), p.srdBase(), p.srdTimestamp(), A);
            WorkCompletion c = f.poll(f.cqa);
            assertThat(c.status).isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    void shouldDrawUnpredictableEpochsForEveryContext() throws Exception {
        try (RcFixture f = new RcFixture(1 << 16);
             RawPeer raw = new RawPeer(RAW, f.a.udpPort(), RAW_QPN);
             AddressHandle ah = f.pda.createAh(new AhAttr(raw.gid(), 1))) {
            java.util.Set<Integer> epochs = new java.util.HashSet<>();
            java.util.List<Integer> ordered = new java.util.ArrayList<>();
            for (int i = 0; i < 8; i++) {
                try (QueuePair a = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa,
                    new QpCap(4, 4, 1, 1, 0)), 0)) {
                    UdSetup.toRts(a, QKEY, 1);
                    SendWr w = new SendWr().sge(f.bufA.address(), 8, f.mra.lkey());
                    w.ah = ah;
                    w.remoteQpn = RAW_QPN;
                    w.remoteQkey = QKEY;
                    raw.clear();
                    a.postSend(w);
                    RawPeer.Packet p = raw.await(k -> k.opcode() == Opcodes.SRD_SEND, 5000);
                    epochs.add(p.srdEpoch());
                    ordered.add(p.srdEpoch());
                }
            }
            assertThat(epochs).hasSize(8);
            boolean sequential = true;
            for (int i = 1; i < ordered.size(); i++) {
                sequential &= ordered.get(i) - ordered.get(i - 1) == 1;
            }
            assertThat(sequential).as("epochs are not a counter").isFalse();
        }
    }
}
