package dev.jrxe.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Flush;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.MemoryWindow;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.WorkCompletion;
import dev.jrxe.wire.Opcodes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real traffic of what issue 10 added (FLUSH of both placements and levels, ATOMIC_WRITE, their
 * empty READ responses, SEND_WITH_INV of a window, WRITEs through windows), captured by a
 * device's pcap: every packet passes the independent roce_check.py oracle (headers, lengths,
 * ICRC) and tshark names the new opcodes.
 */
class Ibta15CaptureTest {
    private static final int PORT = 24791 + (int) (ProcessHandle.current().pid() % 1000);

    @Test
    void shouldCaptureFlushAtomicWriteAndWindowTrafficThatTheOraclePasses(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("ibta15.pcapng");
        try (Device a = Device.open(DeviceConfig.of("cap-a", "127.0.0.2").udpPort(PORT).pcap(pcap));
             Device b = Device.open(DeviceConfig.of("cap-b", "127.0.0.3").udpPort(PORT));
             Arena arena = Arena.ofShared()) {
            ProtectionDomain pda = a.allocPd();
            ProtectionDomain pdb = b.allocPd();
            MemorySegment bufA = arena.allocate(8192, 4096);
            MemorySegment bufB = arena.allocate(8192, 4096);
            MemoryRegion mra = pda.registerMemory(bufA, Access.LOCAL_WRITE);
            MemoryRegion mrb = pdb.registerMemory(bufB, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.MW_BIND
                | Access.FLUSH_GLOBAL);
            CompletionQueue cqa = a.createCq(64);
            CompletionQueue cqb = b.createCq(64);
            QueuePair qa = pda.createQp(new QpInitAttr(QpType.RC, cqa, cqa, new QpCap(16, 16, 1, 1, 0)));
            QueuePair qb = pdb.createQp(new QpInitAttr(QpType.RC, cqb, cqb, new QpCap(16, 16, 1, 1, 0)));
            new RcConnect().accessFlags(Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.FLUSH_GLOBAL)
                .pair(qa, 0x100, qb, 0x200);

            MemoryWindow mw = pdb.allocMw(MemoryWindow.TYPE_2);
            SendWr bind = new SendWr(1).bindMw(mw, MemoryWindow.incRkey(mw.rkey()), mrb, bufB.address(), 4096,
                Access.REMOTE_WRITE);
            bind.sendFlags = SendFlags.SIGNALED;
            qb.postSend(bind);
            ok(cqb);
            RecvWr recv = new RecvWr(1);
            recv.sge(bufB.address() + 4096, 64, mrb.lkey());
            qb.postRecv(recv);

            SendWr write = new SendWr(1);
            write.opcode = WrOpcode.RDMA_WRITE;
            write.sge(bufA.address(), 3000, mra.lkey()).rdma(bufB.address(), mw.rkey());
            SendWr rangeFlush = flush(bufB.address(), mrb.rkey(), 3000, Flush.RANGE);
            SendWr mrFlush = flush(0, mrb.rkey(), 0, Flush.MR);
            SendWr atomicWrite = new SendWr(1);
            atomicWrite.opcode = WrOpcode.ATOMIC_WRITE;
            atomicWrite.remoteAddr = bufB.address() + 4096 + 128;
            atomicWrite.rkey = mrb.rkey();
            atomicWrite.atomicWriteValue = 0x1122334455667788L;
            SendWr inv = new SendWr(1);
            inv.opcode = WrOpcode.SEND_WITH_INV;
            inv.invalidateRkey = mw.rkey();
            inv.sendFlags = SendFlags.SIGNALED;
            write.next = rangeFlush;
            rangeFlush.next = mrFlush;
            mrFlush.next = atomicWrite;
            atomicWrite.next = inv;
            qa.postSend(write);
            ok(cqb); // the SEND_WITH_INV's receive
            for (int i = 0; i < 3; i++) {
                ok(cqa); // two FLUSHes, the SEND_WITH_INV (ATOMIC_WRITE is unsignaled)
            }
            qa.close();
            qb.close();
        }
        Tools.Result check = Tools.roceCheck(pcap, PORT);
        assertThat(check.lastLine()).as(check.out()).matches("\\d+ passed, 0 failed");
        Map<Integer, Integer> opcodes = new HashMap<>();
        for (String[] f : Tools.tsharkFields(pcap, PORT, "infiniband", "infiniband.bth.opcode")) {
            opcodes.merge(Integer.decode(f[0]), 1, Integer::sum);
        }
        assertThat(opcodes).containsEntry(Opcodes.RC_FLUSH, 2).containsEntry(Opcodes.RC_ATOMIC_WRITE, 1)
            .containsEntry(Opcodes.RC_SEND_ONLY_WITH_INVALIDATE, 1)
            .containsEntry(Opcodes.RC_RDMA_READ_RESPONSE_ONLY, 3); // the empty responses of both FLUSHes and the AW
        int passed = Integer.parseInt(check.lastLine().split(" ")[0]);
        assertThat(passed).isEqualTo(opcodes.values().stream().mapToInt(Integer::intValue).sum());
        // (tshark 4.0 names opcodes 0x1C/0x1D but decodes neither FETH nor their RETH: the byte
        // layouts are checked against rxe's in Ibta15LayoutTest)
    }

    private static SendWr flush(long addr, int rkey, long len, int level) {
        SendWr w = new SendWr(1);
        w.opcode = WrOpcode.FLUSH;
        w.sendFlags = SendFlags.SIGNALED;
        w.remoteAddr = addr;
        w.rkey = rkey;
        w.flushLength = len;
        w.flushType = Flush.GLOBAL;
        w.flushLevel = level;
        return w;
    }

    private static void ok(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(wc) == 0) {
            assertThat(System.nanoTime()).isLessThan(deadline);
        }
        assertThat(WcStatus.str(wc[0].status)).isEqualTo(WcStatus.str(WcStatus.SUCCESS));
    }
}
