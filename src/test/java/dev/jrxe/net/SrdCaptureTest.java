package dev.jrxe.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.verbs.AddressHandle;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.SrdDv;
import dev.jrxe.verbs.UdSetup;
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every SRD packet of a run (SEND, SEND_WITH_IMM, multi-packet WRITE and WRITE_WITH_IMM, a
 * multi-chunk READ, a refused rkey, an RNR wait, retransmissions through a lossy link) is decoded
 * by the Lua dissector shipped in tools/wireshark, through tshark, with no packet malformed.
 */
class SrdCaptureTest {
    private static final int PORT = 27791 + (int) (ProcessHandle.current().pid() % 1000);
    private static final Path DISSECTOR = Path.of("tools", "wireshark", "jrxe-srd.lua");
    private static final int QKEY = 0x22;

    private static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] one = {new WorkCompletion()};
        long guard = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(one) == 0) {
            assertThat(System.nanoTime()).as("no completion").isLessThan(guard);
        }
        return one[0];
    }

    @Test
    void shouldHaveEverySrdPacketDecodedByTheLuaDissector(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("srd.pcap");
        try (Device a = Device.open(DeviceConfig.of("cap-a", "127.0.0.2").udpPort(PORT).pcap(pcap)
                 .faults(0.1, 0, 0, 3));
             Device b = Device.open(DeviceConfig.of("cap-b", "127.0.0.3").udpPort(PORT));
             Arena arena = Arena.ofShared()) {
            ProtectionDomain pda = a.allocPd();
            ProtectionDomain pdb = b.allocPd();
            MemorySegment bufA = arena.allocate(1 << 16, 4096);
            MemorySegment bufB = arena.allocate(1 << 16, 4096);
            int all = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
            MemoryRegion mra = pda.registerMemory(bufA, all);
            MemoryRegion mrb = pdb.registerMemory(bufB, all);
            CompletionQueue cqa = a.createCq(64);
            CompletionQueue cqb = b.createCq(64);
            QueuePair qa = SrdDv.createQp(pda, new QpInitAttr(QpType.DRIVER, cqa, cqa, new QpCap(16, 16, 1, 1, 0)), 0);
            QueuePair qb = SrdDv.createQp(pdb, new QpInitAttr(QpType.DRIVER, cqb, cqb, new QpCap(16, 16, 1, 1, 0)), 0);
            UdSetup.toRts(qa, QKEY, 0xFFFFF8); // PSNs wrap past 2^24 during the run
            UdSetup.toRts(qb, QKEY, 3);
            try (AddressHandle ah = pda.createAh(new AhAttr(b.queryGid(1, 1), 1))) {
                int[][] ops = {{WrOpcode.SEND, 1000}, {WrOpcode.SEND_WITH_IMM, 13}, {WrOpcode.RDMA_WRITE, 5000},
                    {WrOpcode.RDMA_WRITE_WITH_IMM, 3000}, {WrOpcode.RDMA_READ, 4000}, {WrOpcode.SEND, 0}};
                for (int round = 0; round < 4; round++) {
                    for (int[] op : ops) {
                        if (op[0] == WrOpcode.SEND || op[0] == WrOpcode.SEND_WITH_IMM
                            || op[0] == WrOpcode.RDMA_WRITE_WITH_IMM) {
                            qb.postRecv(new RecvWr().sge(bufB.address(), 1024, mrb.lkey()));
                        }
                        SendWr w = new SendWr().sge(bufA.address(), op[1], mra.lkey()).rdma(bufB.address() + 8192,
                            mrb.rkey());
                        w.opcode = op[0];
                        w.sendFlags = SendFlags.SIGNALED;
                        w.ah = ah;
                        w.remoteQpn = qb.qpNum();
                        w.remoteQkey = QKEY;
                        qa.postSend(w);
                        assertThat(poll(cqa).status).isEqualTo(WcStatus.SUCCESS);
                        if (op[0] == WrOpcode.SEND || op[0] == WrOpcode.SEND_WITH_IMM
                            || op[0] == WrOpcode.RDMA_WRITE_WITH_IMM) {
                            assertThat(poll(cqb).status).isEqualTo(WcStatus.SUCCESS);
                        }
                    }
                }
                SendWr bad = new SendWr().sge(bufA.address(), 100, mra.lkey()).rdma(bufB.address(), mrb.rkey() + 0x100);
                bad.opcode = WrOpcode.RDMA_WRITE;
                bad.sendFlags = SendFlags.SIGNALED;
                bad.ah = ah;
                bad.remoteQpn = qb.qpNum();
                bad.remoteQkey = QKEY;
                qa.postSend(bad);
                assertThat(poll(cqa).status).isEqualTo(WcStatus.REM_ACCESS_ERR);
                SendWr rnr = new SendWr().sge(bufA.address(), 8, mra.lkey());
                rnr.sendFlags = SendFlags.SIGNALED;
                rnr.ah = ah;
                rnr.remoteQpn = qb.qpNum();
                rnr.remoteQkey = QKEY;
                qa.postSend(rnr); // no receive posted: RNR NAKs until one is
                Thread.sleep(20);
                qb.postRecv(new RecvWr().sge(bufB.address(), 1024, mrb.lkey()));
                assertThat(poll(cqa).status).isEqualTo(WcStatus.SUCCESS);
                poll(cqb);
            }
            qa.close();
            qb.close();
        }
        assertThat(Files.size(pcap)).isPositive();
        Tools.Result r = Tools.run("tshark", "-n", "-X", "lua_script:" + DISSECTOR, "-r", pcap.toString(),
            "-o", "infiniband.rroce.port:" + PORT, "-T", "fields", "-E", "separator=,",
            "-e", "frame.number", "-e", "srd.opcode", "-e", "srd.malformed", "-e", "srd.retx", "-e", "udp.srcport");
        assertThat(r.exit()).as(r.out()).isZero();
        List<String> rows = r.out().lines().filter(l -> !l.isBlank() && l.matches("^[0-9]+,.*")).toList();
        assertThat(rows).as("frames").hasSizeGreaterThan(50);
        Set<String> opcodes = new HashSet<>();
        Set<String> ports = new HashSet<>();
        boolean retx = false;
        for (String row : rows) {
            String[] c = row.split(",", -1);
            assertThat(c[1]).as("frame %s decoded as SRD", c[0]).isNotEmpty();
            assertThat(c[2]).as("frame %s malformed", c[0]).isEmpty();
            opcodes.add(c[1]);
            retx |= c[3].equals("1") || c[3].equalsIgnoreCase("True");
            ports.add(c[4]);
        }
        assertThat(opcodes).containsExactlyInAnyOrder("0xc0", "0xc1", "0xc2", "0xc3", "0xc4", "0xc5", "0xc6", "0xc7");
        assertThat(retx).as("some retransmissions, flagged").isTrue();
        assertThat(ports.size()).as("several paths (source ports)").isGreaterThan(2);
    }
}
