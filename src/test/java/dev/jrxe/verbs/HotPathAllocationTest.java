package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * Posting and polling allocate nothing: the thread that posts SENDs, RDMA WRITEs and READs and
 * polls their completions (and thereby runs both devices' engines: requester, responder,
 * completer, link) allocates no bytes per operation once warm.
 */
class HotPathAllocationTest {

    @Test
    void shouldPostAndPollWithoutAllocating() {
        try (RcFixture f = new RcFixture(1 << 16)) {
            f.connect();
            SendWr send = new SendWr(1).sge(f.bufA.address(), 2048, f.mra.lkey());
            send.sendFlags = SendFlags.SIGNALED;
            SendWr write = new SendWr(1).sge(f.bufA.address(), 4096, f.mra.lkey()).rdma(f.bufB.address() + 8192, f.mrb.rkey());
            write.opcode = WrOpcode.RDMA_WRITE;
            write.sendFlags = SendFlags.SIGNALED;
            SendWr read = new SendWr(1).sge(f.bufA.address() + 16384, 4096, f.mra.lkey())
                .rdma(f.bufB.address() + 8192, f.mrb.rkey());
            read.opcode = WrOpcode.RDMA_READ;
            read.sendFlags = SendFlags.SIGNALED;
            RecvWr recv = new RecvWr(1).sge(f.bufB.address(), 2048, f.mrb.lkey());
            WorkCompletion[] wc = f.wc;
            Runnable round = () -> {
                f.qb.postRecv(recv);
                f.qa.postSend(send);
                f.qa.postSend(write);
                f.qa.postSend(read);
                int a = 0;
                int b = 0;
                while (a < 3 || b < 1) {
                    a += f.cqa.poll(wc);
                    b += f.cqb.poll(wc);
                }
            };
            assertThat(bytesPerRound(round)).as("bytes allocated per round of 3 operations").isZero();
        }
    }

    @Test
    void shouldHoldAndReleaseAcksWithoutAllocating() {
        try (RcFixture f = new RcFixture(1 << 16)) {
            f.connect();
            SendWr send = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey());
            send.sendFlags = SendFlags.SIGNALED;
            RecvWr recv = new RecvWr(1).sge(f.bufB.address(), 64, f.mrb.lkey());
            WorkCompletion[] wc = f.wc;
            // b holds the SEND's ACK for an answer; the thread then drives a, which releases it
            Runnable round = () -> {
                f.qb.postRecv(recv);
                f.qa.postSend(send);
                while (f.cqb.poll(wc) == 0) {
                    Thread.onSpinWait();
                }
                while (f.cqa.poll(wc) == 0) {
                    Thread.onSpinWait();
                }
            };
            assertThat(bytesPerRound(round)).as("bytes allocated per SEND whose ACK was held and released").isZero();
        }
    }

    /** Bytes this thread allocates per {@code round}, measured over 2,000 rounds after 20,000 to warm up. */
    private static long bytesPerRound(Runnable round) {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++) {
            round.run();
        }
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 2_000; i++) {
            round.run();
        }
        return (mx.getCurrentThreadAllocatedBytes() - before) / 2_000;
    }
}
