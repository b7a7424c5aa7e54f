package dev.jrxe.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.transport.QpControl;
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
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.SharedReceiveQueue;
import dev.jrxe.verbs.UdSetup;
import dev.jrxe.verbs.WorkCompletion;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * UC, UD and SRQ traffic on the wire, against what the real rxe captures 04, 05 and 06 show (a
 * copy of their tshark fields is in the test resources): the same opcodes, AckReq bits, lengths
 * and DETH for the same messages, UDP source ports by rxe's rules (UC: one port per connection
 * from both QPNs; UD: one per sending QP), and every packet passing the roce_check.py oracle.
 */
class UdUcSrqCaptureTest {
    private static final int PORT = 26791 + (int) (ProcessHandle.current().pid() % 1000);
    private static final Path GOLDENS = Path.of("src", "test", "resources", "goldens");
    private static final String[] FIELDS = {"ip.src", "udp.srcport", "udp.length", "infiniband.bth.opcode",
        "infiniband.bth.a", "infiniband.bth.destqp", "infiniband.deth.q_key", "infiniband.deth.srcqp"};

    /** Golden rows of one capture: per frame, the {@link #FIELDS} values. */
    private static List<String[]> golden(String name) throws IOException {
        List<String> lines = Files.readAllLines(GOLDENS.resolve(name + ".tsv"));
        List<String> header = List.of(lines.get(0).split("\t", -1));
        List<String[]> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split("\t", -1);
            String[] row = new String[FIELDS.length];
            for (int i = 0; i < FIELDS.length; i++) {
                row[i] = cells[header.indexOf(FIELDS[i])];
            }
            rows.add(row);
        }
        return rows;
    }

    /** opcode/A/udp length of each packet from {@code src}, as a list of "op:a:len". */
    private static List<String> shape(List<String[]> rows, String src, int limit) {
        List<String> s = new ArrayList<>();
        for (String[] r : rows) {
            if (r[0].equals(src) && s.size() < limit) {
                s.add(Integer.parseInt(r[3]) + ":" + r[4] + ":" + r[2]);
            }
        }
        return s;
    }

    private static long hex(String s) {
        return Long.parseLong(s.startsWith("0x") ? s.substring(2) : s, 16);
    }

    @Test
    void shouldComputeTheUdpSourcePortsRxeUsedInTheCaptures() throws IOException {
        for (String[] r : golden("05_ud_pingpong")) {
            assertThat(QpControl.udSourcePort((int) hex(r[7]))).as("UD sport of QP %s", r[7])
                .isEqualTo(Integer.parseInt(r[1]));
        }
        // UC: one port per connection, from both QPNs (the product rule)
        Map<String, String> destBySrc = new TreeMap<>();
        for (String[] r : golden("04_uc_pingpong")) {
            destBySrc.put(r[0], r[5]);
        }
        assertThat(destBySrc).hasSize(2);
        List<String> qpns = new ArrayList<>(destBySrc.values());
        int port = QpControl.udpSourcePort((int) hex(qpns.get(0)), (int) hex(qpns.get(1)), 0);
        for (String[] r : golden("04_uc_pingpong")) {
            assertThat(Integer.parseInt(r[1])).isEqualTo(port);
        }
    }

    @Test
    void shouldPutUcUdAndSrqTrafficOnTheWireAsRxeDoes(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("uc-ud-srq.pcapng");
        try (Device a = Device.open(DeviceConfig.of("cap-a", "127.0.0.2").udpPort(PORT).pcap(pcap));
             Device b = Device.open(DeviceConfig.of("cap-b", "127.0.0.3").udpPort(PORT));
             Arena arena = Arena.ofShared()) {
            ProtectionDomain pda = a.allocPd();
            ProtectionDomain pdb = b.allocPd();
            MemorySegment bufA = arena.allocate(1 << 16, 4096);
            MemorySegment bufB = arena.allocate(1 << 16, 4096);
            MemoryRegion mra = pda.registerMemory(bufA, Access.LOCAL_WRITE);
            MemoryRegion mrb = pdb.registerMemory(bufB, Access.LOCAL_WRITE);
            CompletionQueue cqa = a.createCq(256);
            CompletionQueue cqb = b.createCq(256);
            QpCap cap = new QpCap(32, 32, 1, 1, 0);

            // UC: 4 KiB SENDs at MTU 1024 each way, as ibv_uc_pingpong
            QueuePair ua = pda.createQp(new QpInitAttr(QpType.UC, cqa, cqa, cap));
            QueuePair ub = pdb.createQp(new QpInitAttr(QpType.UC, cqb, cqb, cap));
            new RcConnect().pathMtu(Mtu.MTU_1024).pair(ua, 0xA0000, ub, 0xB0000);
            for (int i = 0; i < 3; i++) {
                ub.postRecv(new RecvWr(1).sge(bufB.address(), 4096, mrb.lkey()));
                ua.postSend(signaled(bufA.address(), 4096, mra.lkey()));
                ok(cqa);
                ok(cqb);
            }
            ua.postRecv(new RecvWr(1).sge(bufA.address(), 4096, mra.lkey()));
            ub.postSend(signaled(bufB.address(), 4096, mrb.lkey()));
            ok(cqb);
            ok(cqa);

            // UD: 1024-byte datagrams with Q_Key 0x11111111, as ibv_ud_pingpong -s 1024
            QueuePair da = pda.createQp(new QpInitAttr(QpType.UD, cqa, cqa, cap));
            QueuePair db = pdb.createQp(new QpInitAttr(QpType.UD, cqb, cqb, cap));
            UdSetup.toRts(da, 0x11111111, 0x100);
            UdSetup.toRts(db, 0x11111111, 0x200);
            try (AddressHandle toB = pda.createAh(new AhAttr(b.queryGid(1, 1), 1));
                 AddressHandle toA = pdb.createAh(new AhAttr(a.queryGid(1, 1), 1))) {
                for (int i = 0; i < 3; i++) {
                    db.postRecv(new RecvWr(1).sge(bufB.address(), 40 + 1024, mrb.lkey()));
                    SendWr s = signaled(bufA.address(), 1024, mra.lkey());
                    s.ah = toB;
                    s.remoteQpn = db.qpNum();
                    s.remoteQkey = 0x11111111;
                    da.postSend(s);
                    ok(cqa);
                    ok(cqb);
                }
                da.postRecv(new RecvWr(1).sge(bufA.address(), 40 + 1024, mra.lkey()));
                SendWr back = signaled(bufB.address(), 1024, mrb.lkey());
                back.ah = toA;
                back.remoteQpn = da.qpNum();
                back.remoteQkey = 0x11111111;
                db.postSend(back);
                ok(cqb);
                ok(cqa);
            }

            // SRQ: 4 RC QP pairs whose receiving side shares one SRQ, 4 KiB SENDs over all of them
            SharedReceiveQueue srq = pdb.createSrq(new SharedReceiveQueue.Attr(64, 1, 0));
            List<QueuePair> senders = new ArrayList<>();
            for (int q = 0; q < 4; q++) {
                QueuePair s = pda.createQp(new QpInitAttr(QpType.RC, cqa, cqa, cap));
                QpInitAttr ri = new QpInitAttr(QpType.RC, cqb, cqb, cap);
                ri.srq = srq;
                QueuePair r = pdb.createQp(ri);
                new RcConnect().pair(s, 0x1000 * (q + 1), r, 0x2000 * (q + 1));
                senders.add(s);
            }
            for (int i = 0; i < 8; i++) {
                srq.postRecv(new RecvWr(1).sge(bufB.address(), 4096, mrb.lkey()));
            }
            for (int i = 0; i < 8; i++) {
                senders.get(i % 4).postSend(signaled(bufA.address(), 4096, mra.lkey()));
                ok(cqa);
                ok(cqb);
            }
        }

        Tools.Result check = Tools.roceCheck(pcap, PORT);
        assertThat(check.out()).contains(" 0 failed");
        List<String[]> rows = Tools.tsharkFields(pcap, PORT, "infiniband", FIELDS);
        List<String[]> uc = rows.stream().filter(r -> { int op = Integer.parseInt(r[3]); return op >= 0x20 && op < 0x40; }).toList();
        List<String[]> ud = rows.stream().filter(r -> { int op = Integer.parseInt(r[3]); return op >= 0x60 && op < 0x80; }).toList();
        List<String[]> rc = rows.stream().filter(r -> Integer.parseInt(r[3]) < 0x20).toList();

        // UC: per message FIRST, MIDDLE, MIDDLE, LAST, AckReq never set, 1024 bytes each: as capture 04
        List<String[]> gUc = golden("04_uc_pingpong");
        assertThat(shape(uc, "127.0.0.2", 12)).isEqualTo(shape(gUc, "10.88.0.1", 12));
        assertThat(uc).hasSize(16);
        assertThat(uc.stream().map(r -> r[1]).distinct()).as("one UC source port both ways").hasSize(1);
        assertThat(uc).allSatisfy(r -> assertThat(r[4]).isEqualTo("0"));

        // UD: SEND_ONLY of 1024 bytes, A=0, Q_Key 0x11111111, source port by the sending QP: as capture 05
        List<String[]> gUd = golden("05_ud_pingpong");
        assertThat(shape(ud, "127.0.0.2", 3)).isEqualTo(shape(gUd, "10.88.0.1", 3));
        assertThat(ud).hasSize(4);
        for (String[] r : ud) {
            assertThat(hex(r[6])).isEqualTo(0x11111111L);
            assertThat(Integer.parseInt(r[1])).isEqualTo(QpControl.udSourcePort((int) hex(r[7])));
        }
        assertThat(ud.stream().map(r -> r[1]).distinct()).as("UD: a port per sending QP").hasSize(2);

        // SRQ: RC on the wire, one ACK per 4 KiB message, each pair with its own source port: as capture 06
        long messages = rc.stream().filter(r -> r[0].equals("127.0.0.2") && Integer.parseInt(r[3]) == 2).count();
        long acks = rc.stream().filter(r -> r[0].equals("127.0.0.3") && Integer.parseInt(r[3]) == 0x11).count();
        assertThat(messages).isEqualTo(8);
        assertThat(acks).isEqualTo(8);
        assertThat(rc.stream().map(r -> r[1]).distinct()).hasSize(4);
        List<String[]> gSrq = golden("06_srq_pingpong");
        assertThat(shape(rc, "127.0.0.2", 4)).isEqualTo(shape(gSrq, "10.88.0.1", 4));
    }

    private static SendWr signaled(long addr, int len, int lkey) {
        SendWr s = new SendWr(1).sge(addr, len, lkey);
        s.sendFlags = SendFlags.SIGNALED;
        return s;
    }

    private static void ok(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 10 s");
            }
        }
        assertThat(wc[0].status).as(wc[0].toString()).isEqualTo(WcStatus.SUCCESS);
    }
}
