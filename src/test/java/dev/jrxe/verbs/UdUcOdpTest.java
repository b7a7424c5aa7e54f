package dev.jrxe.verbs;

import static dev.jrxe.verbs.RcFixture.assertFilled;
import static dev.jrxe.verbs.RcFixture.fill;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.NativeMemory;
import dev.jrxe.memory.OdpCaps;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * UD and UC through on-demand-paged memory (explicit regions whose pages are dropped between
 * rounds, implicit lkeys), and an SRQ on ODP memory shared by RC and UD QPs: what the ud/uc ODP
 * capability bits the device advertises promise.
 */
class UdUcOdpTest {
    private static final int MIB = 1 << 20;

    @Test
    void shouldAdvertiseTheUdAndUcOdpOperationsThisClassExercises() {
        try (RcFixture f = new RcFixture(4096)) {
            DeviceAttr d = f.a.query();
            assertThat(d.odpUdCaps).isEqualTo(OdpCaps.SEND | OdpCaps.RECV | OdpCaps.SRQ_RECV);
            assertThat(d.odpUcCaps).isEqualTo(OdpCaps.SEND | OdpCaps.RECV | OdpCaps.WRITE | OdpCaps.SRQ_RECV);
            assertThat(d.odpXrcCaps).isZero();
        }
    }

    @Test
    void shouldSendAndReceiveUdDatagramsThroughOdpAndImplicitRegions() {
        MemorySegment a = NativeMemory.map(MIB);
        MemorySegment b = NativeMemory.map(MIB);
        try (RcFixture f = new RcFixture(4096);
             QueuePair ua = f.pda.createQp(new QpInitAttr(QpType.UD, f.cqa, f.cqa, new QpCap(8, 8, 1, 1, 0)));
             QueuePair ub = f.pdb.createQp(new QpInitAttr(QpType.UD, f.cqb, f.cqb, new QpCap(8, 8, 1, 1, 0)));
             AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
            UdSetup.toRts(ua, 5, 0);
            UdSetup.toRts(ub, 5, 0);
            MemoryRegion implicit = f.pda.registerMemory(0, -1L, Access.ON_DEMAND | Access.LOCAL_WRITE);
            MemoryRegion mb = f.pdb.registerMemory(b, Access.ON_DEMAND | Access.LOCAL_WRITE);
            int mtu = Mtu.bytes(f.a.activeMtu());
            for (int round = 0; round < 3; round++) {
                fill(a, 0, mtu, round);
                ub.postRecv(new RecvWr(1).sge(b.address() + 4000, 40 + mtu, mb.lkey())); // crosses a page
                SendWr s = new SendWr(1).sge(a.address(), mtu, implicit.lkey());
                s.ah = ah;
                s.remoteQpn = ub.qpNum();
                s.remoteQkey = 5;
                ua.postSend(s);
                assertThat(f.pollOk(f.cqb).byteLen).isEqualTo(40 + mtu);
                assertFilled(b, 4040, mtu, round);
                NativeMemory.release(a, 0, MIB);
                NativeMemory.release(b, 0, MIB);
            }
            assertThat(f.b.keys().counters().pageFaults()).isPositive();
        } finally {
            NativeMemory.unmap(a);
            NativeMemory.unmap(b);
        }
    }

    @Test
    void shouldSendAndWriteUcThroughOdpRegions() {
        MemorySegment a = NativeMemory.map(MIB);
        MemorySegment b = NativeMemory.map(MIB);
        try (RcFixture f = new RcFixture(4096)) {
            f.qa = f.pda.createQp(new QpInitAttr(QpType.UC, f.cqa, f.cqa, new QpCap(8, 8, 1, 1, 0)));
            f.qb = f.pdb.createQp(new QpInitAttr(QpType.UC, f.cqb, f.cqb, new QpCap(8, 8, 1, 1, 0)));
            new RcConnect().pair(f.qa, 1, f.qb, 2);
            MemoryRegion ma = f.pda.registerMemory(a, Access.ON_DEMAND | Access.LOCAL_WRITE);
            MemoryRegion mb = f.pdb.registerMemory(b, Access.ON_DEMAND | Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            for (int round = 0; round < 3; round++) {
                fill(a, 0, 100_000, round);
                f.qb.postRecv(new RecvWr(1).sge(b.address(), 100_000, mb.lkey()));
                f.qa.postSend(new SendWr(1).sge(a.address(), 100_000, ma.lkey()));
                f.pollOk(f.cqb);
                assertFilled(b, 0, 100_000, round);
                f.qb.postRecv(new RecvWr(1).sge(b.address(), 0, mb.lkey()));
                SendWr w = new SendWr(1).sge(a.address(), 100_000, ma.lkey()).rdma(b.address() + 300_000, mb.rkey());
                w.opcode = WrOpcode.RDMA_WRITE_WITH_IMM;
                w.sendFlags = SendFlags.SIGNALED;
                f.qa.postSend(w);
                f.pollOk(f.cqa);
                f.pollOk(f.cqb);
                assertFilled(b, 300_000, 100_000, round);
                NativeMemory.release(a, 0, MIB);
                NativeMemory.release(b, 0, MIB);
            }
            assertThat(f.b.keys().counters().pageFaults()).isPositive();
        } finally {
            NativeMemory.unmap(a);
            NativeMemory.unmap(b);
        }
    }

    /** One SRQ on ODP memory feeds an RC QP and two UD QPs (rdma-core: "many RC and UD QPs on one SRQ"). */
    @Test
    void shouldFeedRcAndUdQpsFromOneSrqOnOdpMemory() {
        MemorySegment b = NativeMemory.map(MIB);
        try (RcFixture f = new RcFixture(1 << 16)) {
            MemoryRegion mb = f.pdb.registerMemory(b, Access.ON_DEMAND | Access.LOCAL_WRITE);
            try (SharedReceiveQueue srq = f.pdb.createSrq(new SharedReceiveQueue.Attr(64, 1, 0))) {
                QpInitAttr rcInit = new QpInitAttr(QpType.RC, f.cqb, f.cqb, new QpCap(8, 8, 1, 1, 0));
                rcInit.srq = srq;
                f.qa = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(8, 8, 1, 1, 0)));
                f.qb = f.pdb.createQp(rcInit);
                new RcConnect().pair(f.qa, 1, f.qb, 2);
                QpInitAttr udInit = new QpInitAttr(QpType.UD, f.cqb, f.cqb, new QpCap(8, 8, 1, 1, 0));
                udInit.srq = srq;
                try (QueuePair u1 = f.pdb.createQp(udInit); QueuePair u2 = f.pdb.createQp(udInit);
                     QueuePair sender = f.pda.createQp(new QpInitAttr(QpType.UD, f.cqa, f.cqa, new QpCap(8, 8, 1, 1, 0)));
                     AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
                    UdSetup.toRts(u1, 9, 0);
                    UdSetup.toRts(u2, 9, 0);
                    UdSetup.toRts(sender, 9, 0);
                    for (int i = 0; i < 6; i++) {
                        RecvWr r = new RecvWr(1).sge(b.address() + (long) i * 8192, 4096, mb.lkey());
                        r.wrId = i;
                        srq.postRecv(r);
                    }
                    java.util.Set<Integer> qps = new java.util.HashSet<>();
                    for (int i = 0; i < 6; i++) {
                        fill(f.bufA, 0, 1000, i);
                        if (i % 3 == 0) {
                            f.qa.postSend(new SendWr(1).sge(f.bufA.address(), 1000, f.mra.lkey()));
                        } else {
                            SendWr s = new SendWr(1).sge(f.bufA.address(), 1000, f.mra.lkey());
                            s.ah = ah;
                            s.remoteQpn = (i % 3 == 1 ? u1 : u2).qpNum();
                            s.remoteQkey = 9;
                            sender.postSend(s);
                        }
                        WorkCompletion wc = f.pollOk(f.cqb);
                        assertThat(wc.wrId).as("SRQ WQEs in posting order").isEqualTo(i);
                        qps.add(wc.qpNum);
                        assertFilled(b, (long) i * 8192 + (i % 3 == 0 ? 0 : 40), 1000, i);
                    }
                    assertThat(qps).containsExactlyInAnyOrder(f.qb.qpNum(), u1.qpNum(), u2.qpNum());
                }
                f.qb.close();
                f.qb = null;
            }
        } finally {
            NativeMemory.unmap(b);
        }
    }
}
