package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.Flush;
import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.SendOps;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The extended post and poll API over real UDP: rdma-core's test_qpex.py RC cases (one test each,
 * named after it; UD and XRC come with those QP types), then the batch rules (latched errors,
 * rollback, abort, send_ops_flags) and the extended CQ's readers.
 */
class QpExTest {
    private static final int ITERS = 20;
    private static final int MSG = 1024;
    private static final int ALL_OPS = SendOps.RC_SUPPORTED;
    private static final int QP_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ
        | Access.REMOTE_ATOMIC | Access.FLUSH_GLOBAL | Access.FLUSH_PERSISTENT;

    /** Two devices, extended CQs with every flag, RC QPs created with {@code sendOps}. */
    private static final class Ex implements AutoCloseable {
        final RcFixture f;
        final CompletionQueue cqa;
        final CompletionQueue cqb;
        final QueuePair qa;
        final QueuePair qb;
        final QpEx xa;

        Ex(int sendOps, int mrAccess) {
            f = new RcFixture(8 * MSG);
            cqa = f.a.createCqEx(256, null, 0, WcFlagsEx.SUPPORTED);
            cqb = f.b.createCqEx(256, null, 0, WcFlagsEx.SUPPORTED);
            QpInitAttr ia = new QpInitAttr(QpType.RC, cqa, cqa, new QpCap(64, 64, 4, 4, 64));
            ia.sendOpsFlags = sendOps;
            QpInitAttr ib = new QpInitAttr(QpType.RC, cqb, cqb, new QpCap(64, 64, 4, 4, 64));
            ib.sendOpsFlags = sendOps;
            qa = f.pda.createQp(ia);
            qb = f.pdb.createQp(ib);
            new RcConnect().accessFlags(QP_ACCESS).pair(qa, 10, qb, 20);
            xa = qa.ex();
            mrB = mrAccess == RcFixture.ALL_ACCESS ? f.mrb : f.pdb.registerMemory(f.bufB.asSlice(4 * MSG, 4 * MSG), mrAccess);
        }

        final MemoryRegion mrB;

        /** Polls {@code cq} through the extended API: {status, opcode, byteLen, wrId, ...}. */
        Polled poll(CompletionQueue cq) {
            CqEx x = cq.ex();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!x.startPoll()) {
                assertThat(System.nanoTime()).as("a completion within 10 s").isLessThan(deadline);
            }
            Polled p = new Polled(x.wrId(), x.status(), x.readOpcode(), x.readByteLen(), x.readImmData(),
                x.readWcFlags(), x.readQpNum(), x.readCompletionTs());
            x.endPoll();
            return p;
        }

        Polled ok(CompletionQueue cq) {
            Polled p = poll(cq);
            assertThat(WcStatus.str(p.status())).isEqualTo(WcStatus.str(WcStatus.SUCCESS));
            return p;
        }

        @Override
        public void close() {
            qa.close();
            qb.close();
            f.close();
        }
    }

    record Polled(long wrId, int status, int opcode, int byteLen, int imm, int wcFlags, int qpNum, long ts) {
    }

    private static void recvB(Ex e, int len) {
        RecvWr r = new RecvWr(1);
        r.sge(e.f.bufB.address(), len, e.f.mrb.lkey());
        e.qb.postRecv(r);
    }

    @Test
    @DisplayName("test_qp_ex_rc_send")
    void shouldSendWithTheNewApi() {
        try (Ex e = new Ex(SendOps.SEND, RcFixture.ALL_ACCESS)) {
            for (int i = 0; i < ITERS; i++) {
                recvB(e, MSG);
                RcFixture.fill(e.f.bufA, 0, MSG, i);
                e.xa.start();
                e.xa.wrId = i;
                e.xa.wrFlags = SendFlags.SIGNALED;
                e.xa.send();
                e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), MSG);
                e.xa.complete();
                Polled s = e.ok(e.cqa);
                assertThat(s.wrId()).isEqualTo(i);
                assertThat(s.opcode()).isEqualTo(WcOpcode.SEND);
                Polled r = e.ok(e.cqb);
                assertThat(r.opcode()).isEqualTo(WcOpcode.RECV);
                assertThat(r.byteLen()).isEqualTo(MSG);
                assertThat(r.ts()).as("receive completions are stamped too").isPositive();
                assertThat(r.qpNum()).isEqualTo(e.qb.qpNum());
                RcFixture.assertFilled(e.f.bufB, 0, MSG, i);
            }
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_send_imm")
    void shouldSendWithImmediateWithTheNewApi() {
        try (Ex e = new Ex(SendOps.SEND_WITH_IMM, RcFixture.ALL_ACCESS)) {
            for (int i = 0; i < ITERS; i++) {
                recvB(e, MSG);
                e.xa.start();
                e.xa.wrFlags = SendFlags.SIGNALED;
                e.xa.sendImm(0x1000 + i);
                e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 100);
                e.xa.complete();
                e.ok(e.cqa);
                Polled r = e.ok(e.cqb);
                assertThat(r.imm()).isEqualTo(0x1000 + i);
                assertThat(r.wcFlags() & dev.jrxe.ib.WcFlags.WITH_IMM).isNotZero();
            }
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_rdma_write")
    void shouldWriteWithTheNewApi() {
        try (Ex e = new Ex(SendOps.RDMA_WRITE, RcFixture.ALL_ACCESS)) {
            for (int i = 0; i < ITERS; i++) {
                RcFixture.fill(e.f.bufA, 0, MSG, i);
                e.xa.start();
                e.xa.wrFlags = SendFlags.SIGNALED;
                e.xa.rdmaWrite(e.f.mrb.rkey(), e.f.bufB.address() + MSG);
                e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), MSG);
                e.xa.complete();
                assertThat(e.ok(e.cqa).opcode()).isEqualTo(WcOpcode.RDMA_WRITE);
                RcFixture.assertFilled(e.f.bufB, MSG, MSG, i);
            }
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_rdma_write_imm")
    void shouldWriteWithImmediateWithTheNewApi() {
        try (Ex e = new Ex(SendOps.RDMA_WRITE_WITH_IMM, RcFixture.ALL_ACCESS)) {
            for (int i = 0; i < ITERS; i++) {
                recvB(e, 0);
                RcFixture.fill(e.f.bufA, 0, MSG, i);
                e.xa.start();
                e.xa.wrFlags = SendFlags.SIGNALED;
                e.xa.rdmaWriteImm(e.f.mrb.rkey(), e.f.bufB.address() + MSG, i);
                e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), MSG);
                e.xa.complete();
                e.ok(e.cqa);
                Polled r = e.ok(e.cqb);
                assertThat(r.opcode()).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
                assertThat(r.imm()).isEqualTo(i);
                RcFixture.assertFilled(e.f.bufB, MSG, MSG, i);
            }
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_rdma_write_zero_size")
    void shouldWriteZeroBytesWithTheNewApi() {
        try (Ex e = new Ex(SendOps.RDMA_WRITE, RcFixture.ALL_ACCESS)) {
            e.xa.start();
            e.xa.wrFlags = SendFlags.SIGNALED;
            e.xa.rdmaWrite(e.f.mrb.rkey(), e.f.bufB.address());
            e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 0);
            e.xa.complete();
            assertThat(e.ok(e.cqa).byteLen()).isZero();
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_rdma_read")
    void shouldReadWithTheNewApi() {
        try (Ex e = new Ex(SendOps.RDMA_READ, RcFixture.ALL_ACCESS)) {
            for (int i = 0; i < ITERS; i++) {
                RcFixture.fill(e.f.bufB, 2 * MSG, MSG, i);
                e.xa.start();
                e.xa.wrFlags = SendFlags.SIGNALED;
                e.xa.rdmaRead(e.f.mrb.rkey(), e.f.bufB.address() + 2 * MSG);
                e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), MSG);
                e.xa.complete();
                Polled p = e.ok(e.cqa);
                assertThat(p.opcode()).isEqualTo(WcOpcode.RDMA_READ);
                assertThat(p.byteLen()).isEqualTo(MSG);
                RcFixture.assertFilled(e.f.bufA, 0, MSG, i);
            }
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_rdma_read_zero_size")
    void shouldReadZeroBytesWithTheNewApi() {
        try (Ex e = new Ex(SendOps.RDMA_READ, RcFixture.ALL_ACCESS)) {
            e.xa.start();
            e.xa.wrFlags = SendFlags.SIGNALED;
            e.xa.rdmaRead(e.f.mrb.rkey(), e.f.bufB.address());
            e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 0);
            e.xa.complete();
            assertThat(e.ok(e.cqa).byteLen()).isZero();
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_atomic_cmp_swp")
    void shouldCompareAndSwapWithTheNewApi() {
        try (Ex e = new Ex(SendOps.ATOMIC_CMP_AND_SWP, RcFixture.ALL_ACCESS)) {
            e.f.bufB.set(ValueLayout.JAVA_LONG, 0, 0);
            for (int i = 0; i < ITERS; i++) {
                e.xa.start();
                e.xa.wrFlags = SendFlags.SIGNALED;
                e.xa.atomicCmpSwp(e.f.mrb.rkey(), e.f.bufB.address(), i, i + 1);
                e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 8);
                e.xa.complete();
                assertThat(e.ok(e.cqa).opcode()).isEqualTo(WcOpcode.COMP_SWAP);
                assertThat(e.f.bufA.get(ValueLayout.JAVA_LONG, 0)).as("original").isEqualTo(i);
            }
            assertThat(e.f.bufB.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(ITERS);
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_atomic_fetch_add")
    void shouldFetchAndAddWithTheNewApi() {
        try (Ex e = new Ex(SendOps.ATOMIC_FETCH_AND_ADD, RcFixture.ALL_ACCESS)) {
            e.f.bufB.set(ValueLayout.JAVA_LONG, 8, 100);
            for (int i = 0; i < ITERS; i++) {
                e.xa.start();
                e.xa.wrFlags = SendFlags.SIGNALED;
                e.xa.atomicFetchAdd(e.f.mrb.rkey(), e.f.bufB.address() + 8, 3);
                e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 8);
                e.xa.complete();
                assertThat(e.ok(e.cqa).opcode()).isEqualTo(WcOpcode.FETCH_ADD);
                assertThat(e.f.bufA.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(100 + 3L * i);
            }
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_atomic_write")
    void shouldAtomicWriteWithTheNewApi() {
        try (Ex e = new Ex(SendOps.ATOMIC_WRITE, Access.LOCAL_WRITE | Access.REMOTE_WRITE)) {
            for (int i = 0; i < ITERS; i++) {
                // as test_qpex: 8 bytes of 'c', then of the iteration, land in the peer's memory
                long value = 0x6363636363636363L + i;
                e.xa.start();
                e.xa.wrFlags = SendFlags.SIGNALED;
                e.xa.atomicWrite(e.mrB.rkey(), e.mrB.addr() + 16, value);
                e.xa.complete();
                Polled p = e.ok(e.cqa);
                assertThat(p.opcode()).isEqualTo(WcOpcode.ATOMIC_WRITE);
                assertThat(p.byteLen()).isEqualTo(8);
                assertThat(e.f.bufB.get(ValueLayout.JAVA_LONG, 4 * MSG + 16)).isEqualTo(value);
            }
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_flush")
    void shouldFlushRangeThenRegionWithTheNewApi() {
        try (Ex e = new Ex(SendOps.FLUSH | SendOps.RDMA_WRITE, Access.LOCAL_WRITE | Access.FLUSH_GLOBAL | Access.REMOTE_WRITE)) {
            java.util.Random random = new java.util.Random(7);
            for (int level : new int[]{Flush.RANGE, Flush.MR}) {
                for (int i = 0; i < ITERS; i++) {
                    RcFixture.fill(e.f.bufA, 0, MSG, i);
                    e.xa.start();
                    e.xa.wrFlags = 0;
                    e.xa.rdmaWrite(e.mrB.rkey(), e.mrB.addr());
                    e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), MSG);
                    e.xa.wrFlags = SendFlags.SIGNALED;
                    // level MR: the length means nothing (flush_traffic sends 0, then random ones)
                    long len = level == Flush.RANGE ? MSG : i == 0 ? 0 : random.nextInt(12_345_678);
                    e.xa.flush(e.mrB.rkey(), e.mrB.addr(), len, Flush.GLOBAL, level);
                    e.xa.complete();
                    Polled p = e.ok(e.cqa);
                    assertThat(p.opcode()).isEqualTo(WcOpcode.FLUSH);
                    RcFixture.assertFilled(e.f.bufB, 4 * MSG, MSG, i); // the WRITE before it is visible
                }
            }
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_flush_type_violate")
    void shouldFailAPersistentFlushOfAGlobalOnlyRegionWithRemoteAccessError() {
        try (Ex e = new Ex(SendOps.FLUSH, Access.LOCAL_WRITE | Access.FLUSH_GLOBAL | Access.REMOTE_WRITE)) {
            e.xa.start();
            e.xa.wrFlags = SendFlags.SIGNALED;
            e.xa.flush(e.mrB.rkey(), e.mrB.addr(), MSG, Flush.PERSISTENT, Flush.RANGE);
            e.xa.complete();
            assertThat(e.poll(e.cqa).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    @DisplayName("test_qp_ex_rc_bind_mw")
    void shouldBindATypeTwoWindowWithTheNewApiAndRefuseAWriteItDoesNotAllow() {
        try (Ex e = new Ex(SendOps.BIND_MW | SendOps.RDMA_WRITE, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.MW_BIND)) {
            MemoryWindow mw = e.f.pdb.allocMw(MemoryWindow.TYPE_2);
            QpEx xb = e.qb.ex();
            int newKey = MemoryWindow.incRkey(mw.rkey());
            xb.start();
            xb.wrFlags = SendFlags.SIGNALED;
            xb.bindMw(mw, newKey, e.mrB, e.mrB.addr(), e.mrB.length(), Access.LOCAL_WRITE);
            xb.complete();
            assertThat(e.ok(e.cqb).opcode()).isEqualTo(WcOpcode.BIND_MW);
            assertThat(mw.rkey()).isEqualTo(newKey);
            e.xa.start();
            e.xa.wrFlags = SendFlags.SIGNALED;
            e.xa.rdmaWrite(newKey, e.mrB.addr());
            e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 8);
            e.xa.complete();
            assertThat(e.poll(e.cqa).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    @DisplayName("test_post_send_qp_state_bad_flow")
    void shouldRefuseANewApiSendInResetWithEinval() {
        try (Ex e = new Ex(SendOps.SEND, RcFixture.ALL_ACCESS)) {
            QpAttr reset = new QpAttr();
            reset.qpState = QpState.RESET;
            e.qa.modify(reset, QpAttrMask.STATE);
            e.xa.start();
            e.xa.send();
            e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 8);
            assertThatThrownBy(e.xa::complete).isInstanceOfSatisfying(VerbsException.class,
                x -> assertThat(x.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    @Test
    @DisplayName("test_post_receive_qp_state_bad_flow")
    void shouldRefuseAReceiveInResetWithEinval() {
        try (Ex e = new Ex(SendOps.SEND, RcFixture.ALL_ACCESS)) {
            QpAttr reset = new QpAttr();
            reset.qpState = QpState.RESET;
            e.qb.modify(reset, QpAttrMask.STATE);
            assertThatThrownBy(() -> recvB(e, 8)).isInstanceOfSatisfying(PostException.class,
                x -> assertThat(x.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    @Test
    @DisplayName("test_full_rq_bad_flow")
    void shouldRefuseOneReceiveMoreThanMaxRecvWrWithEnomem() {
        try (Ex e = new Ex(SendOps.SEND, RcFixture.ALL_ACCESS)) {
            for (int i = 0; i < 64; i++) {
                recvB(e, 8);
            }
            assertThatThrownBy(() -> recvB(e, 8)).isInstanceOfSatisfying(PostException.class,
                x -> assertThat(x.errno()).isEqualTo(Errno.ENOMEM));
        }
    }

    @Test
    @DisplayName("test_rq_with_larger_sgl_bad_flow")
    void shouldRefuseAReceiveWithMoreSgesThanMaxRecvSgeWithEinval() {
        try (Ex e = new Ex(SendOps.SEND, RcFixture.ALL_ACCESS)) {
            RecvWr r = new RecvWr(5);
            for (int i = 0; i < 5; i++) {
                r.sgList[i].set(e.f.bufB.address() + 8L * i, 8, e.f.mrb.lkey());
            }
            r.numSge = 5;
            assertThatThrownBy(() -> e.qb.postRecv(r)).isInstanceOfSatisfying(PostException.class,
                x -> assertThat(x.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    // ---------------------------------------------------------------- batch rules

    @Test
    void shouldPostNothingOfABatchWithABadRequestAndThrowTheFirstError() {
        try (Ex e = new Ex(ALL_OPS, RcFixture.ALL_ACCESS)) {
            e.f.bufB.set(ValueLayout.JAVA_LONG, 0, 5);
            e.xa.start();
            e.xa.wrFlags = SendFlags.SIGNALED;
            e.xa.rdmaWrite(e.f.mrb.rkey(), e.f.bufB.address());
            e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 8);
            e.xa.atomicFetchAdd(e.f.mrb.rkey(), e.f.bufB.address(), 1);
            e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 4); // an atomic of 4 bytes
            e.xa.send();
            e.xa.setSgeList(9, new Sge[9]); // also bad, but the first error wins
            assertThatThrownBy(e.xa::complete).isInstanceOfSatisfying(VerbsException.class,
                x -> assertThat(x.errno()).isEqualTo(Errno.EINVAL));
            assertThat(e.f.quiet(e.cqa, 200)).as("nothing of the batch was posted").isTrue();
            assertThat(e.f.bufB.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(5);
            // the QP is fine, and the classic API works between batches
            SendWr w = new SendWr(1);
            w.opcode = dev.jrxe.ib.WrOpcode.RDMA_WRITE;
            w.sendFlags = SendFlags.SIGNALED;
            w.sge(e.f.bufA.address(), 8, e.f.mra.lkey()).rdma(e.f.bufB.address() + 64, e.f.mrb.rkey());
            e.qa.postSend(w);
            e.ok(e.cqa);
        }
    }

    @Test
    void shouldDropAnAbortedBatchAndUndoItsWindowKeys() {
        try (Ex e = new Ex(ALL_OPS, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.MW_BIND)) {
            MemoryWindow mw = e.f.pda.allocMw(MemoryWindow.TYPE_2);
            MemoryRegion mr = e.f.pda.registerMemory(e.f.bufA.asSlice(4 * MSG, MSG), Access.LOCAL_WRITE | Access.MW_BIND);
            int before = mw.rkey();
            e.xa.start();
            e.xa.wrFlags = SendFlags.SIGNALED;
            e.xa.bindMw(mw, MemoryWindow.incRkey(before), mr, mr.addr(), MSG, Access.REMOTE_WRITE);
            assertThat(mw.rkey()).isNotEqualTo(before);
            e.xa.rdmaWrite(e.f.mrb.rkey(), e.f.bufB.address());
            e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 8);
            e.xa.abort();
            assertThat(mw.rkey()).isEqualTo(before);
            assertThat(e.f.quiet(e.cqa, 200)).isTrue();
            assertThat(mw.state()).isEqualTo(dev.jrxe.memory.MemoryWindow.FREE);
        }
    }

    @Test
    void shouldGatherAnInlineDataListAndRefuseAUdAddressOnAnRcQp() {
        try (Ex e = new Ex(SendOps.RDMA_WRITE, RcFixture.ALL_ACCESS)) {
            RcFixture.fill(e.f.bufA, 0, 48, 12);
            e.xa.start();
            e.xa.wrFlags = SendFlags.SIGNALED;
            e.xa.rdmaWrite(e.f.mrb.rkey(), e.f.bufB.address() + 512);
            e.xa.setInlineDataList(3, new java.lang.foreign.MemorySegment[]{e.f.bufA.asSlice(0, 10),
                e.f.bufA.asSlice(10, 30), e.f.bufA.asSlice(40, 8)});
            e.xa.complete();
            e.ok(e.cqa);
            RcFixture.assertFilled(e.f.bufB, 512, 48, 12);
            e.xa.start();
            e.xa.rdmaWrite(e.f.mrb.rkey(), e.f.bufB.address());
            e.xa.setUdAddr(null, 1, 0x11111111);
            assertThatThrownBy(e.xa::complete).isInstanceOfSatisfying(VerbsException.class,
                x -> assertThat(x.errno()).isEqualTo(Errno.EINVAL));
        }
    }

    @Test
    void shouldLatchEopnotsuppForABuilderTheQpWasNotCreatedFor() {
        try (Ex e = new Ex(SendOps.SEND, RcFixture.ALL_ACCESS)) {
            e.xa.start();
            e.xa.rdmaRead(e.f.mrb.rkey(), e.f.bufB.address());
            e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 8);
            assertThatThrownBy(e.xa::complete).isInstanceOfSatisfying(VerbsException.class,
                x -> assertThat(x.errno()).isEqualTo(Errno.EOPNOTSUPP));
        }
    }

    @Test
    void shouldFailCreationWithSendOpsTheDeviceLacksAndRefuseExOnAClassicQp() {
        try (RcFixture f = new RcFixture(4096)) {
            QpInitAttr ia = new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0));
            ia.sendOpsFlags = SendOps.SEND | SendOps.TSO;
            assertThatThrownBy(() -> f.pda.createQp(ia)).isInstanceOfSatisfying(VerbsException.class,
                x -> assertThat(x.errno()).isEqualTo(Errno.EOPNOTSUPP));
            QueuePair classic = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)));
            assertThatThrownBy(classic::ex).isInstanceOf(VerbsException.class);
            assertThatThrownBy(() -> f.cqa.ex()).isInstanceOf(VerbsException.class);
            assertThatThrownBy(() -> f.a.createCqEx(16, null, 0, 1 << 8)).isInstanceOfSatisfying(VerbsException.class,
                x -> assertThat(x.errno()).isEqualTo(Errno.EOPNOTSUPP));
            classic.close();
        }
    }

    @Test
    void shouldPostABatchOfEveryKindInOrderAndCopyInlineDataAtComplete() {
        try (Ex e = new Ex(ALL_OPS, RcFixture.ALL_ACCESS)) {
            e.f.bufB.set(ValueLayout.JAVA_LONG, 0, 40);
            RcFixture.fill(e.f.bufA, 256, 64, 9);
            MemoryRegion flushable = e.f.pdb.registerMemory(e.f.bufB.asSlice(0, MSG), Access.LOCAL_WRITE | Access.FLUSH_GLOBAL);
            e.xa.start();
            e.xa.wrFlags = SendFlags.SIGNALED;
            e.xa.wrId = 1;
            e.xa.rdmaWrite(e.f.mrb.rkey(), e.f.bufB.address() + 1024);
            e.xa.setInlineData(e.f.bufA.address() + 256, 64);
            e.xa.wrId = 2;
            e.xa.atomicFetchAdd(e.f.mrb.rkey(), e.f.bufB.address(), 2);
            e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 8);
            e.xa.wrId = 3;
            e.xa.rdmaRead(e.f.mrb.rkey(), e.f.bufB.address() + 1024);
            e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address() + 2048, 64);
            e.xa.wrId = 4;
            e.xa.flush(flushable.rkey(), e.f.bufB.address(), 64, Flush.GLOBAL, Flush.RANGE);
            e.xa.complete();
            e.f.bufA.asSlice(256, 64).fill((byte) 0); // inline: the buffer is free once complete returns
            for (long id = 1; id <= 4; id++) {
                Polled got = e.poll(e.cqa);
                assertThat(WcStatus.str(got.status())).as("wr %d", got.wrId()).isEqualTo(WcStatus.str(WcStatus.SUCCESS));
                assertThat(got.wrId()).isEqualTo(id);
            }
            assertThat(e.f.bufA.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(40);
            RcFixture.assertFilled(e.f.bufA, 2048, 64, 9);
        }
    }

    @Test
    void shouldStampCompletionsWithTheDeviceClockInNanoseconds() {
        try (Ex e = new Ex(SendOps.RDMA_WRITE, RcFixture.ALL_ACCESS)) {
            assertThat(e.f.a.query().completionTimestampMask).isEqualTo(-1L);
            assertThat(e.f.a.query().hcaCoreClock).isEqualTo(1_000_000);
            long last = 0;
            for (int i = 0; i < 5; i++) {
                long before = System.nanoTime();
                e.xa.start();
                e.xa.wrFlags = SendFlags.SIGNALED;
                e.xa.rdmaWrite(e.f.mrb.rkey(), e.f.bufB.address());
                e.xa.setSge(e.f.mra.lkey(), e.f.bufA.address(), 8);
                e.xa.complete();
                Polled p = e.ok(e.cqa);
                long after = System.nanoTime();
                assertThat(p.ts()).isBetween(before - 50_000_000L, after).isGreaterThanOrEqualTo(last);
                last = p.ts();
            }
        }
    }
}
