package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Errno;
import dev.jrxe.transport.TransportCounters;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * UC between two devices: segmented SENDs and WRITEs without any ACK, silent loss of whole
 * messages (a gap, no receive WQE, a refused key) with resynchronisation at the next message, and
 * under the link's fault injection never a torn message delivered.
 */
class UcTest {
    private static RcFixture uc(RcFixture f) {
        QpCap cap = new QpCap(256, 256, 2, 2, 64);
        f.qa = f.pda.createQp(new QpInitAttr(QpType.UC, f.cqa, f.cqa, cap));
        f.qb = f.pdb.createQp(new QpInitAttr(QpType.UC, f.cqb, f.cqb, cap));
        new RcConnect().pathMtu(Mtu.MTU_1024).pair(f.qa, 0x10, f.qb, 0xFFFFFE); // b's PSNs wrap
        return f;
    }

    private static void recv(RcFixture f, long off, int len, long wrId) {
        RecvWr r = new RecvWr().sge(f.bufB.address() + off, len, f.mrb.lkey());
        r.wrId = wrId;
        f.qb.postRecv(r);
    }

    private static SendWr send(RcFixture f, long off, int len, long wrId) {
        SendWr w = new SendWr().sge(f.bufA.address() + off, len, f.mra.lkey());
        w.wrId = wrId;
        w.sendFlags = SendFlags.SIGNALED;
        return w;
    }

    @Test
    void shouldSendAndWriteSegmentedMessagesWithoutAnyAck() {
        try (RcFixture f = uc(new RcFixture(1 << 20))) {
            assertThat(f.qa.state()).isEqualTo(QpState.RTS);
            RcFixture.fill(f.bufA, 0, 4096, 1);
            RcFixture.fill(f.bufA, 8192, 3000, 2);
            RcFixture.fill(f.bufA, 16384, 5000, 3);
            recv(f, 0, 4096, 1);
            recv(f, 4096, 64, 2);
            long bSentBefore = f.b.transportCounters().get(TransportCounters.SENT_PKTS);
            f.qa.postSend(send(f, 0, 4096, 10));
            SendWr wi = send(f, 8192, 3000, 11).rdma(f.bufB.address() + 65536, f.mrb.rkey());
            wi.opcode = WrOpcode.RDMA_WRITE_WITH_IMM;
            wi.immData = 0x5150;
            f.qa.postSend(wi);
            SendWr plain = send(f, 16384, 5000, 12).rdma(f.bufB.address() + 131072, f.mrb.rkey());
            plain.opcode = WrOpcode.RDMA_WRITE;
            f.qa.postSend(plain);
            for (long id = 10; id <= 12; id++) {
                assertThat(f.pollOk(f.cqa).wrId).isEqualTo(id);
            }
            WorkCompletion r1 = f.pollOk(f.cqb);
            assertThat(r1.wrId).isEqualTo(1);
            assertThat(r1.byteLen).isEqualTo(4096);
            RcFixture.assertFilled(f.bufB, 0, 4096, 1);
            WorkCompletion r2 = f.pollOk(f.cqb);
            assertThat(r2.opcode).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(r2.wcFlags & WcFlags.WITH_IMM).isNotZero();
            assertThat(r2.immData).isEqualTo(0x5150);
            assertThat(r2.byteLen).isEqualTo(3000);
            RcFixture.assertFilled(f.bufB, 65536, 3000, 2);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (f.bufB.get(ValueLayout.JAVA_BYTE, 131072 + 4999) != f.bufA.get(ValueLayout.JAVA_BYTE, 16384 + 4999)
                && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            RcFixture.assertFilled(f.bufB, 131072, 5000, 3);
            assertThat(f.b.transportCounters().get(TransportCounters.SENT_PKTS)).as("UC never answers").isEqualTo(bSentBefore);
        }
    }

    @Test
    void shouldDropAMessageWithoutReceiveWqeSilentlyAndTakeTheNextOne() {
        try (RcFixture f = uc(new RcFixture(1 << 16))) {
            long dropped = f.b.transportCounters().get(TransportCounters.UC_MSG_DROPPED);
            f.qa.postSend(send(f, 0, 2048, 1));
            f.pollOk(f.cqa); // "sent" is all UC can say
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (f.b.transportCounters().get(TransportCounters.UC_MSG_DROPPED) == dropped && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(f.b.transportCounters().get(TransportCounters.UC_MSG_DROPPED)).isEqualTo(dropped + 1);
            recv(f, 0, 4096, 7);
            RcFixture.fill(f.bufA, 0, 2048, 9);
            f.qa.postSend(send(f, 0, 2048, 2));
            f.pollOk(f.cqa);
            assertThat(f.pollOk(f.cqb).wrId).isEqualTo(7);
            RcFixture.assertFilled(f.bufB, 0, 2048, 9);
            assertThat(f.qb.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    void shouldDropAWriteWithARefusedKeyAndStayUsable() {
        try (RcFixture f = uc(new RcFixture(1 << 16))) {
            long refused = f.b.transportCounters().get(TransportCounters.RKEY_OUT_OF_RANGE);
            SendWr w = send(f, 0, 128, 1).rdma(f.bufB.address() + (1 << 16) - 64, f.mrb.rkey()); // runs past the MR
            w.opcode = WrOpcode.RDMA_WRITE;
            f.qa.postSend(w);
            f.pollOk(f.cqa);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (f.b.transportCounters().get(TransportCounters.RKEY_OUT_OF_RANGE) == refused && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(f.b.transportCounters().get(TransportCounters.RKEY_OUT_OF_RANGE)).isEqualTo(refused + 1);
            assertThat(f.bufB.get(ValueLayout.JAVA_BYTE, (1 << 16) - 64)).isZero();
            recv(f, 0, 64, 3);
            f.qa.postSend(send(f, 0, 64, 2));
            f.pollOk(f.cqa);
            assertThat(f.pollOk(f.cqb).wrId).isEqualTo(3);
            assertThat(f.qb.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    void shouldPlaceNothingOfAWriteWithImmediateWithoutReceiveWqe() {
        try (RcFixture f = uc(new RcFixture(1 << 16))) {
            RcFixture.fill(f.bufA, 0, 512, 4);
            SendWr w = send(f, 0, 512, 1).rdma(f.bufB.address() + 8192, f.mrb.rkey());
            w.opcode = WrOpcode.RDMA_WRITE_WITH_IMM;
            long dropped = f.b.transportCounters().get(TransportCounters.UC_MSG_DROPPED);
            f.qa.postSend(w);
            f.pollOk(f.cqa);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (f.b.transportCounters().get(TransportCounters.UC_MSG_DROPPED) == dropped && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(f.b.transportCounters().get(TransportCounters.UC_MSG_DROPPED)).isEqualTo(dropped + 1);
            for (int i = 0; i < 512; i++) {
                assertThat(f.bufB.get(ValueLayout.JAVA_BYTE, 8192 + i)).as("byte %d", i).isZero();
            }
        }
    }

    @Test
    void shouldCompleteATooLongSendWithALocalLengthErrorCountedNowhereElse() {
        try (RcFixture f = uc(new RcFixture(1 << 16))) {
            recv(f, 0, 1500, 5);
            long dropped = f.b.transportCounters().get(TransportCounters.UC_MSG_DROPPED);
            f.qa.postSend(send(f, 0, 4096, 1)); // four packets into 1500 bytes
            f.pollOk(f.cqa);
            WorkCompletion r = f.poll(f.cqb);
            assertThat(r.status).isEqualTo(dev.jrxe.ib.WcStatus.LOC_LEN_ERR);
            recv(f, 0, 4096, 6);
            f.qa.postSend(send(f, 0, 4096, 2));
            f.pollOk(f.cqa);
            assertThat(f.pollOk(f.cqb).wrId).isEqualTo(6);
            assertThat(f.b.transportCounters().get(TransportCounters.UC_MSG_DROPPED)).as("the error is its own report").isEqualTo(dropped);
            assertThat(f.qb.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    void shouldRefuseOperationsUcDoesNotHave() {
        try (RcFixture f = uc(new RcFixture(1 << 16))) {
            for (int op : new int[] {WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.SEND_WITH_INV,
                WrOpcode.FLUSH, WrOpcode.ATOMIC_WRITE}) {
                SendWr w = send(f, 0, 8, 1).rdma(f.bufB.address(), f.mrb.rkey());
                w.opcode = op;
                assertThatThrownBy(() -> f.qa.postSend(w)).as(WrOpcode.name(op))
                    .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            }
        }
    }

    /**
     * 10% loss, duplication and reordering on both links: every message that completes at the
     * receiver is one whole message (its own 4 KiB, byte for byte), none twice, and the losses
     * were counted as dropped messages, never as short or mixed receives.
     */
    @Test
    void shouldNeverDeliverATornOrMixedMessageUnderFaults() {
        DeviceConfig ca = DeviceConfig.of("jrxe-a", "127.0.0.2").faults(0.10, 0.05, 0.10, 11);
        DeviceConfig cb = DeviceConfig.of("jrxe-b", "127.0.0.3").faults(0.10, 0.05, 0.10, 12);
        int n = 300;
        int size = 4096;
        try (RcFixture f = uc(new RcFixture(ca, cb, (long) size * 64))) {
            for (int i = 0; i < 32; i++) {
                recv(f, (long) i * size, size, i);
            }
            int sent = 0;
            int done = 0;
            Set<Integer> delivered = new HashSet<>();
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            long deadline = System.nanoTime() + 20_000_000_000L;
            while ((done < n || !f.quiet(f.cqb, 0)) && System.nanoTime() < deadline) {
                if (sent < n && sent - done < 32) {
                    int slot = 32 + (sent % 32);
                    // message m: every 4-byte word holds m, so any mix of two messages shows
                    for (int k = 0; k < size; k += 4) {
                        f.bufA.set(ValueLayout.JAVA_INT_UNALIGNED, (long) slot * size + k, sent);
                    }
                    f.qa.postSend(send(f, (long) slot * size, size, sent));
                    sent++;
                }
                int got = f.cqa.poll(wcs);
                done += got;
                int r;
                while ((r = f.cqb.poll(wcs)) > 0) {
                    for (int j = 0; j < r; j++) {
                        WorkCompletion w = wcs[j];
                        assertThat(w.ok()).as("receive %s", w).isTrue();
                        assertThat(w.byteLen).isEqualTo(size);
                        long base = w.wrId * size;
                        int m = f.bufB.get(ValueLayout.JAVA_INT_UNALIGNED, base);
                        for (int k = 0; k < size; k += 4) {
                            assertThat(f.bufB.get(ValueLayout.JAVA_INT_UNALIGNED, base + k)).as("word %d", k).isEqualTo(m);
                        }
                        assertThat(delivered.add(m)).as("message %d delivered twice", m).isTrue();
                        f.bufB.asSlice(base, size).fill((byte) 0xEE);
                        recv(f, base, size, w.wrId);
                    }
                }
            }
            assertThat(done).isEqualTo(n);
            assertThat(delivered).isNotEmpty();
            assertThat(delivered.size()).isLessThan(n);
            assertThat(f.b.transportCounters().get(TransportCounters.UC_MSG_DROPPED)).isPositive();
        }
    }
}
