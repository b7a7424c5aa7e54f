package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.ib.Errno;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Shared receive queues with RC over real UDP: rdma-core's test_srq cases (one test each, named
 * after it), the limits and errnos of creation, modification and posting, RNR on an empty SRQ,
 * several QPs consuming one SRQ in posting order, an SRQ over ODP memory, and a failing QP that
 * flushes only the WQE it was filling.
 */
class SrqTest {
    private static final int SLOT = 256;

    /** A on one side; B with {@code qps} QPs all on one SRQ of {@code maxWr} receives. */
    private static final class Shared implements AutoCloseable {
        final RcFixture f = new RcFixture(64 * 1024);
        final SharedReceiveQueue srq;
        final QueuePair[] qa;
        final QueuePair[] qb;

        Shared(int qps, int maxWr, RcConnect how) {
            srq = f.pdb.createSrq(new SharedReceiveQueue.Attr(maxWr, 1, 0));
            qa = new QueuePair[qps];
            qb = new QueuePair[qps];
            for (int i = 0; i < qps; i++) {
                qa[i] = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(16, 16, 1, 1, 0)));
                QpInitAttr ib = new QpInitAttr(QpType.RC, f.cqb, f.cqb, new QpCap(16, 0, 1, 1, 0));
                ib.srq = srq;
                qb[i] = f.pdb.createQp(ib);
                how.pair(qa[i], 100 * i, qb[i], 7000 + 100 * i);
            }
        }

        void postSrq(int slot) {
            RecvWr r = new RecvWr(1).sge(f.bufB.address() + (long) slot * SLOT, SLOT, f.mrb.lkey());
            r.wrId = slot;
            srq.postRecv(r);
        }

        void send(int qp, int seq, int len) {
            f.bufA.set(ValueLayout.JAVA_INT_UNALIGNED, (long) seq * SLOT, seq);
            SendWr s = new SendWr(1).sge(f.bufA.address() + (long) seq * SLOT, len, f.mra.lkey());
            s.wrId = seq;
            s.sendFlags = SendFlags.SIGNALED;
            qa[qp].postSend(s);
        }

        @Override
        public void close() {
            for (int i = 0; i < qa.length; i++) {
                qa[i].close();
                qb[i].close();
            }
            srq.close();
            f.close();
        }
    }

    @Test
    @DisplayName("test_rc_srq_traffic")
    void shouldCarryTrafficOfTwoRcQpsThroughOneSrq() {
        try (Shared s = new Shared(2, 64, new RcConnect())) {
            for (int i = 0; i < 20; i++) {
                s.postSrq(i);
            }
            for (int i = 0; i < 20; i++) {
                s.send(i % 2, i, 64);
                assertThat(s.f.pollOk(s.f.cqa).wrId).isEqualTo(i);
                WorkCompletion r = s.f.pollOk(s.f.cqb);
                // WQEs are taken in posting order, whichever QP the message came on
                assertThat(r.wrId).isEqualTo(i);
                assertThat(r.qpNum).isEqualTo(s.qb[i % 2].qpNum());
                assertThat(s.f.bufB.get(ValueLayout.JAVA_INT_UNALIGNED, (long) i * SLOT)).isEqualTo(i);
            }
        }
    }

    @Test
    @DisplayName("test_modify_srq_limit")
    void shouldRaiseSrqLimitReachedOnceWhenFewerWqesThanTheLimitRemain() throws Exception {
        try (Shared s = new Shared(1, 16, new RcConnect())) {
            for (int i = 0; i < 10; i++) {
                s.postSrq(i);
            }
            s.srq.modify(new SharedReceiveQueue.Attr(0, 0, 7), SharedReceiveQueue.ATTR_LIMIT);
            assertThat(s.srq.query().srqLimit).isEqualTo(7);
            for (int i = 0; i < 3; i++) {
                s.send(0, i, 16);
                s.f.pollOk(s.f.cqa);
                s.f.pollOk(s.f.cqb);
            }
            assertThat(nextEvent(s.f.b, 50)).as("7 remain: not fewer than 7").isNull();
            s.send(0, 3, 16);
            s.f.pollOk(s.f.cqa);
            s.f.pollOk(s.f.cqb);
            AsyncEvent e = nextEvent(s.f.b, 5000);
            assertThat(e).isNotNull();
            assertThat(e.type()).isEqualTo(AsyncEventType.SRQ_LIMIT_REACHED);
            assertThat(e.srq()).isSameAs(s.srq);
            assertThat(s.srq.query().srqLimit).as("disarmed").isZero();
            s.send(0, 4, 16);
            s.f.pollOk(s.f.cqb);
            assertThat(nextEvent(s.f.b, 50)).as("once only").isNull();
        }
    }

    /** The next async event other than the PORT_ACTIVE every device raises when it opens. */
    private static AsyncEvent nextEvent(Device d, long millis) throws InterruptedException {
        AsyncEvent e;
        do {
            e = d.getAsyncEvent(millis, TimeUnit.MILLISECONDS);
        } while (e != null && e.type() == AsyncEventType.PORT_ACTIVE);
        return e;
    }

    @Test
    @DisplayName("test_resize_srq (skipped by rdma-core without IBV_DEVICE_SRQ_RESIZE)")
    void shouldNotAdvertiseSrqResizeAndRefuseAMaxWrChange() {
        try (Shared s = new Shared(1, 16, new RcConnect())) {
            assertThat(s.f.b.query().deviceCapFlags & DeviceAttr.CAP_SRQ_RESIZE).isZero();
            assertThatThrownBy(() -> s.srq.modify(new SharedReceiveQueue.Attr(32, 0, 0), SharedReceiveQueue.ATTR_MAX_WR))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThat(s.srq.query().maxWr).isEqualTo(16);
        }
    }

    @Test
    void shouldRefuseBadSrqsAndBadPostsWithRdmaCoresErrnos() {
        try (Shared s = new Shared(1, 4, new RcConnect())) {
            ProtectionDomain pd = s.f.pdb;
            DeviceAttr d = s.f.b.query();
            assertThat(d.maxSrq).isEqualTo(917503);
            for (SharedReceiveQueue.Attr bad : new SharedReceiveQueue.Attr[]{
                new SharedReceiveQueue.Attr(d.maxSrqWr + 1, 1, 0), new SharedReceiveQueue.Attr(0, 1, 0),
                new SharedReceiveQueue.Attr(8, d.maxSrqSge + 1, 0), new SharedReceiveQueue.Attr(8, 1, 9)}) {
                assertThatThrownBy(() -> pd.createSrq(bad)).isInstanceOfSatisfying(VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            }
            SharedReceiveQueue.Attr granted = new SharedReceiveQueue.Attr(4, 0, 0);
            pd.createSrq(granted).close();
            assertThat(granted.maxSge).as("at least one SGE, written back").isEqualTo(1);
            assertThatThrownBy(() -> s.srq.modify(new SharedReceiveQueue.Attr(0, 0, 5), SharedReceiveQueue.ATTR_LIMIT))
                .isInstanceOfSatisfying(VerbsException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            RecvWr two = new RecvWr(2);
            two.sgList[0].set(s.f.bufB.address(), 8, s.f.mrb.lkey());
            two.sgList[1].set(s.f.bufB.address() + 8, 8, s.f.mrb.lkey());
            two.numSge = 2;
            assertThatThrownBy(() -> s.srq.postRecv(two)).isInstanceOfSatisfying(PostException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            for (int i = 0; i < 4; i++) {
                s.postSrq(i);
            }
            assertThatThrownBy(() -> s.postSrq(4)).isInstanceOfSatisfying(PostException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
            assertThatThrownBy(() -> s.qb[0].postRecv(new RecvWr(1).sge(s.f.bufB.address(), 8, s.f.mrb.lkey())))
                .as("a QP on an SRQ has no receive queue").isInstanceOfSatisfying(PostException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThatThrownBy(s.srq::close).as("in use by a QP").isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
        }
    }

    @Test
    void shouldAnswerRnrWhileTheSrqIsEmptyAndDeliverOnceAWqeIsPosted() {
        try (Shared s = new Shared(1, 8, new RcConnect().retries(7, 7).minRnrTimer(1))) {
            s.send(0, 0, 32);
            assertThat(s.f.quiet(s.f.cqb, 50)).isTrue();
            assertThat(s.f.b.counters().get("send_rnr_err")).as("RNR NAKs were sent").isPositive();
            s.postSrq(0);
            assertThat(s.f.pollOk(s.f.cqb).wrId).isZero();
            s.f.pollOk(s.f.cqa);
        }
    }

    @Test
    void shouldFlushOnlyTheWqeAFailingQpWasFillingAndLeaveTheRestToTheOthers() {
        try (Shared s = new Shared(2, 16, new RcConnect().retries(0, 0))) {
            for (int i = 0; i < 6; i++) {
                s.postSrq(i);
            }
            // QP 0 sends a message longer than a slot: its receive fails (LOC_LEN_ERR), QP 0 dies
            s.send(0, 0, SLOT + 100);
            WorkCompletion bad = s.f.poll(s.f.cqb);
            assertThat(bad.status).isEqualTo(WcStatus.LOC_LEN_ERR);
            assertThat(bad.wrId).isZero();
            assertThat(s.f.poll(s.f.cqa).status).isNotEqualTo(WcStatus.SUCCESS);
            // the other five WQEs are still there for QP 1
            for (int i = 1; i <= 5; i++) {
                s.send(1, i, 16);
                assertThat(s.f.pollOk(s.f.cqb).wrId).isEqualTo(i);
                s.f.pollOk(s.f.cqa);
            }
        }
    }

    @Test
    void shouldRaiseLastWqeReachedWhenAQpOnAnSrqFailsAndRefuseQpsOnADestroyedSrq() throws Exception {
        try (Shared s = new Shared(1, 4, new RcConnect())) {
            QpAttr err = new QpAttr();
            err.qpState = dev.jrxe.ib.QpState.ERR;
            s.qb[0].modify(err, dev.jrxe.ib.QpAttrMask.STATE);
            AsyncEvent e = nextEvent(s.f.b, 5000);
            assertThat(e).isNotNull();
            assertThat(e.type()).isEqualTo(AsyncEventType.QP_LAST_WQE_REACHED);
            assertThat(e.qp()).isSameAs(s.qb[0]);
            SharedReceiveQueue gone = s.f.pdb.createSrq(new SharedReceiveQueue.Attr(4, 1, 0));
            gone.close();
            QpInitAttr ib = new QpInitAttr(QpType.RC, s.f.cqb, s.f.cqb, new QpCap(4, 0, 1, 1, 0));
            ib.srq = gone;
            assertThatThrownBy(() -> s.f.pdb.createQp(ib)).isInstanceOfSatisfying(VerbsException.class,
                x -> assertThat(x.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    @Test
    void shouldReceiveThroughAnSrqOnOdpMemory() {
        MemorySegment mem = NativeMemory.map(1 << 20);
        try (Shared s = new Shared(1, 8, new RcConnect())) {
            MemoryRegion odp = s.f.pdb.registerMemory(mem, Access.LOCAL_WRITE | Access.ON_DEMAND);
            assertThat(s.f.b.query().odpRcCaps & dev.jrxe.memory.OdpCaps.SRQ_RECV).isNotZero();
            for (int i = 0; i < 4; i++) {
                RecvWr r = new RecvWr(1).sge(mem.address() + i * 300_000L, 4096, odp.lkey());
                r.wrId = i;
                s.srq.postRecv(r);
            }
            for (int i = 0; i < 4; i++) {
                RcFixture.fill(s.f.bufA, 0, 4096, i);
                SendWr w = new SendWr(1).sge(s.f.bufA.address(), 4096, s.f.mra.lkey());
                w.sendFlags = SendFlags.SIGNALED;
                s.qa[0].postSend(w);
                s.f.pollOk(s.f.cqa);
                assertThat(s.f.pollOk(s.f.cqb).byteLen).isEqualTo(4096);
                RcFixture.assertFilled(mem, i * 300_000L, 4096, i);
            }
            odp.close();
        } finally {
            NativeMemory.unmap(mem);
        }
    }
}
