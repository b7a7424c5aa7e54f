package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Errno;
import org.junit.jupiter.api.Test;

/** The errno expectations of rdma-core's test_qp, test_qpex and test_cq bad flows. */
class VerbsBadFlowTest {

    private static void assertErrno(Runnable r, int errno) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(VerbsException.class,
            e -> assertThat(e.errno()).as(e.getMessage()).isEqualTo(errno));
    }

    @Test
    void shouldCreateQpInResetAndWalkToRts() {
        try (RcFixture f = new RcFixture(4096)) {
            QueuePair qp = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)));
            assertThat(qp.state()).isEqualTo(QpState.RESET);
            assertThat(qp.query().qpState).isEqualTo(QpState.RESET);
            assertThat(qp.cap().maxSendWr).isGreaterThanOrEqualTo(4);
            new RcConnect().toInit(qp);
            assertThat(qp.state()).isEqualTo(QpState.INIT);
            qp.close();
        }
    }

    @Test
    void shouldRefuseInvalidTransitionsAndMasksWithoutChangingAnything() {
        try (RcFixture f = new RcFixture(4096)) {
            QueuePair qp = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)));
            QpAttr a = new QpAttr();
            a.qpState = QpState.RTS;
            assertErrno(() -> qp.modify(a, QpAttrMask.STATE), Errno.EINVAL); // RESET -> RTS
            a.qpState = QpState.INIT;
            assertErrno(() -> qp.modify(a, QpAttrMask.STATE), Errno.EINVAL); // missing required attributes
            a.portNum = 1;
            assertErrno(() -> qp.modify(a, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT
                | QpAttrMask.ACCESS_FLAGS | QpAttrMask.SQ_PSN), Errno.EINVAL); // SQ_PSN not allowed here
            a.portNum = 2;
            assertErrno(() -> qp.modify(a, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT
                | QpAttrMask.ACCESS_FLAGS), Errno.EINVAL); // no port 2
            assertThat(qp.state()).isEqualTo(QpState.RESET);
            new RcConnect().toInit(qp);
            QpAttr rtr = new QpAttr();
            rtr.qpState = QpState.RTR;
            assertErrno(() -> qp.modify(rtr, QpAttrMask.STATE), Errno.EINVAL);
            assertThat(qp.state()).isEqualTo(QpState.INIT);
            QpAttr err = new QpAttr();
            err.qpState = QpState.ERR;
            qp.modify(err, QpAttrMask.STATE);
            assertThat(qp.state()).isEqualTo(QpState.ERR);
            err.qpState = QpState.RESET;
            qp.modify(err, QpAttrMask.STATE);
            assertThat(qp.state()).isEqualTo(QpState.RESET);
            qp.close();
        }
    }

    @Test
    void shouldRefusePostingInReset() {
        try (RcFixture f = new RcFixture(4096)) {
            QueuePair qp = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)));
            assertErrno(() -> qp.postRecv(new RecvWr(1).sge(f.bufA.address(), 8, f.mra.lkey())), Errno.EINVAL);
            assertErrno(() -> qp.postSend(new SendWr(1).sge(f.bufA.address(), 8, f.mra.lkey())), Errno.EINVAL);
            qp.close();
        }
    }

    @Test
    void shouldRefuseMoreWorkRequestsThanTheQueueHolds() {
        try (RcFixture f = new RcFixture(4096)) {
            QueuePair qp = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)));
            new RcConnect().toInit(qp);
            RecvWr r = new RecvWr(1).sge(f.bufA.address(), 8, f.mra.lkey());
            for (int i = 0; i < 4; i++) {
                qp.postRecv(r);
            }
            assertErrno(() -> qp.postRecv(r), Errno.ENOMEM);
            qp.close();
        }
    }

    @Test
    void shouldRefuseTooManySges() {
        try (RcFixture f = new RcFixture(4096)) {
            f.connect(new QpCap(4, 4, 2, 2, 0), new RcConnect());
            RecvWr r = new RecvWr(3);
            r.numSge = 3;
            assertErrno(() -> f.qb.postRecv(r), Errno.EINVAL);
            SendWr s = new SendWr(3);
            s.numSge = 3;
            assertErrno(() -> f.qa.postSend(s), Errno.EINVAL);
        }
    }

    @Test
    void shouldRefuseAFullSendQueueWithEnomemAndReportTheBadRequest() {
        try (RcFixture f = new RcFixture(4096)) {
            f.connect(new QpCap(2, 2, 1, 1, 0), new RcConnect());
            f.b.close(); // nothing answers: the queue stays full
            SendWr s1 = new SendWr(1).sge(f.bufA.address(), 8, f.mra.lkey()).rdma(f.bufB.address(), f.mrb.rkey());
            s1.opcode = WrOpcode.RDMA_WRITE;
            SendWr s2 = new SendWr(1).sge(f.bufA.address(), 8, f.mra.lkey()).rdma(f.bufB.address(), f.mrb.rkey());
            s2.opcode = WrOpcode.RDMA_WRITE;
            SendWr s3 = new SendWr(1).sge(f.bufA.address(), 8, f.mra.lkey()).rdma(f.bufB.address(), f.mrb.rkey());
            s3.opcode = WrOpcode.RDMA_WRITE;
            s1.next = s2;
            s2.next = s3;
            assertThatThrownBy(() -> f.qa.postSend(s1)).isInstanceOfSatisfying(PostException.class, e -> {
                assertThat(e.errno()).isEqualTo(Errno.ENOMEM);
                assertThat(e.badWr()).isSameAs(s3);
            });
        }
    }

    @Test
    void shouldRefuseInlineDataBeyondTheQpLimit() {
        try (RcFixture f = new RcFixture(4096)) {
            f.connect(new QpCap(4, 4, 1, 1, 16), new RcConnect());
            SendWr s = new SendWr(1).sge(f.bufA.address(), 17, 0);
            s.sendFlags = SendFlags.INLINE;
            assertErrno(() -> f.qa.postSend(s), Errno.EINVAL);
        }
    }

    @Test
    void shouldSendInlineDataWithoutAKey() {
        try (RcFixture f = new RcFixture(4096)) {
            f.connect(new QpCap(4, 4, 1, 1, 64), new RcConnect());
            RcFixture.fill(f.bufA, 0, 64, 4);
            f.qb.postRecv(new RecvWr(1).sge(f.bufB.address(), 64, f.mrb.lkey()));
            SendWr s = new SendWr(1).sge(f.bufA.address(), 64, 0);
            s.sendFlags = SendFlags.INLINE | SendFlags.SIGNALED;
            f.qa.postSend(s);
            RcFixture.fill(f.bufA, 0, 64, 99); // the buffer is free again once posted
            f.pollOk(f.cqa);
            f.pollOk(f.cqb);
            RcFixture.assertFilled(f.bufB, 0, 64, 4);
        }
    }

    @Test
    void shouldRefuseQpCapsBeyondTheDevice() {
        try (RcFixture f = new RcFixture(4096)) {
            assertErrno(() -> f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa,
                new QpCap(Integer.MAX_VALUE, 4, 1, 1, 0))), Errno.EINVAL);
            assertErrno(() -> f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa,
                new QpCap(4, 4, 0xffff, 1, 0))), Errno.EINVAL);
        }
    }

    @Test
    void shouldRefuseBadCqs() {
        try (RcFixture f = new RcFixture(4096)) {
            int max = f.a.query().maxCqe;
            assertErrno(() -> f.a.createCq(max + 1), Errno.EINVAL);
            assertErrno(() -> f.a.createCq(10, null, f.a.query().numCompVectors + 1), Errno.EINVAL);
            CompletionQueue cq = f.a.createCq(max / 2);
            assertThat(cq.cqe()).isGreaterThanOrEqualTo(max / 2);
            cq.resize(7);
            assertThat(cq.cqe()).isGreaterThanOrEqualTo(7);
            cq.close();
        }
    }

    @Test
    void shouldNotDestroyACqInUse() {
        try (RcFixture f = new RcFixture(4096)) {
            f.connect();
            assertErrno(f.cqa::close, Errno.EBUSY);
        }
    }

    @Test
    void shouldQueryDevicePortAndGidsLikeRxe() {
        try (RcFixture f = new RcFixture(4096)) {
            DeviceAttr d = f.a.query();
            assertThat(d.maxQpWr).isEqualTo(1 << 20);
            assertThat(d.maxSge).isEqualTo(32);
            assertThat(d.maxCqe).isEqualTo(32767);
            assertThat(d.atomicCap).isEqualTo(DeviceAttr.ATOMIC_HCA);
            assertThat(d.vendorId).isEqualTo(0xffffff);
            PortAttr p = f.a.queryPort(1);
            assertThat(p.state).isEqualTo(PortAttr.PORT_ACTIVE);
            assertThat(p.activeMtu).isEqualTo(dev.jrxe.ib.Mtu.MTU_4096);
            assertThat(p.maxMsgSz).isEqualTo(1L << 31);
            assertErrno(() -> f.a.queryPort(2), Errno.EINVAL);
            assertThat(f.a.queryGid(1, 1).isIpv4()).isTrue();
            assertThat(f.a.queryGid(1, 1).ipv4()).isEqualTo(f.a.address());
            // rxe's index 0 is an IPv6 link-local GID; jrxe sends over IPv4 only, so the entry is empty
            assertThat(f.a.queryGid(1, 0).raw()).containsOnly(0);
            assertThat(f.a.gidValid(0)).isFalse();
            assertThat(f.a.queryGid(1, 1023).raw()).containsOnly(0);
            assertErrno(() -> f.a.queryGid(1, 1024), Errno.EINVAL);
        }
    }

    @Test
    void shouldGrantTheRequestedRdAtomicDepths() {
        try (RcFixture f = new RcFixture(4096)) {
            f.connect(new QpCap(4, 4, 1, 1, 0), new RcConnect().rdAtomic(12, 12));
            QpAttr q = f.qa.query();
            assertThat(q.maxRdAtomic).isGreaterThanOrEqualTo(12);
            assertThat(q.maxDestRdAtomic).isGreaterThanOrEqualTo(12);
            assertThat(q.qpState).isEqualTo(QpState.RTS);
            assertThat(q.destQpNum).isEqualTo(f.qb.qpNum());
        }
    }

    @Test
    void shouldRefuseUnsupportedOpcodesAndAtomicLengths() {
        try (RcFixture f = new RcFixture(4096)) {
            f.connect();
            SendWr s = new SendWr(1).sge(f.bufA.address(), 8, f.mra.lkey());
            s.opcode = 13; // not an ibv_wr_opcode
            assertErrno(() -> f.qa.postSend(s), Errno.EINVAL);
            s.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
            s.sgList[0].length = 9;
            assertErrno(() -> f.qa.postSend(s), Errno.EINVAL);
        }
    }
}
