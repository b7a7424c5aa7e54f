package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.net.Links;
import dev.jrxe.net.LinkMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Devices of several engines ({@link DeviceConfig#engines}): each engine a socket of one
 * SO_REUSEPORT group, the kernel steering each packet by its DestQP to the engine that owns the
 * QP. If a packet reached another engine it would be dropped (no such QP there) and RC would
 * retry until it failed: every test below counts such drops and insists on none.
 */
class MultiEngineTest {
    private static final int QPS = 8;
    private static final int SLOT = 64 * 1024;

    private static DeviceConfig config(String name, String addr, int port, int engines) {
        return DeviceConfig.of(name, addr).udpPort(port).engines(engines);
    }

    private static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion wc = new WorkCompletion();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (cq.poll(new WorkCompletion[] {wc}) == 0) {
            assertThat(System.nanoTime()).as("a completion within 20 s").isLessThan(deadline);
        }
        assertThat(wc.status).as(WcStatus.str(wc.status)).isEqualTo(WcStatus.SUCCESS);
        return wc;
    }

    @Test
    void shouldSpreadQpsOverEnginesAndSteerEveryPacketToItsQpsEngine() {
        assumeNative();
        int port = RcFixture.nextPort();
        try (Device a = Device.open(config("me-a", "127.0.0.2", port, 2));
             Device b = Device.open(config("me-b", "127.0.0.3", port, 2));
             Arena arena = Arena.ofShared()) {
            assertThat(a.engines()).isEqualTo(2);
            ProtectionDomain pda = a.allocPd();
            ProtectionDomain pdb = b.allocPd();
            MemorySegment bufA = arena.allocate((long) QPS * SLOT, 4096);
            MemorySegment bufB = arena.allocate((long) QPS * SLOT * 2, 4096);
            RcFixture.fill(bufA, 0, bufA.byteSize(), 9);
            MemoryRegion mra = pda.registerMemory(bufA, RcFixture.ALL_ACCESS);
            MemoryRegion mrb = pdb.registerMemory(bufB, RcFixture.ALL_ACCESS);
            QueuePair[] qa = new QueuePair[QPS];
            QueuePair[] qb = new QueuePair[QPS];
            CompletionQueue[] ca = new CompletionQueue[QPS];
            CompletionQueue[] cb = new CompletionQueue[QPS];
            Set<Integer> enginesA = new HashSet<>();
            Set<Integer> enginesB = new HashSet<>();
            for (int i = 0; i < QPS; i++) {
                ca[i] = a.createCq(64);
                cb[i] = b.createCq(64);
                qa[i] = pda.createQp(new QpInitAttr(QpType.RC, ca[i], ca[i], new QpCap(16, 16, 1, 1, 0)));
                qb[i] = pdb.createQp(new QpInitAttr(QpType.RC, cb[i], cb[i], new QpCap(16, 16, 1, 1, 0)));
                // a QP's number says its engine, as the kernel's steering program computes it
                assertThat(a.engineOf(qa[i].qpNum())).isSameAs(qa[i].engine());
                assertThat(b.engineOf(qb[i].qpNum())).isSameAs(qb[i].engine());
                enginesA.add(qa[i].engine().index());
                enginesB.add(qb[i].engine().index());
                new RcConnect().accessFlags(RcFixture.ALL_ACCESS).pair(qa[i], 100 + i, qb[i], 900 + i);
            }
            assertThat(enginesA).as("QPs with CQs of their own spread over both engines").containsExactly(0, 1);
            assertThat(enginesB).containsExactly(0, 1);

            // every QP WRITEs 64 KiB (64 packets at MTU 1024) and SENDs 4 KiB, all at once
            SendWr w = new SendWr(1);
            for (int i = 0; i < QPS; i++) {
                RecvWr r = new RecvWr().sge(mrb, (long) (QPS + i) * SLOT, SLOT);
                r.wrId = i;
                qb[i].postRecv(r);
                w.sge(mra, (long) i * SLOT, SLOT).remote(new RemoteBuffer(bufB.address() + (long) i * SLOT, SLOT, mrb.rkey()));
                w.opcode = WrOpcode.RDMA_WRITE;
                w.sendFlags = 0;
                qa[i].postSend(w);
                w.sge(mra, (long) i * SLOT, 4096);
                w.opcode = WrOpcode.SEND;
                w.sendFlags = SendFlags.SIGNALED;
                qa[i].postSend(w);
            }
            for (int i = 0; i < QPS; i++) {
                assertThat(poll(ca[i]).opcode).isEqualTo(WcOpcode.SEND);
                WorkCompletion r = poll(cb[i]);
                assertThat(r.opcode).isEqualTo(WcOpcode.RECV);
                assertThat(r.byteLen).isEqualTo(4096);
                assertThat(r.qpNum).isEqualTo(qb[i].qpNum());
            }
            for (int i = 0; i < QPS; i++) {
                // the WRITE's bytes, then the SEND's, each where its QP put them
                assertThat(bufB.asSlice((long) i * SLOT, SLOT).mismatch(bufA.asSlice((long) i * SLOT, SLOT))).isEqualTo(-1);
                assertThat(bufB.asSlice((long) (QPS + i) * SLOT, 4096).mismatch(bufA.asSlice((long) i * SLOT, 4096))).isEqualTo(-1);
            }
            for (Device d : new Device[] {a, b}) {
                assertThat(d.counters().get("link_drop_no_qp")).as(d.name() + ": packets on the wrong engine").isZero();
                assertThat(d.counters().get("retry_exceeded_err")).isZero();
                for (int e = 0; e < 2; e++) {
                    assertThat(d.engineOf(e).link().counters().rxPackets()).as(d.name() + " engine " + e + " received")
                        .isPositive();
                }
            }
            assertThat(a.counters().get("link_rx_packets")).as("the device's count sums its engines'")
                .isEqualTo(a.engineOf(0).link().counters().rxPackets() + a.engineOf(1).link().counters().rxPackets());
            for (int i = 0; i < QPS; i++) {
                qa[i].close();
                qb[i].close();
            }
        }
    }

    @Test
    void shouldPutQpsThatShareACqOnOneEngineAndRefuseCqsOfTwoEngines() {
        assumeNative();
        int port = RcFixture.nextPort();
        try (Device a = Device.open(config("me-share", "127.0.0.2", port, 2))) {
            ProtectionDomain pd = a.allocPd();
            CompletionQueue shared = a.createCq(64);
            QueuePair first = pd.createQp(new QpInitAttr(QpType.RC, shared, shared, new QpCap(4, 4, 1, 1, 0)));
            QueuePair second = pd.createQp(new QpInitAttr(QpType.RC, shared, shared, new QpCap(4, 4, 1, 1, 0)));
            assertThat(second.engine()).isSameAs(first.engine());
            assertThat(second.qpNum() % 2).isEqualTo(first.qpNum() % 2);
            // a fresh CQ goes to the other engine (fewest QPs), so a QP of both CQs cannot be served
            CompletionQueue other = a.createCq(64);
            QueuePair third = pd.createQp(new QpInitAttr(QpType.RC, other, other, new QpCap(4, 4, 1, 1, 0)));
            assertThat(third.engine()).isNotSameAs(first.engine());
            assertThatThrownBy(() -> pd.createQp(new QpInitAttr(QpType.RC, shared, other, new QpCap(4, 4, 1, 1, 0))))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL))
                .hasMessageContaining("different engines");
            assertThat(a.liveQps()).as("the refused QP is not counted").isEqualTo(3);
            // an SRQ binds like a CQ
            SharedReceiveQueue srq = pd.createSrq(new SharedReceiveQueue.Attr(16, 1, 0));
            QpInitAttr withSrq = new QpInitAttr(QpType.RC, other, other, new QpCap(4, 4, 1, 1, 0));
            withSrq.srq = srq;
            QueuePair fourth = pd.createQp(withSrq);
            assertThat(fourth.engine()).isSameAs(third.engine());
            QpInitAttr srqElsewhere = new QpInitAttr(QpType.RC, shared, shared, new QpCap(4, 4, 1, 1, 0));
            srqElsewhere.srq = srq;
            assertThatThrownBy(() -> pd.createQp(srqElsewhere)).isInstanceOf(VerbsException.class)
                .hasMessageContaining("different engines");
            for (QueuePair q : new QueuePair[] {first, second, third, fourth}) {
                q.close();
            }
            srq.close();
        }
    }

    @Test
    void shouldPutQp1OnTheEngineTheKernelSteersQpn1ToAndCarryUdBetweenEngines() {
        assumeNative();
        int port = RcFixture.nextPort();
        try (Device a = Device.open(config("me-ud-a", "127.0.0.2", port, 2));
             Device b = Device.open(config("me-ud-b", "127.0.0.3", port, 2));
             Arena arena = Arena.ofShared()) {
            ProtectionDomain pda = a.allocPd();
            ProtectionDomain pdb = b.allocPd();
            CompletionQueue gsiCq = a.createCq(16);
            QueuePair gsi = pda.createGsiQp(new QpInitAttr(QpType.UD, gsiCq, gsiCq, new QpCap(4, 4, 1, 1, 0)));
            assertThat(gsi.qpNum()).isEqualTo(1);
            assertThat(gsi.engine().index()).isEqualTo(1);
            MemorySegment buf = arena.allocate(4 * 4096, 4096);
            MemoryRegion mra = pda.registerMemory(buf.asSlice(0, 8192), Access.LOCAL_WRITE);
            MemoryRegion mrb = pdb.registerMemory(buf.asSlice(8192, 8192), Access.LOCAL_WRITE);
            // two UD QPs on each device, one per engine; every sender reaches every receiver
            QueuePair[] ua = new QueuePair[2];
            QueuePair[] ub = new QueuePair[2];
            CompletionQueue[] ca = new CompletionQueue[2];
            CompletionQueue[] cb = new CompletionQueue[2];
            for (int i = 0; i < 2; i++) {
                ca[i] = a.createCq(64);
                cb[i] = b.createCq(64);
                ua[i] = pda.createQp(new QpInitAttr(QpType.UD, ca[i], ca[i], new QpCap(16, 16, 1, 1, 0)));
                ub[i] = pdb.createQp(new QpInitAttr(QpType.UD, cb[i], cb[i], new QpCap(16, 16, 1, 1, 0)));
                UdSetup.toRts(ua[i], 0x1234, 0x10 + i);
                UdSetup.toRts(ub[i], 0x1234, 0x20 + i);
            }
            assertThat(ub[0].engine()).isNotSameAs(ub[1].engine());
            try (AddressHandle ah = pda.createAh(new AhAttr(b.queryGid(1, 1), 1))) {
                for (int to = 0; to < 2; to++) {
                    for (int from = 0; from < 2; from++) {
                        RecvWr r = new RecvWr().sge(mrb, 0, 40 + 256);
                        ub[to].postRecv(r);
                        SendWr s = new SendWr().sge(mra, 0, 256);
                        s.sendFlags = SendFlags.SIGNALED;
                        s.ah = ah;
                        s.remoteQpn = ub[to].qpNum();
                        s.remoteQkey = 0x1234;
                        ua[from].postSend(s);
                        poll(ca[from]);
                        WorkCompletion got = poll(cb[to]);
                        assertThat(got.srcQp).isEqualTo(ua[from].qpNum());
                        assertThat(got.qpNum).isEqualTo(ub[to].qpNum());
                    }
                }
            }
            assertThat(b.counters().get("link_drop_no_qp")).isZero();
            for (int i = 0; i < 2; i++) {
                ua[i].close();
                ub[i].close();
            }
            gsi.close();
        }
    }

    @Test
    void shouldRefuseATakenPortAndWhatSeveralEnginesCannotDo() {
        assumeNative();
        int port = RcFixture.nextPort();
        try (Device a = Device.open(config("me-taken", "127.0.0.2", port, 2))) {
            // the group's port is taken: neither a second group nor a lone socket joins it
            assertThatThrownBy(() -> Device.open(config("me-taken2", "127.0.0.2", port, 2)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
            assertThatThrownBy(() -> Device.open(config("me-taken1", "127.0.0.2", port, 1)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
            assertThat(a.engines()).isEqualTo(2);
        }
        try (Device lone = Device.open(config("me-lone", "127.0.0.2", port, 1))) {
            assertThatThrownBy(() -> Device.open(config("me-group", "127.0.0.2", port, 2)))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EADDRINUSE));
        }
        assertThatThrownBy(() -> Device.open(config("me-chan", "127.0.0.2", port, 2).linkMode("channel")))
            .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        assertThatThrownBy(() -> DeviceConfig.of("me-many", "127.0.0.2").engines(17))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeviceConfig.of("me-none", "127.0.0.2").engines(0))
            .isInstanceOf(IllegalArgumentException.class);
        // port 0: one free port for the whole group
        try (Device any = Device.open(config("me-any", "127.0.0.2", 0, 3))) {
            assertThat(any.udpPort()).isPositive();
            for (int e = 0; e < 3; e++) {
                assertThat(any.engineOf(e).link().localPort()).isEqualTo(any.udpPort());
            }
        }
    }

    private static void assumeNative() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Links.supported(LinkMode.MMSG), "needs the native link");
    }
}
