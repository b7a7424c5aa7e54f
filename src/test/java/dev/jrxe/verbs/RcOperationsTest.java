package dev.jrxe.verbs;

import static dev.jrxe.verbs.RcFixture.assertFilled;
import static dev.jrxe.verbs.RcFixture.fill;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.transport.TransportCounters;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every RC operation between two devices, data verified byte for byte. */
class RcOperationsTest {

    @ParameterizedTest(name = "SEND {0} bytes at MTU {1}")
    @CsvSource({"0,1024", "1,1024", "3,256", "1023,1024", "1024,1024", "1025,1024", "4096,1024", "65536,1024",
        "65537,4096", "1048576,4096", "300000,256"})
    void shouldSendAndReceiveEveryByte(int size, int mtu) {
        try (RcFixture f = new RcFixture(2L * Math.max(size, 8) + 8192)) {
            f.connect(new QpCap(16, 16, 4, 4, 0), new RcConnect().pathMtu(Mtu.fromBytes(mtu)));
            fill(f.bufA, 0, size, size);
            RecvWr r = new RecvWr(1).sge(f.bufB.address(), Math.max(size, 1), f.mrb.lkey());
            r.wrId = 7;
            f.qb.postRecv(r);
            SendWr s = new SendWr(1).sge(f.bufA.address(), size, f.mra.lkey());
            s.wrId = 9;
            s.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(s);
            WorkCompletion sc = f.pollOk(f.cqa);
            assertThat(sc.wrId).isEqualTo(9);
            assertThat(sc.opcode).isEqualTo(WcOpcode.SEND);
            WorkCompletion rc = f.pollOk(f.cqb);
            assertThat(rc.wrId).isEqualTo(7);
            assertThat(rc.opcode).isEqualTo(WcOpcode.RECV);
            assertThat(rc.byteLen).isEqualTo(size);
            assertThat(rc.qpNum).isEqualTo(f.qb.qpNum());
            assertThat(rc.srcQp).isEqualTo(f.qa.qpNum());
            assertFilled(f.bufB, 0, size, size);
        }
    }

    @Test
    void shouldGatherAndScatterAcrossSeveralSges() {
        try (RcFixture f = new RcFixture(64 * 1024)) {
            f.connect();
            fill(f.bufA, 0, 10000, 5);
            SendWr s = new SendWr(4);
            s.sgList[0].set(f.bufA.address(), 1000, f.mra.lkey());
            s.sgList[1].set(f.bufA.address() + 1000, 3000, f.mra.lkey());
            s.sgList[2].set(f.bufA.address() + 4000, 6000, f.mra.lkey());
            s.numSge = 3;
            s.sendFlags = SendFlags.SIGNALED;
            RecvWr r = new RecvWr(4);
            r.sgList[0].set(f.bufB.address() + 20000, 7, f.mrb.lkey());
            r.sgList[1].set(f.bufB.address() + 30000, 5000, f.mrb.lkey());
            r.sgList[2].set(f.bufB.address() + 40000, 6000, f.mrb.lkey());
            r.numSge = 3;
            f.qb.postRecv(r);
            f.qa.postSend(s);
            f.pollOk(f.cqa);
            assertThat(f.pollOk(f.cqb).byteLen).isEqualTo(10000);
            byte[] got = new byte[10000];
            java.lang.foreign.MemorySegment g = java.lang.foreign.MemorySegment.ofArray(got);
            java.lang.foreign.MemorySegment.copy(f.bufB, 20000, g, 0, 7);
            java.lang.foreign.MemorySegment.copy(f.bufB, 30000, g, 7, 5000);
            java.lang.foreign.MemorySegment.copy(f.bufB, 40000, g, 5007, 4993);
            assertFilled(g, 0, 10000, 5);
        }
    }

    @Test
    void shouldDeliverImmediateData() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            f.qb.postRecv(new RecvWr(1).sge(f.bufB.address(), 100, f.mrb.lkey()));
            SendWr s = new SendWr(1).sge(f.bufA.address(), 100, f.mra.lkey());
            s.opcode = WrOpcode.SEND_WITH_IMM;
            s.immData = 0xCAFEF00D;
            f.qa.postSend(s);
            WorkCompletion rc = f.pollOk(f.cqb);
            assertThat(rc.wcFlags & WcFlags.WITH_IMM).isNotZero();
            assertThat(rc.immData).isEqualTo(0xCAFEF00D);
        }
    }

    @ParameterizedTest(name = "WRITE {0} bytes")
    @CsvSource({"0", "8", "1024", "5000", "200000"})
    void shouldRdmaWriteWithoutTheTargetPolling(int size) {
        try (RcFixture f = new RcFixture(2L * size + 4096)) {
            f.connect();
            fill(f.bufA, 0, size, 3);
            SendWr s = new SendWr(1).sge(f.bufA.address(), size, f.mra.lkey()).rdma(f.bufB.address() + 64, f.mrb.rkey());
            s.opcode = WrOpcode.RDMA_WRITE;
            s.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(s);
            assertThat(f.pollOk(f.cqa).opcode).isEqualTo(WcOpcode.RDMA_WRITE);
            assertFilled(f.bufB, 64, size, 3);
            assertThat(f.quiet(f.cqb, 20)).as("a plain WRITE consumes no receive").isTrue();
        }
    }

    @Test
    void shouldCompleteWriteWithImmediateAtTheTarget() {
        try (RcFixture f = new RcFixture(16384)) {
            f.connect();
            fill(f.bufA, 0, 3000, 8);
            RecvWr r = new RecvWr(1);
            r.numSge = 0;
            r.wrId = 55;
            f.qb.postRecv(r);
            SendWr s = new SendWr(1).sge(f.bufA.address(), 3000, f.mra.lkey()).rdma(f.bufB.address(), f.mrb.rkey());
            s.opcode = WrOpcode.RDMA_WRITE_WITH_IMM;
            s.immData = 77;
            f.qa.postSend(s);
            WorkCompletion rc = f.pollOk(f.cqb);
            assertThat(rc.opcode).isEqualTo(WcOpcode.RECV_RDMA_WITH_IMM);
            assertThat(rc.byteLen).isEqualTo(3000);
            assertThat(rc.immData).isEqualTo(77);
            assertThat(rc.wrId).isEqualTo(55);
            assertFilled(f.bufB, 0, 3000, 8);
        }
    }

    @ParameterizedTest(name = "READ {0} bytes")
    @CsvSource({"0", "2", "1024", "4097", "65536", "1000000"})
    void shouldRdmaRead(int size) {
        try (RcFixture f = new RcFixture(2L * size + 4096)) {
            f.connect();
            fill(f.bufB, 100, size, 21);
            SendWr s = new SendWr(1).sge(f.bufA.address(), size, f.mra.lkey()).rdma(f.bufB.address() + 100, f.mrb.rkey());
            s.opcode = WrOpcode.RDMA_READ;
            s.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(s);
            WorkCompletion w = f.pollOk(f.cqa);
            assertThat(w.opcode).isEqualTo(WcOpcode.RDMA_READ);
            assertThat(w.byteLen).isEqualTo(size);
            assertFilled(f.bufA, 0, size, 21);
        }
    }

    @Test
    void shouldExecuteAtomicsAndReturnTheOriginalValue() {
        try (RcFixture f = new RcFixture(4096)) {
            f.connect();
            f.bufB.set(ValueLayout.JAVA_LONG, 8, 1000);
            SendWr s = new SendWr(1).sge(f.bufA.address(), 8, f.mra.lkey()).rdma(f.bufB.address() + 8, f.mrb.rkey());
            s.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
            s.compareAdd = 5;
            s.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(s);
            assertThat(f.pollOk(f.cqa).opcode).isEqualTo(WcOpcode.FETCH_ADD);
            assertThat(f.bufA.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(1000);
            assertThat(f.bufB.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(1005);
            s.opcode = WrOpcode.ATOMIC_CMP_AND_SWP;
            s.compareAdd = 1005;
            s.swap = -1;
            f.qa.postSend(s);
            assertThat(f.pollOk(f.cqa).opcode).isEqualTo(WcOpcode.COMP_SWAP);
            assertThat(f.bufA.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(1005);
            assertThat(f.bufB.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(-1);
            s.compareAdd = 1; // no match: memory unchanged, original returned
            s.swap = 2;
            f.qa.postSend(s);
            f.pollOk(f.cqa);
            assertThat(f.bufA.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(-1);
            assertThat(f.bufB.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(-1);
        }
    }

    @Test
    void shouldReportOnlySignaledCompletionsButEveryError() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            SendWr s = new SendWr(1).sge(f.bufA.address(), 16, f.mra.lkey()).rdma(f.bufB.address(), f.mrb.rkey());
            s.opcode = WrOpcode.RDMA_WRITE;
            for (int i = 0; i < 10; i++) {
                s.wrId = i;
                s.sendFlags = i == 9 ? SendFlags.SIGNALED : 0;
                f.qa.postSend(s);
            }
            assertThat(f.pollOk(f.cqa).wrId).isEqualTo(9);
            assertThat(f.quiet(f.cqa, 20)).isTrue();
            s.wrId = 100;
            s.sendFlags = 0;
            s.rkey = f.mrb.rkey() + 1; // unsignaled, but an error is always reported
            f.qa.postSend(s);
            WorkCompletion w = f.poll(f.cqa);
            assertThat(w.wrId).isEqualTo(100);
            assertThat(w.status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    void shouldFenceBehindAnRdmaRead() {
        try (RcFixture f = new RcFixture(16384)) {
            f.connect();
            fill(f.bufB, 0, 4096, 1);
            SendWr read = new SendWr(1).sge(f.bufA.address(), 4096, f.mra.lkey()).rdma(f.bufB.address(), f.mrb.rkey());
            read.opcode = WrOpcode.RDMA_READ;
            read.sendFlags = SendFlags.SIGNALED;
            read.wrId = 1;
            // fenced WRITE sends back what the READ brought: only correct if it waits for the READ
            SendWr write = new SendWr(1).sge(f.bufA.address(), 4096, f.mra.lkey())
                .rdma(f.bufB.address() + 8192, f.mrb.rkey());
            write.opcode = WrOpcode.RDMA_WRITE;
            write.sendFlags = SendFlags.SIGNALED | SendFlags.FENCE;
            write.wrId = 2;
            read.next = write;
            f.qa.postSend(read);
            assertThat(f.pollOk(f.cqa).wrId).isEqualTo(1);
            assertThat(f.pollOk(f.cqa).wrId).isEqualTo(2);
            assertFilled(f.bufB, 8192, 4096, 1);
        }
    }

    @Test
    void shouldKeepManyMessagesInFlightInOrder() {
        try (RcFixture f = new RcFixture(1 << 20)) {
            f.connect(new QpCap(200, 200, 1, 1, 0), new RcConnect());
            int n = 200;
            int size = 2000;
            for (int i = 0; i < n; i++) {
                RecvWr r = new RecvWr(1).sge(f.bufB.address() + (long) i * size, size, f.mrb.lkey());
                r.wrId = i;
                f.qb.postRecv(r);
            }
            SendWr s = new SendWr(1);
            s.sendFlags = SendFlags.SIGNALED;
            for (int i = 0; i < n; i++) {
                fill(f.bufA, (long) i * size, size, i);
                s.sge(f.bufA.address() + (long) i * size, size, f.mra.lkey());
                s.wrId = i;
                f.qa.postSend(s);
            }
            for (int i = 0; i < n; i++) {
                assertThat(f.pollOk(f.cqb).wrId).isEqualTo(i);
                assertThat(f.pollOk(f.cqa).wrId).isEqualTo(i);
            }
            for (int i = 0; i < n; i++) {
                assertFilled(f.bufB, (long) i * size, size, i);
            }
            assertThat(f.a.transportCounters().get(TransportCounters.RDMA_SENDS)).isEqualTo(n);
            assertThat(f.b.transportCounters().get(TransportCounters.RDMA_RECVS)).isEqualTo(n);
            assertThat(f.qa.state()).isEqualTo(QpState.RTS);
        }
    }

    @Test
    void shouldRefuseToInvalidateARegisteredMrOnSendWithInvalidate() {
        // rxe (class J): a user MR cannot be invalidated remotely; the message is placed and
        // acknowledged, its receive completes in error, the QP goes to ERR, the MR stays valid
        try (RcFixture f = new RcFixture(16384)) {
            f.connect();
            MemoryRegion target = f.pdb.registerMemory(f.bufB.asSlice(8192, 4096),
                dev.jrxe.ib.Access.LOCAL_WRITE | dev.jrxe.ib.Access.REMOTE_WRITE);
            fill(f.bufA, 0, 3000, 12);
            f.qb.postRecv(new RecvWr(1).sge(f.bufB.address(), 3000, f.mrb.lkey()));
            SendWr s = new SendWr(1).sge(f.bufA.address(), 3000, f.mra.lkey());
            s.opcode = WrOpcode.SEND_WITH_INV;
            s.invalidateRkey = target.rkey();
            s.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(s);
            f.pollOk(f.cqa);
            WorkCompletion rc = f.poll(f.cqb);
            assertThat(rc.status).isEqualTo(WcStatus.REM_INV_REQ_ERR);
            assertThat(rc.wcFlags & WcFlags.WITH_INV).isZero();
            assertFilled(f.bufB, 0, 3000, 12);
            assertThat(f.qb.state()).isEqualTo(QpState.ERR);
            assertThat(f.b.keys().lookup(target.rkey()).check(f.pdb.handle(), dev.jrxe.ib.Access.REMOTE_WRITE,
                f.bufB.address() + 8192, 4096)).isEqualTo(dev.jrxe.memory.MemStatus.OK);
        }
    }
}
