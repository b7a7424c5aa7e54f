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
        volatile boolean srcUnmapped;
        final RcFixture f = new RcFixture(4096);
        final MemoryRegion s = f.pda.registerMemory(src, Access.LOCAL_WRITE);
        final MemoryRegion d = f.pdb.registerMemory(dst, RcFixture.ALL_ACCESS);

        Regions(QpCap cap, int mtu) {
            this(cap, new RcConnect().pathMtu(mtu));
        }

        Regions(QpCap cap, RcConnect connect) {
            f.connect(cap, connect);
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
                if (!srcUnmapped) {
                    NativeMemory.unmap(src);
                }
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

    /**
     * The source region is deregistered and its memory unmapped while 64 KiB WRITEs from it stream:
     * both finish (no hold outlives its flush), every WRITE completes (with success or an error),
     * and no datagram is refused by the kernel for memory gone under it (EFAULT would count a
     * failed send; a seal reading it would crash the JVM).
     */
    @Test
    void shouldLetARegionAndItsMemoryGoWhileWritesFromItStream() throws Exception {
        try (Regions r = new Regions(new QpCap(256, 16, 1, 1, 0), Mtu.MTU_4096)) {
            RcFixture f = r.f;
            SendWr w = new SendWr(1).sge(r.src.address(), 65536, r.s.lkey()).rdma(r.dst.address(), r.d.rkey());
            w.opcode = WrOpcode.RDMA_WRITE;
            w.sendFlags = SendFlags.SIGNALED;
            WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            int inFlight = 0;
            int errors = 0;
            long sentBefore = r.sentByReference();
            CompletableFuture<Void> going = null;
            long deadline = System.nanoTime() + 20_000_000_000L;
            for (int posted = 0; (going == null || !going.isDone() || inFlight > 0) && System.nanoTime() < deadline; ) {
                if (going == null && posted == 200) {
                    going = CompletableFuture.runAsync(() -> { // mid-stream
                        r.s.close();
                        NativeMemory.unmap(r.src);
                        r.srcUnmapped = true;
                    });
                }
                if (inFlight < 64 && (going == null || !going.isDone()) && errors == 0) {
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
            assertThat(going).isNotNull();
            going.get(10, TimeUnit.SECONDS);
            assertThat(inFlight).as("every WRITE completed, with success or an error").isZero();
            assertThat(r.sentByReference() - sentBefore).as("the stream went by reference").isGreaterThan(0);
            assertThat(Internals.link(f.a).counters().drops(dev.jrxe.net.DropReason.SEND_FAILED)).isZero();
        }
    }

    /**
     * A responder's memory may change at any time (its application or another peer writes it while
     * a READ is answered), so a READ response's payload is copied, then sealed: the bytes on the
     * wire and their ICRC always agree. Sealed over the memory and sent from it later, a response
     * whose bytes changed in between would fail the reader's ICRC check, and a spot written all the
     * time would fail every retry.
     */
    @Test
    void shouldAnswerReadsOfMemoryBeingWrittenWithValidIcrcs() throws Exception {
        try (Regions r = new Regions(new QpCap(64, 16, 1, 1, 0), Mtu.MTU_4096)) {
            RcFixture f = r.f;
            long before = Internals.link(f.b).counters().txByReference();
            try (Rewriter ignored = new Rewriter(r.dst.asSlice(0, 65536))) { // the responder's application, never still
                SendWr read = new SendWr(1).sge(r.src.address(), 65536, r.s.lkey()).rdma(r.dst.address(), r.d.rkey());
                read.opcode = WrOpcode.RDMA_READ;
                read.sendFlags = SendFlags.SIGNALED;
                for (int i = 0; i < 200; i++) {
                    f.qa.postSend(read);
                    f.pollOk(f.cqa);
                }
            }
            assertThat(badIcrcs(f.a)).isZero();
            assertThat(Internals.link(f.b).counters().txByReference() - before).isZero();
        }
    }

    /**
     * A WRITE's source written while the WRITE is on the wire (against the verbs' rule, or by a
     * peer the region lets write): a packet sent by reference may then fail the receiver's ICRC
     * check, as its ICRC was sealed before the kernel copied the bytes, but its retransmission is
     * copied and sealed, so it arrives (two retries allowed, for a spurious timeout on busy cores).
     * Were retransmissions sent by reference too, the writer below would exhaust the retries
     * (RETRY_EXC_ERR within the first few WRITEs).
     */
    @Test
    void shouldRetransmitAPayloadWrittenUnderItsSendFromACopy() throws Exception {
        RcConnect connect = new RcConnect().pathMtu(Mtu.MTU_4096).timeout(12).retries(2, 7); // 16.8 ms
        try (Regions r = new Regions(new QpCap(64, 16, 1, 1, 0), connect)) {
            RcFixture f = r.f;
            long before = r.sentByReference();
            try (Rewriter ignored = new Rewriter(r.src.asSlice(0, 65536))) {
                SendWr w = new SendWr(1).sge(r.src.address(), 65536, r.s.lkey()).rdma(r.dst.address(), r.d.rkey());
                w.opcode = WrOpcode.RDMA_WRITE;
                w.sendFlags = SendFlags.SIGNALED;
                // until the writer has torn a few first transmissions (it needs its thread to run)
                for (int i = 0; i < 50 || (badIcrcs(f.b) < 3 && i < 2000); i++) {
                    f.qa.postSend(w);
                    f.pollOk(f.cqa);
                }
            }
            assertThat(r.sentByReference() - before).as("first transmissions by reference").isGreaterThan(0);
            assertThat(badIcrcs(f.b)).as("what the writer tore (else this test shows nothing)").isGreaterThan(0);
        }
    }

    /** A thread that rewrites {@code memory} with a new byte value, over and over, until closed. */
    private static final class Rewriter implements AutoCloseable {
        private volatile boolean stop;
        private final Thread thread;

        Rewriter(MemorySegment memory) {
            thread = Thread.ofPlatform().start(() -> {
                for (long v = 0; !stop; v++) {
                    memory.fill((byte) v);
                }
            });
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join();
        }
    }

    /** Datagrams {@code device} dropped for an ICRC that did not match their bytes. */
    private static long badIcrcs(Device device) {
        return Internals.link(device).counters().drops(dev.jrxe.net.DropReason.BAD_ICRC);
    }

    /**
     * UC completes a send as its last packet is queued, before the flush: its payloads are copied,
     * so a buffer reused right after the completion cannot change what goes out.
     */
    @Test
    void shouldCopyUcPayloads() {
        try (Regions r = new Regions(new QpCap(64, 64, 2, 1, 0), Mtu.MTU_1024)) {
            RcFixture f = r.f;
            QueuePair ua = f.pda.createQp(new QpInitAttr(dev.jrxe.ib.QpType.UC, f.cqa, f.cqa, new QpCap(16, 16, 1, 1, 0)));
            QueuePair ub = f.pdb.createQp(new QpInitAttr(dev.jrxe.ib.QpType.UC, f.cqb, f.cqb, new QpCap(16, 16, 1, 1, 0)));
            try {
                new RcConnect().pathMtu(Mtu.MTU_1024).pair(ua, 1, ub, 2);
                long before = r.sentByReference();
                RcFixture.fill(r.src, 0, 4096, 5);
                ub.postRecv(new RecvWr(1).sge(r.dst.address(), 4096, r.d.lkey()));
                SendWr send = new SendWr(1).sge(r.src.address(), 4096, r.s.lkey());
                send.opcode = WrOpcode.SEND;
                send.sendFlags = SendFlags.SIGNALED;
                ua.postSend(send);
                f.pollOk(f.cqa);
                RcFixture.fill(r.src, 0, 4096, 6); // reused at once
                assertThat(f.pollOk(f.cqb).byteLen).isEqualTo(4096);
                RcFixture.assertFilled(r.dst, 0, 4096, 5);
                assertThat(r.sentByReference() - before).isZero();
            } finally {
                ua.close();
                ub.close();
            }
        }
    }
}
