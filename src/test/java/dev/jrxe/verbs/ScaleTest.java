package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * One device with 100,000 memory regions and 10,000 RC QPs (connected to 10,000 on a second
 * device), traffic on every QP and through every region: each region is READ by the peer once
 * (its rkey checked), every QP WRITEs once. Prints the heap and resident memory each QP and each
 * region costs; asserts only that every byte arrived and every work request succeeded.
 * {@code -Djrxe.test.scaleQps} / {@code -Djrxe.test.scaleMrs} change the numbers.
 */
class ScaleTest {
    private static final int QPS = Integer.getInteger("jrxe.test.scaleQps", 10_000);
    private static final int MRS = Integer.getInteger("jrxe.test.scaleMrs", 100_000);
    private static final int SLOT = 64;

    @Test
    void shouldServeTenThousandQpsAndAHundredThousandRegionsOnOneDevice() throws Exception {
        int port = RcFixture.nextPort();
        try (Device a = Device.open(DeviceConfig.of("scale-a", "127.0.0.2").udpPort(port));
             Device b = Device.open(DeviceConfig.of("scale-b", "127.0.0.3").udpPort(port));
             Arena arena = Arena.ofShared()) {
            ProtectionDomain pda = a.allocPd();
            ProtectionDomain pdb = b.allocPd();
            MemorySegment memA = arena.allocate((long) MRS * SLOT, 4096);
            MemorySegment memB = arena.allocate((long) MRS * SLOT, 4096);
            for (long i = 0; i < memA.byteSize(); i += 8) {
                memA.set(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
            }
            MemoryRegion mrB = pdb.registerMemory(memB, Access.LOCAL_WRITE | Access.REMOTE_WRITE);

            Footprint f0 = Footprint.now();
            MemoryRegion[] mrs = new MemoryRegion[MRS];
            for (int i = 0; i < MRS; i++) {
                mrs[i] = pda.registerMemory(memA.asSlice((long) i * SLOT, SLOT), Access.LOCAL_WRITE | Access.REMOTE_READ);
            }
            Footprint f1 = Footprint.now();

            CompletionQueue cqa = a.createCq(QPS + 16);
            CompletionQueue cqb = b.createCq(QPS + 16);
            QueuePair[] qa = new QueuePair[QPS];
            QueuePair[] qb = new QueuePair[QPS];
            for (int i = 0; i < QPS; i++) {
                qa[i] = pda.createQp(new QpInitAttr(QpType.RC, cqa, cqa, new QpCap(4, 4, 1, 1, 0)));
            }
            Footprint f2 = Footprint.now();
            for (int i = 0; i < QPS; i++) {
                qb[i] = pdb.createQp(new QpInitAttr(QpType.RC, cqb, cqb, new QpCap(4, 4, 1, 1, 0)));
                // timeout 18 (1.07 s): one duty cycle visits all 10,000 QPs, and on 2 busy cores a
                // round of 10,000 READs can keep a reply waiting longer than the default's 8 x 67 ms
                new RcConnect().accessFlags(Access.REMOTE_READ | Access.REMOTE_WRITE).rdAtomic(1, 1).timeout(18)
                    .pair(qa[i], i * 7919 & 0xFFFFFF, qb[i], i * 104729 & 0xFFFFFF);
            }
            assertThat(a.query().maxMr).isGreaterThanOrEqualTo(MRS);

            // every region READ once by the peer: B's QP (k % QPS) reads region k of A
            WorkCompletion[] wc = new WorkCompletion[256];
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            SendWr read = new SendWr(1);
            read.opcode = WrOpcode.RDMA_READ;
            read.sendFlags = SendFlags.SIGNALED;
            long t0 = System.nanoTime();
            for (int round = 0; round < (MRS + QPS - 1) / QPS; round++) {
                int posted = 0;
                for (int i = 0; i < QPS; i++) {
                    int k = round * QPS + i;
                    if (k >= MRS) {
                        break;
                    }
                    read.wrId = k;
                    read.sge(memB.address() + (long) k * SLOT, SLOT, mrB.lkey());
                    read.rdma(mrs[k].addr(), mrs[k].rkey());
                    qb[i].postSend(read);
                    posted++;
                }
                drain(cqb, wc, posted, "READ round " + round);
            }
            assertThat(memB.mismatch(memA)).as("every region's bytes arrived").isEqualTo(-1);
            // every QP WRITEs once, from one of A's regions into B
            memB.fill((byte) 0);
            SendWr write = new SendWr(1);
            write.opcode = WrOpcode.RDMA_WRITE;
            write.sendFlags = SendFlags.SIGNALED;
            for (int i = 0; i < QPS; i++) {
                int k = (int) ((long) i * MRS / QPS);
                write.wrId = i;
                write.sge(mrs[k].addr(), SLOT, mrs[k].lkey());
                write.rdma(memB.address() + (long) k * SLOT, mrB.rkey());
                qa[i].postSend(write);
            }
            drain(cqa, wc, QPS, "WRITEs");
            double seconds = (System.nanoTime() - t0) / 1e9;
            for (int i = 0; i < QPS; i++) {
                long k = (long) i * MRS / QPS;
                assertThat(memB.asSlice(k * SLOT, SLOT).mismatch(memA.asSlice(k * SLOT, SLOT))).isEqualTo(-1);
            }
            System.out.printf("scale: %d regions: %.0f B heap and %.0f B resident each; %d QPs: %.0f B heap and "
                    + "%.0f B resident each; %d READs and %d WRITEs in %.2f s%n", MRS, f1.heapPer(f0, MRS),
                f1.rssPer(f0, MRS), QPS, f2.heapPer(f1, QPS), f2.rssPer(f1, QPS), MRS, QPS, seconds);
            for (int i = 0; i < QPS; i++) {
                qa[i].close();
                qb[i].close();
            }
            for (MemoryRegion mr : mrs) {
                mr.close();
            }
        }
    }

    private static void drain(CompletionQueue cq, WorkCompletion[] wc, int expected, String what) {
        int done = 0;
        long deadline = System.nanoTime() + 120_000_000_000L; // a hang guard only
        while (done < expected) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                assertThat(WcStatus.str(wc[i].status)).as("%s, wr %d", what, wc[i].wrId)
                    .isEqualTo(WcStatus.str(WcStatus.SUCCESS));
            }
            done += n;
            assertThat(System.nanoTime()).as("%s: %d of %d", what, done, expected).isLessThan(deadline);
        }
    }

    /** Heap in use after a GC and the process's resident set, at one moment. */
    record Footprint(long heap, long rss) {
        static Footprint now() throws IOException, InterruptedException {
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(20);
            }
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            return new Footprint(heap, residentBytes());
        }

        double heapPer(Footprint before, int n) {
            return (heap - before.heap) / (double) n;
        }

        double rssPer(Footprint before, int n) {
            return (rss - before.rss) / (double) n;
        }
    }

    static long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }
}
