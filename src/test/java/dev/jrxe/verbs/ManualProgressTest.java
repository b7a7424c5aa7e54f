package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The seams a simulation uses, on real devices: without a progress thread a device runs only when
 * its application drives it; its timers read the clock it was given; a seed makes its QPNs and
 * keys repeat.
 */
class ManualProgressTest {
    @Test
    void shouldRunOnlyWhenDrivenAndReadItsOwnClock() throws Exception {
        int port = RcFixture.nextPort();
        AtomicLong clock = new AtomicLong(5_000_000_000L);
        try (Device a = Device.open(DeviceConfig.of("m-a", "127.0.0.2").udpPort(port).manualProgress()
                 .clock(clock::get));
             Device b = Device.open(DeviceConfig.of("m-b", "127.0.0.3").udpPort(port).manualProgress()
                 .clock(clock::get));
             Arena arena = Arena.ofShared()) {
            ProtectionDomain pda = a.allocPd();
            ProtectionDomain pdb = b.allocPd();
            MemorySegment src = arena.allocate(4096, 4096);
            MemorySegment dst = arena.allocate(4096, 4096);
            src.fill((byte) 9);
            MemoryRegion ma = pda.registerMemory(src, Access.LOCAL_WRITE);
            MemoryRegion mb = pdb.registerMemory(dst, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            CompletionQueue cqa = a.createCq(16);
            QueuePair qa = pda.createQp(new QpInitAttr(QpType.RC, cqa, cqa, new QpCap(4, 4, 1, 1, 0)));
            QueuePair qb = pdb.createQp(new QpInitAttr(QpType.RC, b.createCq(16), b.createCq(16), new QpCap(4, 4, 1, 1, 0)));
            new RcConnect().timeout(14).pair(qa, 1, qb, 2);
            SendWr w = new SendWr(1).sge(src.address(), 4096, ma.lkey()).rdma(dst.address(), mb.rkey());
            w.opcode = WrOpcode.RDMA_WRITE;
            w.sendFlags = dev.jrxe.ib.SendFlags.SIGNALED;
            qa.postSend(w); // posting sends the request (the poster drives the engine)
            Thread.sleep(200);
            assertThat(RcVictim.allBytes(dst, (byte) 0)).as("nobody ran b: nothing landed").isTrue();
            assertThat(a.nextWork()).as("a's ACK timer, on a's clock").isLessThan(clock.get() + 100_000_000L);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (b.progress() <= 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(RcVictim.allBytes(dst, (byte) 9)).isTrue();
            WorkCompletion[] wc = {new WorkCompletion()};
            while (cqa.poll(wc) == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(wc[0].status).isEqualTo(WcStatus.SUCCESS);
            qa.close();
            qb.close();
        }
    }

    @Test
    void shouldRepeatQpnsAndKeysFromASeed() {
        int[][] seen = new int[2][];
        for (int run = 0; run < 2; run++) {
            try (Device d = Device.open(DeviceConfig.of("seeded", "127.0.0.2").udpPort(RcFixture.nextPort())
                     .manualProgress().seed(77));
                 Arena arena = Arena.ofShared()) {
                ProtectionDomain pd = d.allocPd();
                MemoryRegion mr = pd.registerMemory(arena.allocate(4096, 4096), Access.LOCAL_WRITE);
                CompletionQueue cq = d.createCq(4);
                QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(1, 1, 1, 1, 0)));
                seen[run] = new int[] {qp.qpNum(), mr.lkey()};
                qp.close();
            }
        }
        assertThat(seen[1]).containsExactly(seen[0]);
    }
}
