package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemoryProbe;
import dev.jrxe.memory.NativeMemory;
import java.io.File;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A thousand cycles of open, use and close: two devices (on the same UDP port every cycle, so a
 * socket left open fails the next bind), a PD, a pinned, an explicit ODP and an implicit ODP
 * region, a CQ and an RC QP each, connected; a SEND, a WRITE, a READ and an atomic through them;
 * then everything closed (the key tables empty once the regions are). Afterwards the process has the
 * threads, file descriptors, jrxe mappings, invalidation listeners and pinned ranges it had before,
 * and its heap and resident memory do not grow with the cycles: the second half of them may add
 * less than 16 KiB of heap and 32 KiB of resident memory per cycle. (Resident memory does move in
 * the first: the allocator's and the JIT's one-off growth.)
 */
class LeakTest {
    private static final int CYCLES = Integer.getInteger("jrxe.test.leakCycles", 1000);
    private static final int ALL = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;

    /** What a leak would raise. */
    record Snapshot(java.util.Set<Long> threads, long fds, int mappings, int listeners, int pinnedRanges, long heap,
                    long rss) {
        static Snapshot now() throws IOException, InterruptedException {
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(50);
            }
            String[] fds = new File("/proc/self/fd").list();
            return new Snapshot(liveThreads(), fds == null ? -1 : fds.length,
                MemoryProbe.mappings(), MemoryProbe.listeners(), MemoryProbe.pinnedRanges(),
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), ScaleTest.residentBytes());
        }
    }

    @Test
    void shouldLeaveNothingBehindAfterAThousandOpenUseCloseCycles() throws Exception {
        int port = RcFixture.nextPort();
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
        for (int i = 0; i < 50; i++) {
            cycle(port, wc); // warm up: classes, JIT, thread-locals, buffer caches
        }
        Snapshot before = Snapshot.now();
        long t0 = System.nanoTime();
        for (int i = 0; i < CYCLES / 2; i++) {
            cycle(port, wc);
        }
        Snapshot half = Snapshot.now();
        for (int i = CYCLES / 2; i < CYCLES; i++) {
            cycle(port, wc);
        }
        double ms = (System.nanoTime() - t0) / 1e6 / CYCLES;
        Snapshot after = Snapshot.now();
        System.out.printf("leaks: %d cycles (%.1f ms each); before %s; half way %s; after %s%n", CYCLES, ms, before,
            half, after);
        // threads of earlier test classes may end meanwhile: a leak is a thread that was not there before
        assertThat(threadNames(after.threads(), before.threads())).as("threads started and still alive").isEmpty();
        assertThat(after.fds()).as("file descriptors").isEqualTo(before.fds());
        assertThat(after.mappings()).as("jrxe mappings").isEqualTo(before.mappings());
        assertThat(after.listeners()).as("invalidation listeners").isEqualTo(before.listeners());
        assertThat(after.pinnedRanges()).as("pinned ranges").isEqualTo(before.pinnedRanges());
        // A leak grows both halves alike; the allocator's and the JIT's one-off growth shows in the
        // first. Bounds: 16 KiB of heap or 32 KiB resident per cycle of the second half.
        assertThat(after.heap() - half.heap()).as("heap growth in the second half").isLessThan(CYCLES / 2 * 16L << 10);
        assertThat(after.rss() - half.rss()).as("resident growth in the second half").isLessThan(CYCLES / 2 * 32L << 10);
    }

    /** Ids of the live platform threads, except the JDK's pool workers that come and go on their own. */
    private static java.util.Set<Long> liveThreads() {
        java.util.Set<Long> ids = new java.util.TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!t.getName().startsWith("ForkJoinPool")) {
                ids.add(t.threadId());
            }
        }
        return ids;
    }

    private static java.util.List<String> threadNames(java.util.Set<Long> now, java.util.Set<Long> before) {
        java.util.List<String> names = new java.util.ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (now.contains(t.threadId()) && !before.contains(t.threadId())) {
                names.add(t.getName());
            }
        }
        return names;
    }

    private static void cycle(int port, WorkCompletion[] wc) {
        MemorySegment odp = NativeMemory.map(1 << 16);
        try (Device a = Device.open(DeviceConfig.of("leak-a", "127.0.0.2").udpPort(port));
             Device b = Device.open(DeviceConfig.of("leak-b", "127.0.0.3").udpPort(port));
             Arena arena = Arena.ofConfined()) {
            ProtectionDomain pda = a.allocPd();
            ProtectionDomain pdb = b.allocPd();
            MemorySegment pinned = arena.allocate(1 << 16, 4096);
            MemoryRegion mrPinned = pda.registerMemory(pinned, ALL);
            MemoryRegion mrOdp = pdb.registerMemory(odp, ALL | Access.ON_DEMAND);
            MemoryRegion mrImplicit = pda.registerMemory(0, -1L, ALL | Access.ON_DEMAND);
            CompletionQueue cqa = a.createCq(16);
            CompletionQueue cqb = b.createCq(16);
            QueuePair qa = pda.createQp(new QpInitAttr(QpType.RC, cqa, cqa, new QpCap(8, 8, 1, 1, 0)));
            QueuePair qb = pdb.createQp(new QpInitAttr(QpType.RC, cqb, cqb, new QpCap(8, 8, 1, 1, 0)));
            new RcConnect().pair(qa, 1, qb, 2);

            RecvWr recv = new RecvWr(1);
            recv.sge(odp.address(), 4096, mrOdp.lkey());
            qb.postRecv(recv);
            pinned.set(ValueLayout.JAVA_LONG, 0, 42);
            SendWr send = new SendWr(1).sge(pinned.address(), 64, mrPinned.lkey());
            send.sendFlags = SendFlags.SIGNALED;
            qa.postSend(send);
            await(cqa, wc, "SEND");
            await(cqb, wc, "RECV");
            SendWr write = new SendWr(1).sge(pinned.address(), 4096, mrImplicit.lkey()).rdma(odp.address() + 8192,
                mrOdp.rkey());
            write.opcode = WrOpcode.RDMA_WRITE;
            write.sendFlags = SendFlags.SIGNALED;
            qa.postSend(write);
            await(cqa, wc, "WRITE");
            SendWr read = new SendWr(1).sge(pinned.address() + 8192, 4096, mrPinned.lkey()).rdma(odp.address() + 8192,
                mrOdp.rkey());
            read.opcode = WrOpcode.RDMA_READ;
            read.sendFlags = SendFlags.SIGNALED;
            qa.postSend(read);
            await(cqa, wc, "READ");
            SendWr add = new SendWr(1).sge(pinned.address() + 16384, 8, mrPinned.lkey()).rdma(odp.address(), mrOdp.rkey());
            add.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
            add.compareAdd = 1;
            add.sendFlags = SendFlags.SIGNALED;
            qa.postSend(add);
            await(cqa, wc, "FETCH_ADD");
            assertThat(pinned.get(ValueLayout.JAVA_LONG, 16384)).isEqualTo(42);
            qa.close();
            qb.close();
            cqa.close();
            cqb.close();
            mrPinned.close();
            mrOdp.close();
            mrImplicit.close();
            assertThat(a.keys().size() + b.keys().size()).as("key-table entries after every region closed").isZero();
            pda.close();
            pdb.close();
        } finally {
            NativeMemory.unmap(odp);
        }
    }

    private static void await(CompletionQueue cq, WorkCompletion[] wc, String what) {
        long deadline = System.nanoTime() + 10_000_000_000L; // a hang guard only
        int n;
        while ((n = cq.poll(wc)) == 0) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
        }
        assertThat(n).isEqualTo(1);
        assertThat(WcStatus.str(wc[0].status)).as(what).isEqualTo(WcStatus.str(WcStatus.SUCCESS));
    }
}
