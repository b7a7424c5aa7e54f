package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.Errno;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WrOpcode;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * trySend / tryRecv return the errno instead of throwing (a full queue allocates nothing),
 * SendWr.reset clears a request for reuse, SGEs built from an MR are bounds-checked, and a
 * RemoteBuffer travels as 20 bytes and targets an RDMA WRITE.
 */
class BackPressureTest {
    @Test
    void shouldReturnEnomemFromAFullSendQueueWithoutThrowingOrAllocating() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect(new QpCap(4, 4, 1, 1, 0), new RcConnect());
            f.qb.close(); // nothing will answer: a's requests stay outstanding, its send queue full
            SendWr wr = new SendWr(1).sge(f.mra, 0, 64);
            wr.sendFlags = SendFlags.SIGNALED;
            int posted = 0;
            while (f.qa.trySend(wr) == 0) {
                posted++;
            }
            assertThat(posted).isEqualTo(4);
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            for (int i = 0; i < 20_000; i++) {
                f.qa.trySend(wr); // warm: compiled before it is measured
            }
            // windows of 2,000 refused calls: one without a single byte shows the path allocates
            // nothing per call (a one-off allocation of the JIT's may fall into a window)
            long[] windows = new long[10];
            int enomem = 0;
            for (int w = 0; w < windows.length; w++) {
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 2_000; i++) {
                    if (f.qa.trySend(wr) == Errno.ENOMEM) {
                        enomem++;
                    }
                }
                windows[w] = mx.getCurrentThreadAllocatedBytes() - before;
                if (windows[w] == 0) {
                    break;
                }
            }
            assertThat(enomem % 2_000).as("every refused call said ENOMEM").isZero();
            assertThat(windows).as("bytes allocated per window of 2,000 refused trySend calls").contains(0L);
            // postSend says the same with an exception
            assertThatThrownBy(() -> f.qa.postSend(wr)).isInstanceOfSatisfying(PostException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM)).hasMessageContaining("send queue full (4)");
        }
    }

    @Test
    void shouldReturnTheErrnoOfTheFirstReceiveNotPosted() {
        try (RcFixture f = new RcFixture(8192)) {
            QueuePair q = f.pda.createQp(new QpInitAttr(dev.jrxe.ib.QpType.RC, f.cqa, f.cqa, new QpCap(4, 2, 1, 1, 0)));
            RecvWr r = new RecvWr(1).sge(f.mra, 0, 64);
            assertThat(q.tryRecv(r)).isEqualTo(Errno.EINVAL);
            assertThat(q.lastError()).contains("RESET");
            new RcConnect().toInit(q);
            assertThat(q.tryRecv(r)).isZero();
            assertThat(q.tryRecv(r)).isZero();
            assertThat(q.tryRecv(r)).isEqualTo(Errno.ENOMEM);
            assertThatThrownBy(() -> q.postRecv(r)).hasMessageContaining("receive queue full (2)");
            q.close();
        }
    }

    @Test
    void shouldCheckSgesBuiltFromARegionAndResetARequest() {
        try (RcFixture f = new RcFixture(8192)) {
            SendWr wr = new SendWr(2).sge(f.mra, 8192 - 64, 64);
            assertThat(wr.sgList[0].addr).isEqualTo(f.mra.addr() + 8192 - 64);
            assertThat(wr.sgList[0].lkey).isEqualTo(f.mra.lkey());
            assertThatThrownBy(() -> wr.sge(f.mra, 8192 - 63, 64)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> new RecvWr(1).sge(f.mra, -1, 8)).isInstanceOf(IndexOutOfBoundsException.class);
            wr.opcode = WrOpcode.RDMA_WRITE_WITH_IMM;
            wr.sendFlags = SendFlags.SIGNALED;
            wr.immData = 7;
            wr.remoteAddr = 99;
            wr.rkey = 5;
            wr.next = new SendWr();
            wr.reset();
            assertThat(wr.opcode).isEqualTo(WrOpcode.SEND);
            assertThat(wr.sendFlags | wr.immData | wr.rkey | wr.numSge).isZero();
            assertThat(wr.remoteAddr).isZero();
            assertThat(wr.next).isNull();
            assertThat(wr.sgList[0].addr).isZero();
        }
    }

    @Test
    void shouldCarryARemoteBufferToThePeerAndWriteIntoIt() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            RemoteBuffer sent = f.mrb.remote(4096, 1024);
            ByteBuffer wire = ByteBuffer.allocate(RemoteBuffer.BYTES);
            sent.encode(wire);
            assertThat(wire.position()).isEqualTo(RemoteBuffer.BYTES);
            RemoteBuffer got = RemoteBuffer.decode(wire.flip());
            assertThat(got).isEqualTo(sent);
            assertThat(RemoteBuffer.decode(sent.toBytes())).isEqualTo(sent);
            assertThatThrownBy(() -> got.at(1000, 25)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> f.mrb.remote(8000, 193)).isInstanceOf(IndexOutOfBoundsException.class);

            RcFixture.fill(f.bufA, 0, 64, 3);
            SendWr wr = new SendWr(1).reset().sge(f.mra, 0, 64).remote(got.at(128, 64));
            wr.opcode = WrOpcode.RDMA_WRITE;
            wr.sendFlags = SendFlags.SIGNALED;
            assertThat(f.qa.trySend(wr)).isZero();
            assertThat(f.pollOk(f.cqa).opcode).isEqualTo(WcOpcode.RDMA_WRITE);
            RcFixture.assertFilled(f.bufB, 4096 + 128, 64, 3);
        }
    }
}
