package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.net.DropReason;
import dev.jrxe.ib.Errno;
import dev.jrxe.transport.TransportCounters;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * UD between two devices: datagrams with the GRH area, Q_Key rules, address handles (from a GID
 * and from a received completion), length limits, missing receive WQEs, and the verbs' refusals.
 */
class UdTest {
    static final int QKEY = 0x11111111;
    private RcFixture f;
    private QueuePair ua;
    private QueuePair ub;

    @BeforeEach
    void open() {
        f = new RcFixture(1 << 16);
        ua = f.pda.createQp(new QpInitAttr(QpType.UD, f.cqa, f.cqa, new QpCap(64, 64, 2, 2, 64)));
        ub = f.pdb.createQp(new QpInitAttr(QpType.UD, f.cqb, f.cqb, new QpCap(64, 64, 2, 2, 64)));
        UdSetup.toRts(ua, QKEY, 0x111);
        UdSetup.toRts(ub, QKEY, 0x222);
    }

    @AfterEach
    void close() {
        ua.close();
        ub.close();
        f.close();
    }

    private AddressHandle ahTo(ProtectionDomain pd, Device peer) {
        return pd.createAh(new AhAttr(peer.queryGid(1, 1), 1));
    }

    private void recvB(long off, int len, long wrId) {
        RecvWr r = new RecvWr().sge(f.bufB.address() + off, len, f.mrb.lkey());
        r.wrId = wrId;
        ub.postRecv(r);
    }

    private SendWr sendA(AddressHandle ah, long off, int len, int qkey) {
        SendWr w = new SendWr().sge(f.bufA.address() + off, len, f.mra.lkey());
        w.wrId = 7;
        w.sendFlags = SendFlags.SIGNALED;
        w.ah = ah;
        w.remoteQpn = ub.qpNum();
        w.remoteQkey = qkey;
        return w;
    }

    @Test
    void shouldDeliverDatagramAfterGrhAreaWithSourceQpAndIpv4Header() {
        RcFixture.fill(f.bufA, 0, 1024, 3);
        recvB(0, 40 + 1024, 5);
        try (AddressHandle ah = ahTo(f.pda, f.b)) {
            ua.postSend(sendA(ah, 0, 1024, QKEY));
            WorkCompletion s = f.pollOk(f.cqa);
            assertThat(s.opcode).isEqualTo(WcOpcode.SEND);
            WorkCompletion r = f.pollOk(f.cqb);
            assertThat(r.wrId).isEqualTo(5);
            assertThat(r.opcode).isEqualTo(WcOpcode.RECV);
            assertThat(r.byteLen).isEqualTo(40 + 1024);
            assertThat(r.wcFlags & WcFlags.GRH).isEqualTo(WcFlags.GRH);
            assertThat(r.srcQp).isEqualTo(ua.qpNum());
            assertThat(r.qpNum).isEqualTo(ub.qpNum());
            RcFixture.assertFilled(f.bufB, 40, 1024, 3);
            // the GRH area: 20 zero bytes, then the IPv4 header as rxe leaves it there
            for (int i = 0; i < 20; i++) {
                assertThat(f.bufB.get(ValueLayout.JAVA_BYTE, i)).isZero();
            }
            MemorySegment ip = f.bufB.asSlice(20, 20);
            ValueLayout.OfInt be = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            assertThat(ip.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x45);
            assertThat(ip.get(ValueLayout.JAVA_BYTE, 9)).isEqualTo((byte) 17);
            assertThat(ip.get(be, 12)).isEqualTo(f.a.queryGid(1, 1).ipv4());
            assertThat(ip.get(be, 16)).isEqualTo(f.b.queryGid(1, 1).ipv4());
            int total = Short.toUnsignedInt(ip.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 2));
            assertThat(total).isEqualTo(20 + 8 + 12 + 8 + 1024 + 4); // IP + UDP + BTH + DETH + payload + ICRC
            int sum = 0;
            for (int i = 0; i < 20; i += 2) {
                sum += Short.toUnsignedInt(ip.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), i));
            }
            sum = (sum & 0xFFFF) + (sum >>> 16);
            assertThat(sum).as("IPv4 header checksum").isEqualTo(0xFFFF);
        }
    }

    @Test
    void shouldCarryImmediateData() {
        recvB(0, 40 + 64, 1);
        try (AddressHandle ah = ahTo(f.pda, f.b)) {
            SendWr w = sendA(ah, 0, 64, QKEY);
            w.opcode = WrOpcode.SEND_WITH_IMM;
            w.immData = 0xCAFE;
            ua.postSend(w);
            f.pollOk(f.cqa);
            WorkCompletion r = f.pollOk(f.cqb);
            assertThat(r.wcFlags & WcFlags.WITH_IMM).isNotZero();
            assertThat(r.immData).isEqualTo(0xCAFE);
        }
    }

    @Test
    void shouldUseTheQpsQkeyWhenTheRequestsHasTheHighBitSet() {
        recvB(0, 40 + 8, 1);
        try (AddressHandle ah = ahTo(f.pda, f.b)) {
            ua.postSend(sendA(ah, 0, 8, 0x80000000)); // "use mine": ua's Q_Key is QKEY, ub's too
            f.pollOk(f.cqa);
            f.pollOk(f.cqb);
        }
    }

    @Test
    void shouldDropAndCountADatagramWithTheWrongQkey() {
        recvB(0, 40 + 8, 1);
        long before = f.b.link().counters().drops(DropReason.BAD_QKEY);
        try (AddressHandle ah = ahTo(f.pda, f.b)) {
            ua.postSend(sendA(ah, 0, 8, 0x22222222));
            f.pollOk(f.cqa); // sent: UD does not know whether anyone took it
            assertThat(f.quiet(f.cqb, 300)).isTrue();
            assertThat(f.b.link().counters().drops(DropReason.BAD_QKEY)).isEqualTo(before + 1);
            // the WQE is still there for the next good datagram
            ua.postSend(sendA(ah, 0, 8, QKEY));
            f.pollOk(f.cqa);
            assertThat(f.pollOk(f.cqb).wrId).isEqualTo(1);
        }
    }

    @Test
    void shouldAnswerTheSenderThroughAnAddressHandleFromTheCompletion() {
        recvB(0, 40 + 16, 1);
        RecvWr ra = new RecvWr().sge(f.bufA.address() + 4096, 40 + 16, f.mra.lkey());
        ua.postRecv(ra);
        try (AddressHandle ah = ahTo(f.pda, f.b)) {
            ua.postSend(sendA(ah, 0, 16, QKEY));
            f.pollOk(f.cqa);
            WorkCompletion r = f.pollOk(f.cqb);
            AhAttr back = AddressHandle.initFromWc(f.b, 1, r, f.bufB.asSlice(0, 40));
            assertThat(back.dgid).isEqualTo(f.a.queryGid(1, 1));
            assertThat(back.sgidIndex).isEqualTo(1);
            assertThat(back.hopLimit).isEqualTo(0xFF);
            try (AddressHandle reply = f.pdb.createAhFromWc(r, f.bufB.asSlice(0, 40), 1)) {
                SendWr w = new SendWr().sge(f.bufB.address() + 8192, 16, f.mrb.lkey());
                w.sendFlags = SendFlags.SIGNALED;
                w.ah = reply;
                w.remoteQpn = r.srcQp;
                w.remoteQkey = QKEY;
                ub.postSend(w);
                f.pollOk(f.cqb);
                WorkCompletion back2 = f.pollOk(f.cqa);
                assertThat(back2.srcQp).isEqualTo(ub.qpNum());
            }
        }
    }

    @Test
    void shouldRefuseAnAddressHandleFromACompletionWithoutGrh() {
        WorkCompletion wc = new WorkCompletion();
        assertThatThrownBy(() -> f.pdb.createAhFromWc(wc, f.bufB.asSlice(0, 40), 1))
            .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    @Test
    void shouldCompleteALongerDatagramThanTheBufferWithALocalLengthErrorAndGoOn() {
        recvB(0, 40 + 100, 1);
        recvB(4096, 40 + 100, 2);
        try (AddressHandle ah = ahTo(f.pda, f.b)) {
            ua.postSend(sendA(ah, 0, 200, QKEY));
            f.pollOk(f.cqa);
            WorkCompletion r = f.poll(f.cqb);
            assertThat(r.status).isEqualTo(WcStatus.LOC_LEN_ERR);
            assertThat(r.wrId).isEqualTo(1);
            assertThat(ub.state()).isEqualTo(QpState.RTS); // rxe class D: the QP goes on
            ua.postSend(sendA(ah, 0, 100, QKEY));
            f.pollOk(f.cqa);
            assertThat(f.pollOk(f.cqb).wrId).isEqualTo(2);
        }
    }

    @Test
    void shouldFailASendLongerThanThePortMtuLocally() {
        int mtu = dev.jrxe.ib.Mtu.bytes(f.a.activeMtu());
        try (AddressHandle ah = ahTo(f.pda, f.b)) {
            long sentBefore = f.a.transportCounters().get(TransportCounters.SENT_PKTS);
            ua.postSend(sendA(ah, 0, mtu + 1, QKEY));
            WorkCompletion s = f.poll(f.cqa);
            assertThat(s.status).isEqualTo(WcStatus.LOC_LEN_ERR);
            assertThat(f.a.transportCounters().get(TransportCounters.SENT_PKTS)).isEqualTo(sentBefore);
            // nothing was sent and the QP goes on: its other peers keep their service
            assertThat(ua.state()).isEqualTo(QpState.RTS);
            recvB(0, 40 + 8, 3);
            ua.postSend(sendA(ah, 0, 8, QKEY));
            f.pollOk(f.cqa);
            assertThat(f.pollOk(f.cqb).wrId).isEqualTo(3);
        }
    }

    @Test
    void shouldDropADatagramLongerThanTheReceivingPortsMtu() {
        int port = RcFixture.nextPort();
        try (Device small = Device.open(DeviceConfig.of("jrxe-small", "127.0.0.4").udpPort(port).activeMtu(1024));
             Device big = Device.open(DeviceConfig.of("jrxe-big", "127.0.0.5").udpPort(port));
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            ProtectionDomain ps = small.allocPd();
            ProtectionDomain pb = big.allocPd();
            MemorySegment bs = arena.allocate(8192, 4096);
            MemorySegment bb = arena.allocate(8192, 4096);
            MemoryRegion ms = ps.registerMemory(bs, dev.jrxe.ib.Access.LOCAL_WRITE);
            MemoryRegion mb = pb.registerMemory(bb, dev.jrxe.ib.Access.LOCAL_WRITE);
            CompletionQueue cs = small.createCq(8);
            CompletionQueue cb = big.createCq(8);
            try (QueuePair qs = ps.createQp(new QpInitAttr(QpType.UD, cs, cs, new QpCap(4, 4, 1, 1, 0)));
                 QueuePair qb = pb.createQp(new QpInitAttr(QpType.UD, cb, cb, new QpCap(4, 4, 1, 1, 0)));
                 AddressHandle ah = pb.createAh(new AhAttr(small.queryGid(1, 1), 1))) {
                UdSetup.toRts(qs, QKEY, 0);
                UdSetup.toRts(qb, QKEY, 0);
                qs.postRecv(new RecvWr(1).sge(bs.address(), 8192, ms.lkey()));
                long before = small.link().counters().drops(DropReason.OVERSIZED);
                SendWr w = new SendWr(1).sge(bb.address(), 2048, mb.lkey());
                w.sendFlags = SendFlags.SIGNALED;
                w.ah = ah;
                w.remoteQpn = qs.qpNum();
                w.remoteQkey = QKEY;
                qb.postSend(w);
                f.pollOk(cb);
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (small.link().counters().drops(DropReason.OVERSIZED) == before && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertThat(small.link().counters().drops(DropReason.OVERSIZED)).isEqualTo(before + 1);
                assertThat(f.quiet(cs, 100)).isTrue();
            }
        }
    }

    @Test
    void shouldDropAndCountADatagramWithoutReceiveWqe() {
        long before = f.b.transportCounters().get(TransportCounters.UD_NO_RECV_WQE);
        try (AddressHandle ah = ahTo(f.pda, f.b)) {
            ua.postSend(sendA(ah, 0, 8, QKEY));
            f.pollOk(f.cqa);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (f.b.transportCounters().get(TransportCounters.UD_NO_RECV_WQE) == before && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(f.b.transportCounters().get(TransportCounters.UD_NO_RECV_WQE)).isEqualTo(before + 1);
            assertThat(ub.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    void shouldRefuseUdSendsWithoutLiveAddressHandleOrOfAnotherPd() {
        AddressHandle ah = ahTo(f.pda, f.b);
        SendWr none = sendA(null, 0, 8, QKEY);
        assertThatThrownBy(() -> ua.postSend(none))
            .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        try (ProtectionDomain other = f.a.allocPd(); AddressHandle foreign = ahTo(other, f.b)) {
            assertThatThrownBy(() -> ua.postSend(sendA(foreign, 0, 8, QKEY)))
                .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
        ah.close();
        assertThatThrownBy(() -> ua.postSend(sendA(ah, 0, 8, QKEY)))
            .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    @Test
    void shouldRefuseOperationsUdDoesNotHave() {
        try (AddressHandle ah = ahTo(f.pda, f.b)) {
            for (int op : new int[] {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_FETCH_AND_ADD,
                WrOpcode.SEND_WITH_INV, WrOpcode.BIND_MW, WrOpcode.LOCAL_INV}) {
                SendWr w = sendA(ah, 0, 8, QKEY);
                w.opcode = op;
                w.numSge = op == WrOpcode.BIND_MW || op == WrOpcode.LOCAL_INV ? 0 : 1;
                assertThatThrownBy(() -> ua.postSend(w)).as(WrOpcode.name(op))
                    .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            }
        }
    }

    @Test
    void shouldRefuseAddressHandlesRoceCannotUse() {
        AhAttr noGrh = new AhAttr(f.b.queryGid(1, 1), 1);
        noGrh.isGlobal = false;
        AhAttr linkLocal = new AhAttr(Gid.linkLocal(f.b.address()), 1);
        AhAttr badSgid = new AhAttr(f.b.queryGid(1, 1), 5);
        AhAttr emptySgid = new AhAttr(f.b.queryGid(1, 1), 0);
        for (AhAttr bad : new AhAttr[] {noGrh, linkLocal, badSgid, emptySgid}) {
            assertThatThrownBy(() -> f.pda.createAh(bad))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    @Test
    void shouldSendFromTheExtendedApiWithSetUdAddr() {
        recvB(0, 40 + 32, 1);
        QpInitAttr init = new QpInitAttr(QpType.UD, f.cqa, f.cqa, new QpCap(8, 8, 1, 1, 0));
        init.sendOpsFlags = dev.jrxe.ib.SendOps.SEND;
        try (QueuePair ex = f.pda.createQp(init); AddressHandle ah = ahTo(f.pda, f.b)) {
            UdSetup.toRts(ex, QKEY, 1);
            QpEx x = ex.ex();
            x.start();
            x.wrId = 9;
            x.wrFlags = SendFlags.SIGNALED;
            x.send();
            x.setSge(f.mra.lkey(), f.bufA.address(), 32);
            x.setUdAddr(ah, ub.qpNum(), QKEY);
            x.complete();
            assertThat(f.pollOk(f.cqa).wrId).isEqualTo(9);
            assertThat(f.pollOk(f.cqb).srcQp).isEqualTo(ex.qpNum());
            // without an address the batch fails and posts nothing
            x.start();
            x.send();
            x.setSge(f.mra.lkey(), f.bufA.address(), 32);
            assertThatThrownBy(x::complete)
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    /**
     * 10% loss and reordering and 5% corruption on both links: every datagram that arrives is one
     * whole datagram as sent (its own id in every word), none twice; corrupted ones die at the ICRC.
     */
    @Test
    void shouldNeverDeliverACorruptedOrDuplicatedDatagramUnderFaults() {
        close();
        f = new RcFixture(DeviceConfig.of("jrxe-a", "127.0.0.2").faults(0.10, 0, 0.10, 21).corrupt(0.05),
            DeviceConfig.of("jrxe-b", "127.0.0.3").faults(0.10, 0, 0.10, 22).corrupt(0.05), 1 << 17);
        ua = f.pda.createQp(new QpInitAttr(QpType.UD, f.cqa, f.cqa, new QpCap(64, 64, 1, 1, 0)));
        ub = f.pdb.createQp(new QpInitAttr(QpType.UD, f.cqb, f.cqb, new QpCap(64, 64, 1, 1, 0)));
        UdSetup.toRts(ua, QKEY, 1);
        UdSetup.toRts(ub, QKEY, 2);
        int n = 400;
        int size = 1024;
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        try (AddressHandle ah = ahTo(f.pda, f.b)) {
            for (int i = 0; i < 48; i++) {
                recvB((long) i * 2048, 40 + size, i);
            }
            int sent = 0;
            int done = 0;
            long deadline = System.nanoTime() + 20_000_000_000L;
            while ((done < n || !f.quiet(f.cqb, 50)) && System.nanoTime() < deadline) {
                if (sent < n && sent - done < 16) {
                    long src = 65536 + (long) (sent % 16) * size;
                    for (int k = 0; k < size; k += 4) {
                        f.bufA.set(ValueLayout.JAVA_INT_UNALIGNED, src + k, sent);
                    }
                    ua.postSend(sendA(ah, src, size, QKEY));
                    sent++;
                }
                done += f.cqa.poll(wcs);
                int r;
                while ((r = f.cqb.poll(wcs)) > 0) {
                    for (int j = 0; j < r; j++) {
                        WorkCompletion w = wcs[j];
                        assertThat(w.ok()).as("%s", w).isTrue();
                        assertThat(w.byteLen).isEqualTo(40 + size);
                        long base = w.wrId * 2048 + 40;
                        int id = f.bufB.get(ValueLayout.JAVA_INT_UNALIGNED, base);
                        for (int k = 0; k < size; k += 4) {
                            assertThat(f.bufB.get(ValueLayout.JAVA_INT_UNALIGNED, base + k)).as("word %d", k).isEqualTo(id);
                        }
                        assertThat(seen.add(id)).as("datagram %d twice", id).isTrue();
                        recvB(w.wrId * 2048, 40 + size, w.wrId);
                    }
                }
            }
            assertThat(done).isEqualTo(n);
        }
        assertThat(seen).isNotEmpty().hasSizeLessThan(n);
        assertThat(f.b.link().counters().drops(DropReason.BAD_ICRC)).as("corruption was met").isPositive();
    }
}
