package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.transport.TransportCounters;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** RC error flows with rxe's completion statuses (rdma-core test_atomic / test_qp expectations). */
class RcErrorsTest {

    private static SendWr write(RcFixture f, int len, long raddr, int rkey) {
        SendWr s = new SendWr(1).sge(f.bufA.address(), len, f.mra.lkey()).rdma(raddr, rkey);
        s.opcode = WrOpcode.RDMA_WRITE;
        s.sendFlags = SendFlags.SIGNALED;
        return s;
    }

    @Test
    void shouldFailWithRemoteAccessErrorOnABadRkeyAndFlushTheRest() throws Exception {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            SendWr bad = write(f, 64, f.bufB.address(), f.mrb.rkey() + 1);
            bad.wrId = 1;
            SendWr after = write(f, 64, f.bufB.address(), f.mrb.rkey());
            after.wrId = 2;
            bad.next = after;
            f.qa.postSend(bad);
            WorkCompletion w1 = f.poll(f.cqa);
            assertThat(w1.wrId).isEqualTo(1);
            assertThat(w1.status).isEqualTo(WcStatus.REM_ACCESS_ERR);
            WorkCompletion w2 = f.poll(f.cqa);
            assertThat(w2.wrId).isEqualTo(2);
            assertThat(w2.status).isEqualTo(WcStatus.WR_FLUSH_ERR);
            assertThat(f.qa.state()).isEqualTo(QpState.ERR);
            // the responder's QP goes to the error state too, with an access-error event
            AsyncEvent ev = nextQpEvent(f.b);
            assertThat(ev.type()).isEqualTo(AsyncEventType.QP_ACCESS_ERR);
            assertThat(f.qb.state()).isEqualTo(QpState.ERR);
        }
    }

    private static AsyncEvent nextQpEvent(Device d) throws InterruptedException {
        for (;;) {
            AsyncEvent e = d.getAsyncEvent(5, TimeUnit.SECONDS);
            assertThat(e).as("async event").isNotNull();
            if (e.qp() != null) {
                return e;
            }
        }
    }

    @Test
    void shouldFailWithRemoteAccessErrorOutsideTheRegion() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            f.qa.postSend(write(f, 64, f.bufB.address() + 8192 - 32, f.mrb.rkey()));
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    void shouldFailAtomicWithoutRemoteAtomicAccessOnTheQpAsAnInvalidRequest() {
        // rxe check_op_valid: an operation the responder QP does not enable is an invalid request
        try (RcFixture f = new RcFixture(8192)) {
            f.connect(new QpCap(8, 8, 1, 1, 0), new RcConnect().accessFlags(Access.LOCAL_WRITE | Access.REMOTE_WRITE));
            SendWr s = write(f, 8, f.bufB.address(), f.mrb.rkey());
            s.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
            f.qa.postSend(s);
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        }
    }

    @Test
    void shouldFailAtomicWithoutRemoteAtomicAccessOnTheRegion() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            MemoryRegion lw = f.pdb.registerMemory(f.bufB.asSlice(4096, 4096), Access.LOCAL_WRITE);
            SendWr s = write(f, 8, f.bufB.address() + 4096, lw.rkey());
            s.opcode = WrOpcode.ATOMIC_CMP_AND_SWP;
            f.qa.postSend(s);
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    void shouldNakAMisalignedAtomicAsInvalidRequest() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            SendWr s = write(f, 8, f.bufB.address() + 1, f.mrb.rkey());
            s.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
            f.qa.postSend(s);
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        }
    }

    @Test
    void shouldFailWithLocalProtectionErrorOnABadLkey() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            SendWr s = write(f, 64, f.bufB.address(), f.mrb.rkey());
            s.sgList[0].lkey = f.mra.lkey() + 1;
            f.qa.postSend(s);
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.LOC_PROT_ERR);
            assertThat(f.qa.state()).isEqualTo(QpState.ERR);
        }
    }

    @Test
    void shouldFailWithLocalLengthErrorWhenTheReceiveBufferIsTooSmall() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            f.qb.postRecv(new RecvWr(1).sge(f.bufB.address(), 100, f.mrb.lkey()));
            SendWr s = new SendWr(1).sge(f.bufA.address(), 200, f.mra.lkey());
            f.qa.postSend(s);
            assertThat(f.poll(f.cqb).status).isEqualTo(WcStatus.LOC_LEN_ERR);
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        }
    }

    @Test
    void shouldRetryOnRnrUntilAReceiveIsPosted() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect(new QpCap(8, 8, 1, 1, 0), new RcConnect().minRnrTimer(1));
            SendWr s = new SendWr(1).sge(f.bufA.address(), 100, f.mra.lkey());
            s.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(s);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (f.b.transportCounters().get(TransportCounters.SEND_RNR_ERR) == 0 && System.nanoTime() < deadline) {
                f.quiet(f.cqa, 1);
            }
            assertThat(f.b.transportCounters().get(TransportCounters.SEND_RNR_ERR)).isPositive();
            f.qb.postRecv(new RecvWr(1).sge(f.bufB.address(), 100, f.mrb.lkey()));
            f.pollOk(f.cqa);
            f.pollOk(f.cqb);
            assertThat(f.a.transportCounters().get(TransportCounters.RCVD_RNR_ERR)).isPositive();
        }
    }

    @Test
    void shouldGiveUpWithRnrRetryExceeded() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect(new QpCap(8, 8, 1, 1, 0), new RcConnect().minRnrTimer(1).retries(7, 2));
            SendWr s = new SendWr(1).sge(f.bufA.address(), 100, f.mra.lkey());
            f.qa.postSend(s);
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.RNR_RETRY_EXC_ERR);
            assertThat(f.a.transportCounters().get(TransportCounters.RETRY_RNR_EXCEEDED_ERR)).isEqualTo(1);
        }
    }

    @Test
    void shouldGiveUpWithRetryExceededWhenThePeerVanishes() {
        try (RcFixture f = new RcFixture(8192)) {
            // timeout 10 = 4.2 ms, 3 retries
            f.connect(new QpCap(8, 8, 1, 1, 0), new RcConnect().timeout(10).retries(3, 3));
            f.qb.close();
            f.qb = null;
            f.b.close();
            f.qa.postSend(write(f, 64, f.bufB.address(), f.mrb.rkey()));
            WorkCompletion w = f.poll(f.cqa);
            assertThat(w.status).isEqualTo(WcStatus.RETRY_EXC_ERR);
            assertThat(f.a.transportCounters().get(TransportCounters.RETRY_EXCEEDED_ERR)).isEqualTo(1);
            assertThat(f.a.transportCounters().get(TransportCounters.COMPLETER_RETRY_ERR)).isEqualTo(3);
        }
    }

    @Test
    void shouldFailAtomicWithABadLkeyLocallyAndABadRkeyRemotely() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            SendWr s = write(f, 8, f.bufB.address(), f.mrb.rkey() + 1);
            s.opcode = WrOpcode.ATOMIC_CMP_AND_SWP;
            f.qa.postSend(s);
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            SendWr s = write(f, 8, f.bufB.address(), f.mrb.rkey());
            s.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
            s.sgList[0].lkey = f.mra.lkey() + 1;
            f.qa.postSend(s);
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.LOC_PROT_ERR);
        }
    }

    @Test
    void shouldRefuseAReadIntoARegionWithoutLocalWrite() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            MemoryRegion ro = f.pda.registerMemory(f.bufA.asSlice(4096, 4096), 0);
            SendWr s = write(f, 64, f.bufB.address(), f.mrb.rkey());
            s.opcode = WrOpcode.RDMA_READ;
            s.sgList[0].set(f.bufA.address() + 4096, 64, ro.lkey());
            f.qa.postSend(s);
            assertThat(f.poll(f.cqa).status).isEqualTo(WcStatus.LOC_PROT_ERR);
        }
    }
}
