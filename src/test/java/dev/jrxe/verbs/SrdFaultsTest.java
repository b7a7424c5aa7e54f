package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.transport.TransportCounters;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.BitSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * SRD under a lossy, duplicating, reordering link: every message delivered exactly once with its
 * data intact; and multipath at work: a lossy path loses its traffic to the others, while an RC
 * QP on the same path can only retransmit into it.
 */
class SrdFaultsTest {
    private static final int QKEY = 0x5EED;
    private static final int SLOT = 8192;
    private static final int WRITE_SLOTS = 512;

    private static long pattern(long id, long i) {
        return id * 0x9E3779B97F4A7C15L + i * 0x632BE59BD9B4E019L;
    }

    private static void fillPattern(MemorySegment s, long off, int len, long id) {
        for (int i = 0; i + 8 <= len; i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, off + i, pattern(id, i));
        }
        for (int i = len & ~7; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) pattern(id, i));
        }
    }

    private static void checkPattern(MemorySegment s, long off, int len, long id) {
        for (int i = 0; i + 8 <= len; i += 8) {
            if (s.get(ValueLayout.JAVA_LONG_UNALIGNED, off + i) != pattern(id, i)) {
                throw new AssertionError("message " + id + ": byte " + i + " of " + len + " wrong");
            }
        }
        for (int i = len & ~7; i < len; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, off + i) != (byte) pattern(id, i)) {
                throw new AssertionError("message " + id + ": byte " + i + " of " + len + " wrong");
            }
        }
    }

    private static byte sendByte(int id, int i) {
        return (byte) (id * 31 + i * 7 + (i >>> 8));
    }

    @Test
    void shouldDeliverEveryMessageExactlyOnceUnderDropDuplicateAndReorder() {
        final int total = 100_000;
        DeviceConfig ca = DeviceConfig.of("jrxe-a", "127.0.0.2").faults(0.05, 0.02, 0.05, 11);
        DeviceConfig cb = DeviceConfig.of("jrxe-b", "127.0.0.3").faults(0.05, 0.02, 0.05, 12);
        try (RcFixture f = new RcFixture(ca, cb, (long) WRITE_SLOTS * SLOT + 2048L * 1024)) {
            QpCap cap = new QpCap(256, 2048, 1, 1, 0);
            QueuePair[] clients = {
                SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, cap.copy()), 0),
                SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, cap.copy()), 0)};
            QueuePair server = SrdDv.createQp(f.pdb, new QpInitAttr(QpType.DRIVER, f.cqb, f.cqb, cap.copy()),
                SrdDv.UNSOLICITED_WRITE_RECV);
            UdSetup.toRts(clients[0], QKEY, 0xFFFF00);
            UdSetup.toRts(clients[1], QKEY, 5);
            UdSetup.toRts(server, QKEY, 9);
            long recvBase = (long) WRITE_SLOTS * SLOT;
            for (int i = 0; i < 2048; i++) {
                RecvWr r = new RecvWr().sge(f.bufB.address() + recvBase + i * 1024L, 1024, f.mrb.lkey());
                r.wrId = i;
                server.postRecv(r);
            }
            try (AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
                SplittableRandom rnd = new SplittableRandom(42);
                BitSet delivered = new BitSet(total);
                BitSet writeSlotBusy = new BitSet(WRITE_SLOTS);
                long[] slotOwner = new long[WRITE_SLOTS];
                int[] slotLen = new int[WRITE_SLOTS];
                int[] kindOf = new int[total];
                int posted = 0;
                int sendCompleted = 0;
                int recvCompleted = 0;
                int expectedRecvs = 0;
                SendWr w = new SendWr(1);
                WorkCompletion[] wc = new WorkCompletion[32];
                for (int i = 0; i < wc.length; i++) {
                    wc[i] = new WorkCompletion();
                }
                MemorySegment sendArea = f.bufA;
                long deadline = System.nanoTime() + 300_000_000_000L; // a hang guard only
                while (sendCompleted < total || recvCompleted < expectedRecvs) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("stuck: posted " + posted + " sent " + sendCompleted
                            + " received " + recvCompleted + "/" + expectedRecvs);
                    }
                    // post while there is room (256 per client QP)
                    while (posted < total && posted - sendCompleted < 400) {
                        int kind = rnd.nextInt(3); // 0 SEND, 1 WRITE, 2 WRITE_WITH_IMM
                        int slot = -1;
                        if (kind != 0) {
                            slot = writeSlotBusy.nextClearBit(0);
                            if (slot >= WRITE_SLOTS) {
                                kind = 0;
                            }
                        }
                        int id = posted;
                        QueuePair qp = clients[id & 1];
                        w.wrId = id;
                        w.sendFlags = SendFlags.SIGNALED;
                        w.ah = ah;
                        w.remoteQpn = server.qpNum();
                        w.remoteQkey = QKEY;
                        if (kind == 0) {
                            int len = 8 + rnd.nextInt(1017);
                            long src = (id % 1024) * 1024L;
                            sendArea.set(ValueLayout.JAVA_INT_UNALIGNED, src, id); // the id, then its bytes
                            for (int b = 4; b < len; b++) {
                                sendArea.set(ValueLayout.JAVA_BYTE, src + b, sendByte(id, b));
                            }
                            w.sge(f.bufA.address() + src, len, f.mra.lkey());
                            w.opcode = WrOpcode.SEND;
                            expectedRecvs++;
                        } else {
                            int len = 1 + rnd.nextInt(SLOT);
                            long src = 1024L * 1024 + slot * (long) SLOT; // its own source: retransmissions read it again
                            fillPattern(sendArea, src, len, id);
                            writeSlotBusy.set(slot);
                            slotOwner[slot] = id;
                            slotLen[slot] = len;
                            w.sge(f.bufA.address() + src, len, f.mra.lkey());
                            w.rdma(f.bufB.address() + (long) slot * SLOT, f.mrb.rkey());
                            w.opcode = kind == 1 ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_WRITE_WITH_IMM;
                            w.immData = id;
                            if (kind == 2) {
                                expectedRecvs++;
                            }
                        }
                        kindOf[id] = kind | (slot + 1) << 2;
                        try {
                            qp.postSend(w);
                        } catch (PostException e) {
                            // the ring is full: slots free in ring order, after every older request
                            assertThat(e.errno()).isEqualTo(dev.jrxe.ib.Errno.ENOMEM);
                            if (slot >= 0) {
                                writeSlotBusy.clear(slot);
                            }
                            if (kind != 1) {
                                expectedRecvs--;
                            }
                            break;
                        }
                        posted++;
                        if (posted - sendCompleted >= 400) {
                            break;
                        }
                    }
                    int n = f.cqa.poll(wc);
                    for (int i = 0; i < n; i++) {
                        WorkCompletion c = wc[i];
                        assertThat(c.status).as("send %d: %s", c.wrId, WcStatus.str(c.status)).isEqualTo(WcStatus.SUCCESS);
                        int id = (int) c.wrId;
                        int slot = (kindOf[id] >>> 2) - 1;
                        if (slot >= 0) {
                            // the WRITE completed: its bytes are all in place at the target
                            checkPattern(f.bufB, (long) slot * SLOT, slotLen[slot], slotOwner[slot]);
                            writeSlotBusy.clear(slot);
                        }
                        sendCompleted++;
                    }
                    n = f.cqb.poll(wc);
                    for (int i = 0; i < n; i++) {
                        WorkCompletion c = wc[i];
                        assertThat(c.status).isEqualTo(WcStatus.SUCCESS);
                        int id;
                        if (c.opcode == WcOpcode.RECV_RDMA_WITH_IMM) {
                            assertThat(c.isUnsolicited()).isTrue();
                            id = c.immData;
                        } else {
                            long at = recvBase + c.wrId * 1024L;
                            id = f.bufB.get(ValueLayout.JAVA_INT_UNALIGNED, at);
                            assertThat(c.byteLen).isBetween(8, 1024);
                            for (int b = 4; b < c.byteLen; b++) {
                                if (f.bufB.get(ValueLayout.JAVA_BYTE, at + b) != sendByte(id, b)) {
                                    throw new AssertionError("SEND " + id + " byte " + b + " of " + c.byteLen);
                                }
                            }
                            RecvWr r = new RecvWr().sge(f.bufB.address() + at, 1024, f.mrb.lkey());
                            r.wrId = c.wrId;
                            server.postRecv(r);
                        }
                        assertThat(delivered.get(id)).as("message %d delivered twice", id).isFalse();
                        delivered.set(id);
                        recvCompleted++;
                    }
                }
                assertThat(recvCompleted).isEqualTo(expectedRecvs);
                long retransmits = f.a.transportCounters().get(TransportCounters.SRD_RETRANSMITS);
                long duplicates = f.b.transportCounters().get(TransportCounters.SRD_DUPLICATES);
                System.out.printf("SRD 100k under faults: %d sends+writes, %d receives, %d retransmits, "
                    + "%d duplicates recognised, %d injected drops at A%n", total, recvCompleted, retransmits,
                    duplicates, f.a.link().counters().drops(dev.jrxe.net.DropReason.INJECTED));
                assertThat(retransmits).as("the faults were real").isPositive();
                assertThat(duplicates).isPositive();
            }
            for (QueuePair q : clients) {
                q.close();
            }
            server.close();
        }
    }

    /** Sends {@code n} 512-byte messages keeping {@code window} outstanding; returns elapsed ns. */
    private static long stream(RcFixture f, QueuePair from, QueuePair to, AddressHandle ah, int n, int window) {
        SendWr w = new SendWr().sge(f.bufA.address(), 512, f.mra.lkey());
        w.sendFlags = SendFlags.SIGNALED;
        w.ah = ah;
        w.remoteQpn = to.qpNum();
        w.remoteQkey = QKEY;
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        int posted = 0;
        int sent = 0;
        int received = 0;
        boolean recvAhead = false;
        long start = System.nanoTime();
        long guard = start + 120_000_000_000L;
        while (sent < n || received < n) {
            if (System.nanoTime() > guard) {
                throw new AssertionError("stuck at " + sent + "/" + received);
            }
            while (posted < n && posted - sent < window) {
                if (!recvAhead) {
                    to.postRecv(new RecvWr().sge(f.bufB.address(), 512, f.mrb.lkey()));
                    recvAhead = true;
                }
                try {
                    from.postSend(w);
                } catch (PostException e) {
                    // SRD frees send slots in ring order: one slow request can keep the ring full
                    assertThat(e.errno()).isEqualTo(dev.jrxe.ib.Errno.ENOMEM);
                    break;
                }
                recvAhead = false;
                posted++;
            }
            int k = f.cqa.poll(wc);
            for (int i = 0; i < k; i++) {
                assertThat(wc[i].status).isEqualTo(WcStatus.SUCCESS);
            }
            sent += k;
            k = f.cqb.poll(wc);
            for (int i = 0; i < k; i++) {
                assertThat(wc[i].status).isEqualTo(WcStatus.SUCCESS);
            }
            received += k;
        }
        return System.nanoTime() - start;
    }

    @Test
    void shouldSteerTrafficOffALossyPathAndRetransmitOnOthersWhileRcCanOnlyRetryIntoIt() {
        try (RcFixture f = new RcFixture(1 << 20)) {
            QpCap cap = new QpCap(64, 64, 1, 1, 0);
            QueuePair c = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, cap.copy()), 0);
            QueuePair s = SrdDv.createQp(f.pdb, new QpInitAttr(QpType.DRIVER, f.cqb, f.cqb, cap.copy()), 0);
            UdSetup.toRts(c, QKEY, 1);
            UdSetup.toRts(s, QKEY, 2);
            f.connect(new QpCap(64, 64, 1, 1, 0), new RcConnect());
            SrdPathStats[] paths = SrdDv.pathStats(c);
            assertThat(paths).hasSize(dev.jrxe.Configuration.srdPaths());
            assertThat(java.util.Arrays.stream(paths).mapToInt(SrdPathStats::sourcePort).distinct().count())
                .as("each path its own UDP source port").isEqualTo(paths.length);
            int badPath = 1;
            int badPort = paths[badPath].sourcePort();
            int rcPort = f.qa.qp().srcPort;
            f.a.engine().withEngine(() -> {
                f.a.link().dropFromSourcePort(badPort, 0.3);
                f.a.link().dropFromSourcePort(rcPort, 0.3);
            });
            try (AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
                stream(f, c, s, ah, 2000, 16); // the bad path is found out
                SrdPathStats[] before = SrdDv.pathStats(c);
                long srdNanos = stream(f, c, s, ah, 4000, 16);
                SrdPathStats[] after = SrdDv.pathStats(c);
                long total = 0;
                long onBad = after[badPath].sent() - before[badPath].sent();
                long retxElsewhere = 0;
                for (int p = 0; p < after.length; p++) {
                    total += after[p].sent() - before[p].sent();
                    if (p != badPath) {
                        retxElsewhere += after[p].retransmits();
                    }
                }
                double share = (double) onBad / total;
                System.out.printf("SRD with path %d dropping 30%%: its share of new packets %.3f (fair %.3f), "
                    + "timeouts on it %d, retransmissions on it %d, on the others %d; 4000 messages in %d ms%n",
                    badPath, share, 1.0 / after.length, after[badPath].timeouts(), after[badPath].retransmits(),
                    retxElsewhere, srdNanos / 1_000_000);
                assertThat(after[badPath].timeouts()).as("losses seen on the bad path").isPositive();
                assertThat(share).as("traffic moved off the bad path").isLessThan(0.5 / after.length);
                assertThat(retxElsewhere).as("retransmissions go over other paths")
                    .isGreaterThanOrEqualTo(after[badPath].timeouts() * 9 / 10);
                assertThat(after[badPath].retransmits()).as("most retransmissions avoid it").isLessThan(retxElsewhere);

                long rcBefore = f.a.transportCounters().get(TransportCounters.SENT_PKTS);
                // RC is given a tenth of the messages: go-back-N into a 30% lossy path is that slow
                long rcNanos = stream(f, f.qa, f.qb, null, 400, 16);
                long rcPackets = f.a.transportCounters().get(TransportCounters.SENT_PKTS) - rcBefore;
                System.out.printf("RC on a path dropping 30%%: 400 messages in %d ms, %d packets (%d sent again), "
                    + "all from its one source port %d%n", rcNanos / 1_000_000, rcPackets, rcPackets - 400, rcPort);
                assertThat(rcPackets).as("RC can only retransmit into its path").isGreaterThan(400);
                assertThat(f.qa.qp().srcPort).isEqualTo(rcPort);
            }
            c.close();
            s.close();
        }
    }
}
