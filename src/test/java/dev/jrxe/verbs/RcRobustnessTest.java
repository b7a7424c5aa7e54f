package dev.jrxe.verbs;

import static dev.jrxe.verbs.RcVictim.PEER_START_PSN;
import static dev.jrxe.verbs.RcVictim.VICTIM;
import static dev.jrxe.verbs.RcVictim.VICTIM_START_PSN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The RC protocol machinery under peers that vanish, huge requests, racing control calls and odd SGEs. */
class RcRobustnessTest {

    private static SendWr inlineSend(long wrId) {
        SendWr s = new SendWr(1);
        s.wrId = wrId;
        s.numSge = 0;
        s.sendFlags = SendFlags.SIGNALED;
        return s;
    }

    @Test
    void shouldGiveUpAfterRetryCntRetransmissionsWhenThePeerVanishes() throws Exception {
        // retry_cnt 7 means seven retries (IBTA); only rnr_retry 7 means "forever"
        try (RcVictim v = new RcVictim().connect(new RcConnect().timeout(10).retries(7, 7))) {
            v.qp.postSend(inlineSend(1));
            v.qp.postSend(inlineSend(2));
            v.qp.postSend(inlineSend(3));
            WorkCompletion first = v.pollOne(20_000);
            assertThat(first).as("the QP gives up").isNotNull();
            assertThat(first.wrId).isEqualTo(1);
            assertThat(WcStatus.str(first.status)).isEqualTo(WcStatus.str(WcStatus.RETRY_EXC_ERR));
            for (long id = 2; id <= 3; id++) {
                WorkCompletion w = v.pollOne(5000);
                assertThat(w).isNotNull();
                assertThat(w.wrId).isEqualTo(id);
                assertThat(w.status).isEqualTo(WcStatus.WR_FLUSH_ERR);
            }
            assertThat(v.qp.state()).isEqualTo(QpState.ERR);
            long copies = v.peer.quietFor(100).stream().filter(p -> p.psn() == VICTIM_START_PSN).count();
            assertThat(copies).as("the first send and seven retransmissions").isEqualTo(8);
            assertThat(v.dev.counters().get("retry_exceeded_err")).isEqualTo(1);
        }
    }

    @Test
    void shouldKeepServingOtherQpsWhileAHugeReadIsAnswered() {
        int size = 8 << 20;
        try (RcVictim v = new RcVictim(DeviceConfig.of("victim", VICTIM), 64 << 20).connect()) {
            QueuePair qp2 = v.pd.createQp(new QpInitAttr(QpType.RC, v.cq, v.cq, new QpCap(16, 16, 1, 1, 0)));
            new RcConnect().toInit(qp2);
            new RcConnect().toRts(qp2, VICTIM_START_PSN, v.peer.gid(), RcVictim.PEER_QPN + 1, PEER_START_PSN);
            MemorySegment big = v.memory(size, (byte) 0x21);
            MemoryRegion mr = v.pd.registerMemory(big, Access.LOCAL_WRITE | Access.REMOTE_READ);
            MemorySegment small = v.memory(4096, (byte) 0);
            MemoryRegion smr = v.pd.registerMemory(small, Access.LOCAL_WRITE);
            qp2.postRecv(new RecvWr(1).sge(small.address(), 4096, smr.lkey()));
            // one READ of 8192 responses on the first QP and a SEND on the second, in one receive
            // batch: they arrive while the test holds the victim's engine, whose next duty cycle
            // then finds both
            v.dev.engine().withEngine(() -> {
                PacketWriter w = v.peer.begin(Opcodes.RC_RDMA_READ_REQUEST, v.qp.qpNum(), PEER_START_PSN);
                w.bth().ackReq(true);
                w.reth().va(big.address()).rkey(mr.rkey()).dmaLength(size);
                v.peer.commit(0, VICTIM);
                w = v.peer.begin(Opcodes.RC_SEND_ONLY, qp2.qpNum(), PEER_START_PSN);
                w.bth().ackReq(true);
                v.peer.payload(16).fill((byte) 1);
                v.peer.commit(16, VICTIM);
                v.peer.flush();
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
            });
            int responses = size / 1024;
            List<RawPeer.Packet> got = v.peer.awaitCount(responses + 1, 20_000);
            int ackAt = -1;
            int reads = 0;
            for (int i = 0; i < got.size(); i++) {
                RawPeer.Packet p = got.get(i);
                if (p.isAck() && p.destQp() == RcVictim.PEER_QPN + 1) {
                    ackAt = i;
                } else if (p.isReadResponse()) {
                    reads++;
                }
            }
            assertThat(reads).as("every response of the READ").isEqualTo(responses);
            assertThat(ackAt).as("the other QP's ACK").isNotNegative();
            assertThat(ackAt).as("the other QP is answered while the READ goes on, not after its %d responses",
                responses).isLessThan(responses / 4);
            qp2.close();
        }
    }

    @Test
    void shouldRefuseANewMaxDestRdAtomicWhileReadResponsesArePending() {
        try (RcVictim v = new RcVictim(DeviceConfig.of("victim", VICTIM), 64 << 20).connect()) {
            MemorySegment big = v.memory(1 << 20, (byte) 0x21);
            MemoryRegion mr = v.pd.registerMemory(big, Access.LOCAL_WRITE | Access.REMOTE_READ);
            v.qp.modify(new QpAttr().state(QpState.SQD), QpAttrMask.STATE);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (v.qp.query().sqDraining && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            QpAttr more = new QpAttr().state(QpState.SQD);
            more.maxDestRdAtomic = 8;
            int mask = QpAttrMask.STATE | QpAttrMask.MAX_DEST_RD_ATOMIC;
            v.dev.engine().withEngine(() -> {
                PacketWriter w = v.peer.begin(Opcodes.RC_RDMA_READ_REQUEST, v.qp.qpNum(), PEER_START_PSN);
                w.bth().ackReq(true);
                w.reth().va(big.address()).rkey(mr.rkey()).dmaLength(1 << 20);
                v.peer.send(0, VICTIM);
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
                v.dev.engine().runDutyCycle(); // takes the READ and sends its first 64 responses
                assertThatThrownBy(() -> v.qp.modify(more, mask)).isInstanceOf(VerbsException.class)
                    .extracting(e -> ((VerbsException) e).errno()).isEqualTo(Errno.EINVAL);
            });
            assertThat(v.peer.awaitCount(1024, 10_000)).hasSize(1024);
            v.qp.modify(more, mask);
            assertThat(v.qp.query().maxDestRdAtomic).isEqualTo(8);
        }
    }

    @Test
    void shouldNotLetAModifyUndoAnErrorThatHappenedWhileItWaitedForTheEngine() throws Exception {
        try (RcFixture f = new RcFixture(4096)) {
            f.connect();
            CountDownLatch held = new CountDownLatch(1);
            AtomicInteger errno = new AtomicInteger();
            Thread b = Thread.ofPlatform().unstarted(() -> {
                QpAttr a = new QpAttr();
                a.qpState = QpState.RTS;
                a.qpAccessFlags = Access.LOCAL_WRITE;
                try {
                    f.qa.modify(a, QpAttrMask.STATE | QpAttrMask.ACCESS_FLAGS);
                } catch (VerbsException e) {
                    errno.set(e.errno());
                }
            });
            Thread a = Thread.ofPlatform().start(() -> f.a.engine().withEngine(() -> {
                held.countDown();
                // wait until the RTS -> RTS modify waits for the engine, then fail the QP
                while (b.getState() != Thread.State.WAITING && b.getState() != Thread.State.TERMINATED) {
                    Thread.onSpinWait();
                }
                f.qa.modify(new QpAttr().state(QpState.ERR), QpAttrMask.STATE);
            }));
            held.await();
            b.start();
            a.join();
            b.join();
            assertThat(QpState.name(f.qa.state())).isEqualTo(QpState.name(QpState.ERR));
            assertThat(errno.get()).as("RTS -> RTS on a QP in ERR").isEqualTo(Errno.EINVAL);
        }
    }

    @Test
    void shouldDrainTheSendQueueInSqdAndResumeInRts() throws Exception {
        try (RcVictim v = new RcVictim().connect(new RcConnect().timeout(14))) {
            v.qp.postSend(inlineSend(1));
            assertThat(v.peer.await(p -> p.psn() == VICTIM_START_PSN, 5000)).isNotNull();
            QpAttr sqd = new QpAttr().state(QpState.SQD);
            sqd.sqDrainNotify = true;
            v.qp.modify(sqd, QpAttrMask.STATE | QpAttrMask.EN_SQD_ASYNC_NOTIFY);
            v.qp.postSend(inlineSend(2));
            // unacknowledged: the ACK timeout (67 ms) retransmits in SQD; the new WQE does not start
            List<RawPeer.Packet> got = v.peer.quietFor(200);
            assertThat(got.stream().filter(p -> p.psn() == VICTIM_START_PSN).count()).isGreaterThanOrEqualTo(2);
            assertThat(got.stream().filter(p -> p.psn() != VICTIM_START_PSN)).isEmpty();
            assertThat(v.qp.query().sqDraining).isTrue();
            assertThat(drainedEvent(v.dev, 0)).isNull();
            // rxe: while draining, SQD may only be left for ERR
            assertThatThrownBy(() -> v.qp.modify(new QpAttr().state(QpState.RTS), QpAttrMask.STATE))
                .isInstanceOf(VerbsException.class);
            PacketWriter w = v.peer.begin(Opcodes.RC_ACKNOWLEDGE, v.qp.qpNum(), VICTIM_START_PSN);
            w.aeth().syndrome(Aeth.ACK).msn(1);
            v.peer.send(0, VICTIM);
            WorkCompletion wc = v.pollOne(5000);
            assertThat(wc).isNotNull();
            assertThat(wc.wrId).isEqualTo(1);
            assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
            AsyncEvent ev = drainedEvent(v.dev, 5000);
            assertThat(ev).as("IBV_EVENT_SQ_DRAINED").isNotNull();
            assertThat(ev.qp()).isSameAs(v.qp);
            assertThat(v.qp.query().sqDraining).isFalse();
            assertThat(v.peer.quietFor(50).stream().filter(p -> p.psn() != VICTIM_START_PSN)).isEmpty();
            v.peer.clear();
            v.qp.modify(new QpAttr().state(QpState.RTS), QpAttrMask.STATE);
            RawPeer.Packet second = v.peer.await(p -> p.psn() == VICTIM_START_PSN + 1, 5000);
            assertThat(second).as("the WQE posted in SQD goes after SQD -> RTS").isNotNull();
        }
    }

    private static AsyncEvent drainedEvent(Device dev, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        do {
            AsyncEvent e = dev.getAsyncEvent(10, TimeUnit.MILLISECONDS);
            if (e != null && e.type() == AsyncEventType.SQ_DRAINED) {
                return e;
            }
        } while (System.nanoTime() < deadline);
        return null;
    }

    @Test
    void shouldSkipZeroLengthSgesWhateverTheirKey() {
        try (RcFixture f = new RcFixture(4096)) {
            f.connect();
            RcFixture.fill(f.bufA, 0, 32, 5);
            f.bufB.fill((byte) 0);
            RecvWr r = new RecvWr(3);
            r.wrId = 9;
            r.sgList[0].set(f.bufB.address(), 16, f.mrb.lkey());
            r.sgList[1].set(0, 0, 0xDEADBE00);
            r.sgList[2].set(f.bufB.address() + 64, 16, f.mrb.lkey());
            r.numSge = 3;
            f.qb.postRecv(r);
            SendWr s = new SendWr(3);
            s.wrId = 8;
            s.sendFlags = SendFlags.SIGNALED;
            s.sgList[0].set(f.bufA.address(), 16, f.mra.lkey());
            s.sgList[1].set(0, 0, 0xBAD00000);
            s.sgList[2].set(f.bufA.address() + 16, 16, f.mra.lkey());
            s.numSge = 3;
            f.qa.postSend(s);
            assertThat(f.pollOk(f.cqa).wrId).isEqualTo(8);
            WorkCompletion wc = f.pollOk(f.cqb);
            assertThat(wc.byteLen).isEqualTo(32);
            MemorySegment want = f.arena.allocate(32);
            MemorySegment.copy(f.bufA, 0, want, 0, 32);
            assertThat(f.bufB.asSlice(0, 16).mismatch(want.asSlice(0, 16))).isEqualTo(-1);
            assertThat(f.bufB.asSlice(64, 16).mismatch(want.asSlice(16, 16))).isEqualTo(-1);
        }
    }
}
