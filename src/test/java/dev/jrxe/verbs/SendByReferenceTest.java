package dev.jrxe.verbs;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.internal.Internals;
import dev.jrxe.memory.NativeMemory;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RC traffic whose payloads the link sends from the registered memory (jrxe's allocator, pinned):
 * every byte arrives, messages that cross SGEs within a packet are copied instead, and a region
 * can be deregistered while WRITEs from it stream (the link lets go of its memory at each flush).
 */
class SendByReferenceTest {
    private static final int SIZE = 1 << 20;

    /** Two connected devices and a region of jrxe's allocator on each side: s to send from, d to land in. */
    private static final class Regions implements AutoCloseable {
        final MemorySegment src = NativeMemory.map(SIZE);
        final MemorySegment dst = NativeMemory.map(SIZE);
        final RcFixture f = new RcFixture(4096);
        final MemoryRegion s = f.pda.registerMemory(src, Access.LOCAL_WRITE);
        final MemoryRegion d = f.pdb.registerMemory(dst, RcFixture.ALL_ACCESS);

        Regions(QpCap cap, int mtu) {
            f.connect(cap, new RcConnect().pathMtu(mtu));
        }

        long sentByReference() {
            return Internals.link(f.a).counters().txByReference();
        }

        @Override
        public void close() {
            try {
                s.close(); // (twice is harmless)
                d.close();
                f.close();
            } finally {
                NativeMemory.unmap(src);
                NativeMemory.unmap(dst);
            }
        }
    }

    @Test
    void shouldWriteAndSendEveryByteFromWhereItLies() {
        try (Regions r = new Regions(new QpCap(64, 64, 2, 1, 0), Mtu.MTU_1024)) {
            RcFixture f = r.f;
            long before = r.sentByReference();
            int seed = 1;
            for (int n : new int[] {1024, 1025, 3000, 4096, 65536, 100_003}) {
                RcFixture.fill(r.src, 0, n, seed);
                SendWr w = new SendWr(1).sge(r.src.address(), n, r.s.lkey()).rdma(r.dst.address() + 8, r.d.rkey());
                w.opcode = WrOpcode.RDMA_WRITE;
                w.sendFlags = SendFlags.SIGNALED;
                f.qa.postSend(w);
                f.pollOk(f.cqa);
                RcFixture.assertFilled(r.dst, 8, n, seed);
                seed++;

                RcFixture.fill(r.src, 0, n, seed);
                f.qb.postRecv(new RecvWr(1).sge(r.dst.address(), n, r.d.lkey()));
                SendWr send = new SendWr(1).sge(r.src.address(), n, r.s.lkey());
                send.opcode = WrOpcode.SEND;
                send.sendFlags = SendFlags.SIGNALED;
                f.qa.postSend(send);
                f.pollOk(f.cqa);
                assertThat(f.pollOk(f.cqb).byteLen).isEqualTo(n);
                RcFixture.assertFilled(r.dst, 0, n, seed);
                seed++;
            }
            // every packet of 1 KiB or more, of both operations (more if one was sent again)
            assertThat(r.sentByReference() - before).isGreaterThanOrEqualTo(2 * (1 + 1 + 2 + 4 + 64 + 97));
        }
    }

    @Test
    void shouldCopyAPacketWhosePayloadSpansTwoSges() {
        try (Regions r = new Regions(new QpCap(64, 64, 2, 1, 0), Mtu.MTU_1024)) {
            RcFixture f = r.f;
            // 1,500 bytes at 0, then 2,000 at 100,000: the second packet's 1,024 bytes span both
            RcFixture.fill(r.src, 0, 1500, 7);
            RcFixture.fill(r.src, 100_000, 2000, 8);
            long before = r.sentByReference();
            SendWr w = new SendWr(2).rdma(r.dst.address(), r.d.rkey());
            w.sgList[0].set(r.src.address(), 1500, r.s.lkey());
            w.sgList[1].set(r.src.address() + 100_000, 2000, r.s.lkey());
            w.numSge = 2;
            w.opcode = WrOpcode.RDMA_WRITE;
            w.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(w);
            f.pollOk(f.cqa);
            RcFixture.assertFilled(r.dst, 0, 1500, 7);
            RcFixture.assertFilled(r.dst, 1500, 2000, 8);
            // packets: [0,1024) by reference, [1024,2048) copied, [2048,3072) by reference, the 428-byte tail copied
            assertThat(r.sentByReference() - before).isEqualTo(2);
        }
    }

    @Test
    void shouldDeregisterARegionWhileWritesFromItStream() throws Exception {
        try (Regions r = new Regions(new QpCap(256, 16, 1, 1, 0), Mtu.MTU_4096)) {
            RcFixture f = r.f;
            SendWr w = new SendWr(1).sge(r.src.address(), 65536, r.s.lkey()).rdma(r.dst.address(), r.d.rkey());
            w.opcode = WrOpcode.RDMA_WRITE;
            w.sendFlags = SendFlags.SIGNALED;
            WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            int inFlight = 0;
            int errors = 0;
            long sentBefore = r.sentByReference();
            CompletableFuture<Void> closing = null;
            long deadline = System.nanoTime() + 20_000_000_000L;
            for (int posted = 0; (closing == null || !closing.isDone() || inFlight > 0) && System.nanoTime() < deadline; ) {
                if (closing == null && posted == 200) {
                    closing = CompletableFuture.runAsync(r.s::close); // mid-stream
                }
                if (inFlight < 64 && (closing == null || !closing.isDone()) && errors == 0) {
                    try {
                        f.qa.postSend(w);
                        posted++;
                        inFlight++;
                    } catch (VerbsException e) {
                        errors++; // the QP went to error: stop posting
                    }
                }
                int n = f.cqa.poll(wc);
                for (int i = 0; i < n; i++) {
                    inFlight--;
                    if (wc[i].status != WcStatus.SUCCESS) {
                        errors++;
                    }
                }
            }
            assertThat(closing).isNotNull();
            closing.get(10, TimeUnit.SECONDS); // it finished: no payload stayed held
            assertThat(inFlight).as("every WRITE completed, with success or an error").isZero();
            assertThat(r.sentByReference() - sentBefore).as("the stream went by reference").isGreaterThan(0);
        }
    }
}
