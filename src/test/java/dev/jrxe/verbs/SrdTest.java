package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.SendOps;
import dev.jrxe.ib.WcFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Errno;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * jrxe SRD between two devices, one test per case of rdma-core's test_efa_srd.py (send,
 * send_imm, rdma_read, rdma_write, write_with_imm, unsolicited write_with_imm, old send, old
 * send_imm, zero size, cq events with old and new post, and the bad flows with their errnos), plus
 * the SRD-specific behaviour: remote errors that leave the QP up, RNR, a vanished peer.
 */
class SrdTest {
    static final int QKEY = 0x11111111;
    static final int ITERS = 100;
    static final int QP_COUNT = 4;
    static final int MSG = 1024;
    private RcFixture f;
    private QueuePair[] client;
    private QueuePair[] server;
    private AddressHandle ahToServer;
    private AddressHandle ahToClient;

    /** {@code QP_COUNT} SRD QP pairs, walked to RTS as UD's are. */
    private void players(int sendOps, int qpFlags, int qpCount, QpCap cap) {
        f = new RcFixture(4 << 20);
        client = new QueuePair[qpCount];
        server = new QueuePair[qpCount];
        for (int i = 0; i < qpCount; i++) {
            QpInitAttr ia = new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, cap.copy());
            ia.sendOpsFlags = sendOps;
            client[i] = SrdDv.createQp(f.pda, ia, 0);
            QpInitAttr ib = new QpInitAttr(QpType.DRIVER, f.cqb, f.cqb, cap.copy());
            ib.sendOpsFlags = sendOps;
            server[i] = SrdDv.createQp(f.pdb, ib, qpFlags);
            UdSetup.toRts(client[i], QKEY, 0x100 * i);
            UdSetup.toRts(server[i], QKEY, 0xFFFFF0 - i);
        }
        ahToServer = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1));
        ahToClient = f.pdb.createAh(new AhAttr(f.a.queryGid(1, 1), 1));
    }

    private void players(int sendOps) {
        players(sendOps, 0, QP_COUNT, new QpCap(ITERS, ITERS, 1, 1, 0));
    }

    @AfterEach
    void close() {
        if (f == null) {
            return;
        }
        if (client == null) {
            f.close();
            return;
        }
        for (int i = 0; i < client.length; i++) {
            client[i].close();
            server[i].close();
        }
        ahToServer.close();
        ahToClient.close();
        f.close();
    }

    private void recv(QueuePair qp, long off, int len, long wrId) {
        RecvWr r = new RecvWr().sge(f.bufB.address() + off, len, f.mrb.lkey());
        r.wrId = wrId;
        qp.postRecv(r);
    }

    private SendWr sendWr(int opcode, long off, int len, int qp) {
        SendWr w = new SendWr().sge(f.bufA.address() + off, len, f.mra.lkey());
        w.opcode = opcode;
        w.wrId = off;
        w.sendFlags = SendFlags.SIGNALED;
        w.ah = ahToServer;
        w.remoteQpn = server[qp].qpNum();
        w.remoteQkey = QKEY;
        return w;
    }

    /** rdma-core's traffic(): per iteration and QP, one message each way checked byte by byte. */
    private void traffic(int opcode, boolean newSend, int size) {
        for (int it = 0; it < ITERS; it++) {
            for (int q = 0; q < client.length; q++) {
                int seed = it * 31 + q;
                RcFixture.fill(f.bufA, 0, size, seed);
                f.bufB.asSlice(0, Math.max(1, size)).fill((byte) 0);
                recv(server[q], 0, Math.max(size, 1), 1000 + it);
                if (newSend) {
                    QpEx x = client[q].ex();
                    x.start();
                    x.wrId = it;
                    x.wrFlags = SendFlags.SIGNALED;
                    if (opcode == WrOpcode.SEND_WITH_IMM) {
                        x.sendImm(0x1234 + it);
                    } else {
                        x.send();
                    }
                    x.setUdAddr(ahToServer, server[q].qpNum(), QKEY);
                    x.setSge(f.mra.lkey(), f.bufA.address(), size);
                    x.complete();
                } else {
                    SendWr w = sendWr(opcode, 0, size, q);
                    w.immData = 0x1234 + it;
                    client[q].postSend(w);
                }
                WorkCompletion s = f.pollOk(f.cqa);
                assertThat(s.opcode).isEqualTo(WcOpcode.SEND);
                assertThat(s.qpNum).isEqualTo(client[q].qpNum());
                WorkCompletion r = f.pollOk(f.cqb);
                assertThat(r.wrId).isEqualTo(1000 + it);
                assertThat(r.opcode).isEqualTo(WcOpcode.RECV);
                assertThat(r.byteLen).as("no GRH area on SRD").isEqualTo(size);
                assertThat(r.srcQp).isEqualTo(client[q].qpNum());
                assertThat(r.qpNum).isEqualTo(server[q].qpNum());
                assertThat(r.wcFlags & WcFlags.GRH).isZero();
                if (opcode == WrOpcode.SEND_WITH_IMM) {
                    assertThat(r.wcFlags & WcFlags.WITH_IMM).isNotZero();
                    assertThat(r.immData).isEqualTo(0x1234 + it);
                }
                RcFixture.assertFilled(f.bufB, 0, size, seed);
            }
        }
    }

    /** rdma_traffic(): WRITE or READ between the QP pairs, every byte checked. */
    private void rdmaTraffic(int opcode, boolean newSend, int size) {
        for (int it = 0; it < ITERS / 4; it++) {
            for (int q = 0; q < client.length; q++) {
                int seed = it * 17 + q;
                if (opcode == WrOpcode.RDMA_READ) {
                    RcFixture.fill(f.bufB, 0, size, seed);
                    f.bufA.asSlice(0, size).fill((byte) 0);
                } else {
                    RcFixture.fill(f.bufA, 0, size, seed);
                    f.bufB.asSlice(0, size).fill((byte) 0);
                }
                if (newSend) {
                    QpEx x = client[q].ex();
                    x.start();
                    x.wrId = it;
                    x.wrFlags = SendFlags.SIGNALED;
                    if (opcode == WrOpcode.RDMA_READ) {
                        x.rdmaRead(f.mrb.rkey(), f.bufB.address());
                    } else {
                        x.rdmaWrite(f.mrb.rkey(), f.bufB.address());
                    }
                    x.setUdAddr(ahToServer, server[q].qpNum(), QKEY);
                    x.setSge(f.mra.lkey(), f.bufA.address(), size);
                    x.complete();
                } else {
                    client[q].postSend(sendWr(opcode, 0, size, q).rdma(f.bufB.address(), f.mrb.rkey()));
                }
                WorkCompletion s = f.pollOk(f.cqa);
                if (opcode == WrOpcode.RDMA_READ) {
                    assertThat(s.opcode).isEqualTo(WcOpcode.RDMA_READ);
                    assertThat(s.byteLen).isEqualTo(size);
                    RcFixture.assertFilled(f.bufA, 0, size, seed);
                } else {
                    assertThat(s.opcode).isEqualTo(WcOpcode.RDMA_WRITE);
                    RcFixture.assertFilled(f.bufB, 0, size, seed);
                }
            }
        }
    }

    @Test
    void shouldSendWithNewPostApi() {
        players(SendOps.SEND);
        traffic(WrOpcode.SEND, true, MSG);
    }

    @Test
    void shouldSendImmWithNewPostApi() {
        players(SendOps.SEND_WITH_IMM);
        traffic(WrOpcode.SEND_WITH_IMM, true, MSG);
    }

    @Test
    void shouldSendWithOldPostApi() {
        players(0);
        traffic(WrOpcode.SEND, false, MSG);
    }

    @Test
    void shouldSendImmWithOldPostApi() {
        players(0);
        traffic(WrOpcode.SEND_WITH_IMM, false, MSG);
    }

    @Test
    void shouldSendZeroSize() {
        players(SendOps.SEND);
        traffic(WrOpcode.SEND, true, 0);
    }

    @Test
    void shouldReadLargerThanTheMtuPlacingEveryChunk() {
        players(SendOps.RDMA_READ);
        rdmaTraffic(WrOpcode.RDMA_READ, true, 64 * 1024 + 5);
        rdmaTraffic(WrOpcode.RDMA_READ, false, 100);
    }

    @Test
    void shouldWriteLargerThanTheMtu() {
        players(SendOps.RDMA_WRITE);
        rdmaTraffic(WrOpcode.RDMA_WRITE, true, 256 * 1024 + 3);
        rdmaTraffic(WrOpcode.RDMA_WRITE, false, 0);
    }

    @Test
    void shouldWriteMaxRdmaSizeInOneRequest() {
        players(0, 0, 1, new QpCap(4, 4, 1, 1, 0));
        f.close();
        f = new RcFixture(SrdDv.MAX_RDMA_SIZE);
        // the fixture changed: rebuild one pair on it
        QueuePair c = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)), 0);
        QueuePair s = SrdDv.createQp(f.pdb, new QpInitAttr(QpType.DRIVER, f.cqb, f.cqb, new QpCap(4, 4, 1, 1, 0)), 0);
        client[0].close();
        server[0].close();
        ahToServer.close();
        ahToClient.close();
        client[0] = c;
        server[0] = s;
        ahToServer = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1));
        ahToClient = f.pdb.createAh(new AhAttr(f.a.queryGid(1, 1), 1));
        UdSetup.toRts(c, QKEY, 1);
        UdSetup.toRts(s, QKEY, 2);
        RcFixture.fill(f.bufA, 0, SrdDv.MAX_RDMA_SIZE, 9);
        c.postSend(sendWr(WrOpcode.RDMA_WRITE, 0, SrdDv.MAX_RDMA_SIZE, 0).rdma(f.bufB.address(), f.mrb.rkey()));
        f.pollOk(f.cqa);
        RcFixture.assertFilled(f.bufB, 0, SrdDv.MAX_RDMA_SIZE, 9);
        SendWr tooBig = sendWr(WrOpcode.RDMA_WRITE, 0, SrdDv.MAX_RDMA_SIZE, 0).rdma(f.bufB.address(), f.mrb.rkey());
        tooBig.sgList[0].length = SrdDv.MAX_RDMA_SIZE + 1;
        assertThatThrownBy(() -> c.postSend(tooBig)).isInstanceOfSatisfying(PostException.class,
            e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    /** WRITE_WITH_IMM: the data in place before the receive completion that says so. */
    private void writeImmTraffic(boolean unsolicited, int size) {
        for (int it = 0; it < ITERS / 4; it++) {
            for (int q = 0; q < client.length; q++) {
                int seed = it * 13 + q;
                RcFixture.fill(f.bufA, 0, size, seed);
                f.bufB.asSlice(0, size).fill((byte) 0);
                if (!unsolicited) {
                    recv(server[q], 0, 0, 500 + it);
                }
                QpEx x = client[q].ex();
                x.start();
                x.wrId = it;
                x.wrFlags = SendFlags.SIGNALED;
                x.rdmaWriteImm(f.mrb.rkey(), f.bufB.address(), 0xBEEF00 + it);
                x.setUdAddr(ahToServer, server[q].qpNum(), QKEY);
                x.setSge(f.mra.lkey(), f.bufA.address(), size);
                x.complete();
                WorkCompletion s = f.pollOk(f.cqa);
                assertThat(s.opcode).isEqualTo(WcOpcode.RDMA_WRITE);
                WorkCompletion r = f.pollOk(f.cqb);
                assertThat(r.opcode).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
                assertThat(r.immData).isEqualTo(0xBEEF00 + it);
                assertThat(r.byteLen).isEqualTo(size);
                assertThat(r.srcQp).isEqualTo(client[q].qpNum());
                assertThat(r.isUnsolicited()).isEqualTo(unsolicited);
                if (!unsolicited) {
                    assertThat(r.wrId).isEqualTo(500 + it);
                }
                RcFixture.assertFilled(f.bufB, 0, size, seed);
            }
        }
    }

    @Test
    void shouldWriteWithImmConsumingAReceive() {
        players(SendOps.RDMA_WRITE_WITH_IMM);
        writeImmTraffic(false, MSG);
        writeImmTraffic(false, 10 * 1024 + 1); // many chunks: the last waits for all others
    }

    @Test
    void shouldWriteWithImmUnsolicitedWithoutAReceive() {
        players(SendOps.RDMA_WRITE_WITH_IMM, SrdDv.UNSOLICITED_WRITE_RECV, QP_COUNT, new QpCap(ITERS, ITERS, 1, 1, 0));
        assertThat(SrdDv.queryDevice(f.b).deviceCaps & SrdDv.CAPS_UNSOLICITED_WRITE_RECV).isNotZero();
        writeImmTraffic(true, MSG);
        writeImmTraffic(true, 5000);
    }

    @Test
    void shouldDeliverCqEventsWithOldAndNewPost() throws InterruptedException {
        for (boolean newSend : new boolean[] {false, true}) {
            f = new RcFixture(1 << 16);
            CompletionChannel ch = f.b.createCompChannel();
            CompletionQueue cq = f.b.createCq(ITERS, ch, 0);
            QpInitAttr ia = new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, new QpCap(ITERS, ITERS, 1, 1, 0));
            ia.sendOpsFlags = SendOps.SEND;
            QueuePair c = SrdDv.createQp(f.pda, ia, 0);
            QueuePair s = SrdDv.createQp(f.pdb, new QpInitAttr(QpType.DRIVER, cq, cq, new QpCap(ITERS, ITERS, 1, 1, 0)), 0);
            UdSetup.toRts(c, QKEY, 7);
            UdSetup.toRts(s, QKEY, 8);
            try (AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
                for (int i = 0; i < 20; i++) {
                    cq.requestNotify(false);
                    s.postRecv(new RecvWr().sge(f.bufB.address(), 64, f.mrb.lkey()));
                    if (newSend) {
                        QpEx x = c.ex();
                        x.start();
                        x.wrFlags = SendFlags.SIGNALED;
                        x.send();
                        x.setUdAddr(ah, s.qpNum(), QKEY);
                        x.setSge(f.mra.lkey(), f.bufA.address(), 64);
                        x.complete();
                    } else {
                        SendWr w = new SendWr().sge(f.bufA.address(), 64, f.mra.lkey());
                        w.sendFlags = SendFlags.SIGNALED;
                        w.ah = ah;
                        w.remoteQpn = s.qpNum();
                        w.remoteQkey = QKEY;
                        c.postSend(w);
                    }
                    f.pollOk(f.cqa);
                    assertThat(ch.getEvent(10, TimeUnit.SECONDS)).isSameAs(cq);
                    cq.ackEvents(1);
                    WorkCompletion[] one = {new WorkCompletion()};
                    assertThat(cq.poll(one)).isEqualTo(1);
                    assertThat(one[0].status).isEqualTo(WcStatus.SUCCESS);
                }
            }
            c.close();
            s.close();
            cq.close();
            ch.close();
            f.close();
        }
        f = null;
    }

    // ---------------------------------------------------------------- bad flows (test_efa_srd)

    @Test
    void shouldRefusePostReceiveInResetWithEinval() {
        f = new RcFixture(4096);
        try (QueuePair q = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)), 0)) {
            assertThatThrownBy(() -> q.postRecv(new RecvWr().sge(f.bufA.address(), 8, f.mra.lkey())))
                .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
        f.close();
        f = null;
    }

    @Test
    void shouldRefusePostSendBeforeRtsWithEinval() {
        players(SendOps.SEND, 0, 1, new QpCap(4, 4, 1, 1, 0));
        try (QueuePair q = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)), 0)) {
            for (int state : new int[] {QpState.RESET, QpState.INIT, QpState.RTR}) {
                if (state == QpState.INIT) {
                    toInit(q);
                } else if (state == QpState.RTR) {
                    q.modify(new QpAttr().state(QpState.RTR), QpAttrMask.STATE);
                }
                SendWr w = sendWr(WrOpcode.SEND, 0, 8, 0);
                assertThatThrownBy(() -> q.postSend(w)).as(QpState.name(state))
                    .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            }
        }
    }

    @Test
    void shouldRefuseAFullReceiveQueueWithEnomem() {
        players(SendOps.SEND, 0, 1, new QpCap(4, 4, 1, 1, 0));
        for (int i = 0; i < 4; i++) {
            recv(server[0], 0, 8, i);
        }
        assertThatThrownBy(() -> recv(server[0], 0, 8, 9))
            .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
    }

    @Test
    void shouldRefuseAFullSendQueueWithEnomem() {
        players(SendOps.SEND, 0, 1, new QpCap(8, 8, 1, 1, 0));
        // nothing completes: the peer QP is closed, so no request is ever acknowledged
        int peer = server[0].qpNum();
        server[0].close();
        server[0] = SrdDv.createQp(f.pdb, new QpInitAttr(QpType.DRIVER, f.cqb, f.cqb, new QpCap(1, 1, 1, 1, 0)), 0);
        int max = client[0].query().cap.maxSendWr;
        for (int i = 0; i < max; i++) {
            SendWr w = sendWr(WrOpcode.SEND, 0, 8, 0);
            w.remoteQpn = peer;
            client[0].postSend(w);
        }
        SendWr w = sendWr(WrOpcode.SEND, 0, 8, 0);
        w.remoteQpn = peer;
        assertThatThrownBy(() -> client[0].postSend(w))
            .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
    }

    @Test
    void shouldRefuseAReceiveWithMoreSgesThanTheQpWithEinval() {
        players(SendOps.SEND, 0, 1, new QpCap(4, 4, 1, 1, 0));
        RecvWr r = new RecvWr(2);
        r.sgList[0].set(f.bufB.address(), 8, f.mrb.lkey());
        r.sgList[1].set(f.bufB.address() + 8, 8, f.mrb.lkey());
        r.numSge = 2;
        assertThatThrownBy(() -> server[0].postRecv(r))
            .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }

    @Test
    void shouldRefuseSendsLongerThanTheMtuAndOperationsSrdHasNot() {
        players(0, 0, 1, new QpCap(4, 4, 1, 1, 0));
        int mtu = dev.jrxe.ib.Mtu.bytes(f.a.activeMtu());
        assertThatThrownBy(() -> client[0].postSend(sendWr(WrOpcode.SEND, 0, mtu + 1, 0)))
            .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        SendWr atomic = sendWr(WrOpcode.ATOMIC_FETCH_AND_ADD, 0, 8, 0).rdma(f.bufB.address(), f.mrb.rkey());
        assertThatThrownBy(() -> client[0].postSend(atomic))
            .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        SendWr noAh = sendWr(WrOpcode.SEND, 0, 8, 0);
        noAh.ah = null;
        assertThatThrownBy(() -> client[0].postSend(noAh))
            .isInstanceOfSatisfying(PostException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        client[0].postSend(sendWr(WrOpcode.SEND, 0, mtu, 0)); // exactly the MTU is fine
        recv(server[0], 0, mtu, 1);
        f.pollOk(f.cqa);
        f.pollOk(f.cqb);
    }

    @Test
    void shouldRefuseSrdWithoutSrdDvAndAnSrq() {
        f = new RcFixture(4096);
        assertThatThrownBy(() -> f.pda.createQp(new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0))))
            .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP));
        assertThatThrownBy(() -> SrdDv.createQp(f.pda, new QpInitAttr(QpType.UD, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)), 0))
            .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        SharedReceiveQueue.Attr sa = new SharedReceiveQueue.Attr();
        sa.maxWr = 16;
        sa.maxSge = 1;
        try (SharedReceiveQueue srq = f.pda.createSrq(sa)) {
            QpInitAttr a = new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0));
            a.srq = srq;
            assertThatThrownBy(() -> SrdDv.createQp(f.pda, a, 0))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EOPNOTSUPP));
        }
        f.close();
        f = null;
    }

    // ---------------------------------------------------------------- SRD semantics

    /** RESET -> INIT with UD's (and EFA SRD's) required attributes. */
    private static void toInit(QueuePair q) {
        QpAttr a = new QpAttr();
        a.qpState = QpState.INIT;
        a.qkey = QKEY;
        a.portNum = 1;
        q.modify(a, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
    }

    /** RESET -> INIT -> RTR, leaving RTR -> RTS to the test. */
    private static void toRtr(QueuePair q) {
        toInit(q);
        q.modify(new QpAttr().state(QpState.RTR), QpAttrMask.STATE);
    }

    @Test
    void shouldTakeRnrRetryOnRtrToRtsAsEfaDoes() {
        f = new RcFixture(4096);
        try (QueuePair q = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)), 0);
             QueuePair u = f.pda.createQp(new QpInitAttr(QpType.UD, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)))) {
            toRtr(q);
            toRtr(u);
            QpAttr a = new QpAttr();
            a.qpState = QpState.RTS;
            a.rnrRetry = 3;
            q.modify(a, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.RNR_RETRY);
            assertThat(q.query().rnrRetry).isEqualTo(3);
            assertThat(q.qpType()).isEqualTo(QpType.DRIVER);
            assertThatThrownBy(() -> u.modify(a, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.RNR_RETRY))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
        }
        f.close();
        f = null;
    }

    @Test
    void shouldReportARemoteAccessErrorAndKeepTheQpRunning() {
        players(0, 0, 1, new QpCap(16, 16, 1, 1, 0));
        client[0].postSend(sendWr(WrOpcode.RDMA_WRITE, 0, 3000, 0).rdma(f.bufB.address(), f.mrb.rkey() ^ 0x100));
        WorkCompletion bad = f.poll(f.cqa);
        assertThat(bad.status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        client[0].postSend(sendWr(WrOpcode.RDMA_READ, 0, 64, 0).rdma(f.bufB.address() + (4 << 20) - 32, f.mrb.rkey()));
        assertThat(f.poll(f.cqa).status).as("a READ beyond the region").isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(client[0].state()).isEqualTo(QpState.RTS);
        assertThat(server[0].state()).isEqualTo(QpState.RTS);
        RcFixture.fill(f.bufA, 0, 100, 4);
        recv(server[0], 0, 100, 3);
        client[0].postSend(sendWr(WrOpcode.SEND, 0, 100, 0));
        f.pollOk(f.cqa);
        f.pollOk(f.cqb);
        RcFixture.assertFilled(f.bufB, 0, 100, 4);
    }

    @Test
    void shouldCompleteAReceiveTooSmallWithLengthErrorAndTheSendWithInvalidRequest() {
        players(0, 0, 1, new QpCap(16, 16, 1, 1, 0));
        recv(server[0], 0, 10, 3);
        client[0].postSend(sendWr(WrOpcode.SEND, 0, 100, 0));
        assertThat(f.poll(f.cqb).status).isEqualTo(WcStatus.LOC_LEN_ERR);
        assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        assertThat(server[0].state()).isEqualTo(QpState.RTS);
    }

    @Test
    void shouldRetryOnRnrUntilAReceiveIsPosted() throws InterruptedException {
        players(0, 0, 1, new QpCap(16, 16, 1, 1, 0));
        RcFixture.fill(f.bufA, 0, 200, 6);
        client[0].postSend(sendWr(WrOpcode.SEND, 0, 200, 0));
        assertThat(f.quiet(f.cqa, 50)).as("waits for a receive (rnr_retry 7)").isTrue();
        recv(server[0], 0, 200, 4);
        f.pollOk(f.cqa);
        assertThat(f.pollOk(f.cqb).wrId).isEqualTo(4);
        RcFixture.assertFilled(f.bufB, 0, 200, 6);
        assertThat(f.a.counters().get("rcvd_rnr_err")).isPositive();
    }

    @Test
    void shouldFailWithRnrRetryExceededWhenTheRetriesRunOut() {
        f = new RcFixture(4096);
        QueuePair c = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)), 0);
        QueuePair s = SrdDv.createQp(f.pdb, new QpInitAttr(QpType.DRIVER, f.cqb, f.cqb, new QpCap(4, 4, 1, 1, 0)), 0);
        UdSetup.toRts(s, QKEY, 1);
        toRtr(c);
        QpAttr a = new QpAttr();
        a.qpState = QpState.RTS;
        a.rnrRetry = 2;
        c.modify(a, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.RNR_RETRY);
        try (AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
            SendWr w = new SendWr().sge(f.bufA.address(), 8, f.mra.lkey());
            w.sendFlags = SendFlags.SIGNALED;
            w.ah = ah;
            w.remoteQpn = s.qpNum();
            w.remoteQkey = QKEY;
            c.postSend(w);
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
            assertThat(c.state()).isEqualTo(QpState.RTS);
        }
        c.close();
        s.close();
        f.close();
        f = null;
    }

    @Test
    void shouldCompleteOutstandingSendsInErrorWithinThePromisedTimeWhenThePeerVanishes() {
        players(0, 0, 1, new QpCap(64, 64, 1, 1, 0));
        recv(server[0], 0, 64, 1);
        client[0].postSend(sendWr(WrOpcode.SEND, 0, 64, 0));
        f.pollOk(f.cqa);
        f.pollOk(f.cqb);
        f.b.close(); // the peer's NIC is gone: nothing answers any more
        long start = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            client[0].postSend(sendWr(i % 2 == 0 ? WrOpcode.SEND : WrOpcode.RDMA_WRITE, 0, 2000, 0)
                .rdma(f.bufB.address(), f.mrb.rkey()));
        }
        for (int i = 0; i < 10; i++) {
            WorkCompletion w = f.poll(f.cqa);
            assertThat(w.status).isEqualTo(WcStatus.RETRY_EXC_ERR);
        }
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        // promised: the SRD timeout (500 ms) plus at most one retransmission interval (64 ms);
        // the bound here allows a slow CI machine the same again, never an unbounded wait
        assertThat(tookMillis).isLessThan(2 * (dev.jrxe.Configuration.srdTimeoutMillis() + 64));
        assertThat(client[0].state()).isEqualTo(QpState.RTS);
        assertThat(f.a.counters().get("srd_peer_timeouts")).isPositive();
    }

    @Test
    void shouldDescribeItselfLikeEfadvQueryDevice() {
        f = new RcFixture(4096);
        SrdDeviceAttr a = SrdDv.queryDevice(f.a);
        assertThat(a.deviceCaps).isEqualTo(SrdDv.CAPS_RDMA_READ | SrdDv.CAPS_RDMA_WRITE | SrdDv.CAPS_RNR_RETRY
            | SrdDv.CAPS_UNSOLICITED_WRITE_RECV);
        assertThat(a.maxRdmaSize).isEqualTo(16 << 20);
        assertThat(a.maxSqWr).isPositive();
        assertThat(a.maxSqSge).isPositive();
        assertThat(a.inlineBufSize).isPositive();
        f.close();
        f = null;
    }
}
