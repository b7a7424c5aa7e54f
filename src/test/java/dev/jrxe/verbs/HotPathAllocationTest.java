package dev.jrxe.verbs;

import com.sun.management.ThreadMXBean;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Posting and polling allocate nothing: once warm, neither the thread that posts SENDs, RDMA
 * WRITEs and READs and polls their completions (and thereby runs both devices' engines:
 * requester, responder, completer, link) nor either device's progress thread allocates a byte
 * in a window of 2,000 rounds. The count is exact: every thread of both devices, summed, no
 * rounding.
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
            assertAllocatesNothing(f, round);
        }
    }

    /**
     * Streaming, as perftest's BW tests do: each operation (WRITE, READ, SEND, both atomics) with 32
     * requests in flight, one completion per 8 (the rest unsignaled), the responder coalescing its
     * ACKs: no allocation per request, in flight or acknowledged.
     */
    @ParameterizedTest
    @ValueSource(ints = {WrOpcode.RDMA_WRITE, WrOpcode.RDMA_READ, WrOpcode.SEND, WrOpcode.ATOMIC_FETCH_AND_ADD,
        WrOpcode.ATOMIC_CMP_AND_SWP})
    void shouldStreamEachOperationWithoutAllocating(int opcode) {
        try (RcFixture f = new RcFixture(1 << 16)) {
            f.connect(new QpCap(64, 64, 1, 1, 0), new RcConnect());
            boolean atomic = opcode == WrOpcode.ATOMIC_FETCH_AND_ADD || opcode == WrOpcode.ATOMIC_CMP_AND_SWP;
            int size = atomic ? 8 : 1024;
            SendWr[] wrs = new SendWr[8];
            for (int i = 0; i < wrs.length; i++) {
                wrs[i] = new SendWr(1).sge(f.bufA.address() + i * 1024L, size, f.mra.lkey());
                wrs[i].opcode = opcode;
                wrs[i].rdma(f.bufB.address() + 16384 + i * 1024L, f.mrb.rkey());
                wrs[i].compareAdd = 1;
                wrs[i].sendFlags = i == wrs.length - 1 ? SendFlags.SIGNALED : 0;
            }
            RecvWr recv = new RecvWr(1).sge(f.bufB.address(), 1024, f.mrb.lkey());
            boolean send = opcode == WrOpcode.SEND;
            WorkCompletion[] wc = f.wc;
            int[] inFlight = {0};
            // one round: keep 4 groups of 8 (32 requests) in flight, take the completions that came
            Runnable round = () -> {
                while (inFlight[0] < 4) {
                    for (SendWr w : wrs) {
                        if (send) {
                            f.qb.postRecv(recv);
                        }
                        f.qa.postSend(w);
                    }
                    inFlight[0]++;
                }
                int got;
                do {
                    got = f.cqa.poll(wc);
                    for (int i = 0; i < got; i++) {
                        if (!wc[i].ok()) {
                            throw new AssertionError("completion " + wc[i]);
                        }
                    }
                    inFlight[0] -= got;
                    if (send) {
                        while (f.cqb.poll(wc) > 0) {
                            // the receives' completions: drained
                        }
                    }
                } while (got == 0);
            };
            assertAllocatesNothing(f, round);
        }
    }

    @Test
    void shouldPostBatchesAndPollExtendedCqsWithoutAllocating() {
        try (RcFixture f = new RcFixture(1 << 16)) {
            CompletionQueue cqa = f.a.createCqEx(256, null, 0, WcFlagsEx.SUPPORTED);
            CompletionQueue cqb = f.b.createCqEx(256, null, 0, WcFlagsEx.SUPPORTED);
            QpInitAttr ia = new QpInitAttr(dev.jrxe.ib.QpType.RC, cqa, cqa, new QpCap(64, 64, 2, 2, 64));
            ia.sendOpsFlags = dev.jrxe.ib.SendOps.RC_SUPPORTED;
            QpInitAttr ib = new QpInitAttr(dev.jrxe.ib.QpType.RC, cqb, cqb, new QpCap(64, 64, 2, 2, 64));
            f.qa = f.pda.createQp(ia);
            f.qb = f.pdb.createQp(ib);
            int access = dev.jrxe.ib.Access.LOCAL_WRITE | dev.jrxe.ib.Access.REMOTE_WRITE
                | dev.jrxe.ib.Access.REMOTE_READ | dev.jrxe.ib.Access.FLUSH_GLOBAL;
            new RcConnect().accessFlags(access).pair(f.qa, 1, f.qb, 2);
            MemoryRegion flushable = f.pdb.registerMemory(f.bufB.asSlice(32768, 4096), access);
            QpEx x = f.qa.ex();
            CqEx ca = cqa.ex();
            Runnable round = () -> {
                x.start();
                x.wrFlags = 0;
                x.rdmaWrite(f.mrb.rkey(), f.bufB.address() + 8192);
                x.setInlineData(f.bufA.address(), 48);
                x.rdmaRead(f.mrb.rkey(), f.bufB.address() + 8192);
                x.setSge(f.mra.lkey(), f.bufA.address() + 16384, 4096);
                x.atomicWrite(flushable.rkey(), flushable.addr() + 64, 42);
                x.wrFlags = SendFlags.SIGNALED;
                x.flush(flushable.rkey(), flushable.addr(), 4096, dev.jrxe.ib.Flush.GLOBAL, dev.jrxe.ib.Flush.RANGE);
                x.complete();
                long ts = 0;
                while (!ca.startPoll()) {
                    Thread.onSpinWait();
                }
                ts += ca.readCompletionTs() + ca.readByteLen() + ca.status();
                ca.endPoll();
                if (ts == 0) {
                    throw new AssertionError("no timestamp");
                }
            };
            assertAllocatesNothing(f, round);
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
            assertAllocatesNothing(f, round);
        }
    }

    @Test
    void shouldSendWriteAndReadOverSrdWithoutAllocating() {
        try (RcFixture f = new RcFixture(1 << 16);
             QueuePair sa = SrdDv.createQp(f.pda, new QpInitAttr(dev.jrxe.ib.QpType.DRIVER, f.cqa, f.cqa,
                 new QpCap(16, 16, 1, 1, 0)), 0);
             QueuePair sb = SrdDv.createQp(f.pdb, new QpInitAttr(dev.jrxe.ib.QpType.DRIVER, f.cqb, f.cqb,
                 new QpCap(16, 16, 1, 1, 0)), 0);
             AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
            UdSetup.toRts(sa, 5, 0);
            UdSetup.toRts(sb, 5, 0);
            SendWr send = new SendWr(1).sge(f.bufA.address(), 1024, f.mra.lkey());
            SendWr write = new SendWr(1).sge(f.bufA.address(), 5000, f.mra.lkey()).rdma(f.bufB.address() + 8192,
                f.mrb.rkey()); // five packets, placed in any order
            write.opcode = WrOpcode.RDMA_WRITE_WITH_IMM;
            SendWr read = new SendWr(1).sge(f.bufA.address() + 16384, 3000, f.mra.lkey())
                .rdma(f.bufB.address() + 8192, f.mrb.rkey());
            read.opcode = WrOpcode.RDMA_READ;
            for (SendWr w : new SendWr[] {send, write, read}) {
                w.sendFlags = SendFlags.SIGNALED;
                w.ah = ah;
                w.remoteQpn = sb.qpNum();
                w.remoteQkey = 5;
            }
            RecvWr recv = new RecvWr(1).sge(f.bufB.address(), 1024, f.mrb.lkey());
            WorkCompletion[] wc = f.wc;
            Runnable round = () -> {
                sb.postRecv(recv);
                sb.postRecv(recv);
                sa.postSend(send);
                sa.postSend(write);
                sa.postSend(read);
                int a = 0;
                int b = 0;
                while (a < 3 || b < 2) {
                    a += f.cqa.poll(wc);
                    b += f.cqb.poll(wc);
                }
            };
            assertAllocatesNothing(f, round);
        }
    }

    @Test
    void shouldSendUcAndUdWithoutAllocating() {
        try (RcFixture f = new RcFixture(1 << 16)) {
            f.qa = f.pda.createQp(new QpInitAttr(dev.jrxe.ib.QpType.UC, f.cqa, f.cqa, new QpCap(16, 16, 1, 1, 0)));
            f.qb = f.pdb.createQp(new QpInitAttr(dev.jrxe.ib.QpType.UC, f.cqb, f.cqb, new QpCap(16, 16, 1, 1, 0)));
            new RcConnect().pair(f.qa, 1, f.qb, 2);
            try (QueuePair ua = f.pda.createQp(new QpInitAttr(dev.jrxe.ib.QpType.UD, f.cqa, f.cqa, new QpCap(16, 16, 1, 1, 0)));
                 QueuePair ub = f.pdb.createQp(new QpInitAttr(dev.jrxe.ib.QpType.UD, f.cqb, f.cqb, new QpCap(16, 16, 1, 1, 0)));
                 AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
                UdSetup.toRts(ua, 3, 0);
                UdSetup.toRts(ub, 3, 0);
                SendWr uc = new SendWr(1).sge(f.bufA.address(), 3000, f.mra.lkey()); // three packets
                uc.sendFlags = SendFlags.SIGNALED;
                SendWr ud = new SendWr(1).sge(f.bufA.address(), 512, f.mra.lkey());
                ud.sendFlags = SendFlags.SIGNALED;
                ud.ah = ah;
                ud.remoteQpn = ub.qpNum();
                ud.remoteQkey = 3;
                RecvWr ucRecv = new RecvWr(1).sge(f.bufB.address(), 4096, f.mrb.lkey());
                RecvWr udRecv = new RecvWr(1).sge(f.bufB.address() + 8192, 40 + 512, f.mrb.lkey());
                WorkCompletion[] wc = f.wc;
                Runnable round = () -> {
                    f.qb.postRecv(ucRecv);
                    ub.postRecv(udRecv);
                    f.qa.postSend(uc);
                    ua.postSend(ud);
                    int a = 0;
                    int b = 0;
                    while (a < 2 || b < 2) {
                        a += f.cqa.poll(wc);
                        b += f.cqb.poll(wc);
                    }
                };
                assertAllocatesNothing(f, round);
            }
        }
    }

    /**
     * Bytes allocated by this thread and both devices' progress threads together, exactly, over
     * windows of 2,000 rounds after 20,000 to warm up. One window without a single byte shows the
     * path allocates nothing per operation (any per-packet allocation shows in every window); a
     * one-off allocation by the JIT's changes of code (seen: 240 bytes once in 40 windows) may
     * fall into a window, so up to ten are measured. The reads of the counters allocate nothing.
     */
    private static void assertAllocatesNothing(RcFixture f, Runnable round) {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] progress = {f.a.engine().progressThread().threadId(), f.b.engine().progressThread().threadId()};
        for (int i = 0; i < 20_000; i++) {
            round.run();
        }
        long[] windows = new long[10];
        long[] byThread = new long[3];
        long[] threadsBefore = new long[3]; // (made here: an array made in the window would count)
        for (int w = 0; w < windows.length; w++) {
            long before = allocated(mx, progress);
            threadsBefore[0] = mx.getCurrentThreadAllocatedBytes();
            threadsBefore[1] = mx.getThreadAllocatedBytes(progress[0]);
            threadsBefore[2] = mx.getThreadAllocatedBytes(progress[1]);
            for (int i = 0; i < 2_000; i++) {
                round.run();
            }
            windows[w] = allocated(mx, progress) - before;
            if (windows[w] == 0) {
                return;
            }
            byThread[0] += mx.getCurrentThreadAllocatedBytes() - threadsBefore[0];
            byThread[1] += mx.getThreadAllocatedBytes(progress[0]) - threadsBefore[1];
            byThread[2] += mx.getThreadAllocatedBytes(progress[1]) - threadsBefore[2];
        }
        throw new AssertionError("bytes allocated by the polling thread and both progress threads in each window of"
            + " 2,000 rounds: " + java.util.Arrays.toString(windows) + "; in all, by the polling thread and each"
            + " progress thread: " + java.util.Arrays.toString(byThread));
    }

    private static long allocated(ThreadMXBean mx, long[] progress) {
        long sum = mx.getCurrentThreadAllocatedBytes();
        for (long id : progress) {
            sum += mx.getThreadAllocatedBytes(id);
        }
        return sum;
    }
}
