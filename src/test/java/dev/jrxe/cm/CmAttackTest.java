package dev.jrxe.cm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.cm.CmMessages.Dreq;
import dev.jrxe.cm.CmMessages.Rep;
import dev.jrxe.cm.CmMessages.Req;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.Access;
import dev.jrxe.verbs.AddressHandle;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.UdSetup;
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A peer that speaks CM MADs by hand (its own QP1, its own MADs) against an RdmaServer: 300
 * half-open connections torn down by a DREQ instead of an RTU leave nothing behind, REQs beyond
 * the backlog are rejected, half-open ones that never get their RTU are gone within the bounded
 * REP timer (the REQs ask for 37 hours), and the server still accepts a real client afterwards.
 */
class CmAttackTest {
    private static final AtomicInteger PORTS = new AtomicInteger(33000 + (int) (ProcessHandle.current().pid() % 500) * 20);

    /** A hand-driven QP1 on the attacker's device. */
    private static final class RawCm implements AutoCloseable {
        final Device dev;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp1;
        final Arena arena = Arena.ofShared();
        final MemorySegment bufs = arena.allocate(64 * 296 + 256, 64);
        final MemoryRegion mr;
        final AddressHandle ah;
        final WorkCompletion[] wc = {new WorkCompletion()};
        int nextRecv;

        RawCm(Device dev, int target) {
            this.dev = dev;
            pd = dev.allocPd();
            cq = dev.createCq(256);
            qp1 = pd.createGsiQp(new QpInitAttr(QpType.UD, cq, cq, new QpCap(64, 64, 1, 1, 0)));
            UdSetup.toRts(qp1, CmAgent.GSI_QKEY, 0);
            mr = pd.registerMemory(bufs, Access.LOCAL_WRITE);
            for (int i = 0; i < 64; i++) {
                RecvWr r = new RecvWr(1).sge(bufs.address() + (long) i * 296, 296, mr.lkey());
                r.wrId = i;
                qp1.postRecv(r);
            }
            ah = pd.createAh(new AhAttr(Gid.ofIpv4(target), 1));
        }

        void send(Mad m) {
            MemorySegment out = bufs.asSlice(64 * 296, 256);
            MemorySegment.copy(MemorySegment.ofArray(m.bytes()), 0, out, 0, 256);
            SendWr w = new SendWr(1).sge(out.address(), 256, mr.lkey());
            w.sendFlags = SendFlags.SIGNALED;
            w.wrId = -1;
            w.ah = ah;
            w.remoteQpn = 1;
            w.remoteQkey = CmAgent.GSI_QKEY;
            qp1.postSend(w);
        }

        /** The next MAD received, or null within {@code millis}. */
        Mad receive(long millis) {
            long end = System.nanoTime() + millis * 1_000_000L;
            while (System.nanoTime() < end) {
                if (cq.poll(wc) > 0) {
                    if (wc[0].wrId < 0) {
                        continue; // our send's completion
                    }
                    int slot = (int) wc[0].wrId;
                    byte[] b = bufs.asSlice((long) slot * 296 + 40, 256).toArray(ValueLayout.JAVA_BYTE);
                    RecvWr r = new RecvWr(1).sge(bufs.address() + (long) slot * 296, 296, mr.lkey());
                    r.wrId = slot;
                    qp1.postRecv(r);
                    return new Mad(b);
                }
            }
            return null;
        }

        @Override
        public void close() {
            qp1.close();
            ah.close();
            mr.close();
            cq.close();
            pd.close();
            arena.close();
        }
    }

    private static Mad req(int commId, int from, int to, int port, int qpn) {
        Mad m = new Mad().cm(Mad.ATTR_REQ, 0x1234_0000L | (commId & 0xFFFF));
        return m.u32(Req.LOCAL_COMM_ID, commId).u64(Req.SERVICE_ID, ServiceIds.of(ServiceIds.PS_TCP, port))
            .u24(Req.LOCAL_QPN, qpn).u8(Req.RESPONDER_RESOURCES, 1).u8(Req.INITIATOR_DEPTH, 1)
            .u8(Req.BYTE43, 20 << 3).u24(Req.STARTING_PSN, 0x123).u8(Req.BYTE47, 31 << 3 | 7)
            .u16(Req.PKEY, 0xFFFF).u8(Req.BYTE50, 3 << 4 | 7).u8(Req.BYTE51, 15 << 4)
            .data(Req.PRIVATE_DATA, new CmaHeader(40000, from, to).encode(null), Req.PRIVATE_DATA_SIZE);
    }

    @Test
    void shouldLeaveNothingOfHalfOpenConnectionsADreqEndsAndKeepServing() throws Exception {
        int udp = PORTS.getAndIncrement();
        try (Device a = Device.open(DeviceConfig.of("atk-a", "127.0.0.2").udpPort(udp));
             Device b = Device.open(DeviceConfig.of("atk-b", "127.0.0.3").udpPort(udp));
             Device c = Device.open(DeviceConfig.of("atk-c", "127.0.0.4").udpPort(udp));
             RdmaServer server = RdmaServer.bind(a, 7490, EndpointOptions.DEFAULT, 8)) {
            int baseline = a.liveQps();
            try (RawCm raw = new RawCm(b, a.address())) {
                for (int i = 0; i < 300; i++) {
                    int comm = 0x5000_0000 + i;
                    raw.send(req(comm, b.address(), a.address(), 7490, 0x100 + i));
                    Mad rep = raw.receive(5000);
                    assertThat(rep).as("REP %d", i).isNotNull();
                    assertThat(rep.attributeId()).isEqualTo(Mad.ATTR_REP);
                    // a DREQ instead of the RTU: the server must release what it set up
                    Mad dreq = new Mad().cm(Mad.ATTR_DREQ, 77);
                    dreq.u32(Dreq.LOCAL_COMM_ID, comm).u32(Dreq.REMOTE_COMM_ID, rep.u32(Rep.LOCAL_COMM_ID))
                        .u24(Dreq.REMOTE_QPN, rep.u24(Rep.LOCAL_QPN));
                    raw.send(dreq);
                    Mad drep = raw.receive(5000);
                    assertThat(drep).isNotNull();
                    assertThat(drep.attributeId()).isEqualTo(Mad.ATTR_DREP);
                }
                long end = System.nanoTime() + 5_000_000_000L;
                while (a.liveQps() > baseline && System.nanoTime() < end) {
                    Thread.sleep(10);
                }
                assertThat(a.liveQps()).as("QPs left behind by 300 half-open connections").isEqualTo(baseline);

                // beyond the backlog (8), REQs that never get an RTU are rejected, not kept
                int reps = 0;
                int rejs = 0;
                for (int i = 0; i < 12; i++) {
                    raw.send(req(0x6000_0000 + i, b.address(), a.address(), 7490, 0x500 + i));
                    Mad answer = raw.receive(5000);
                    assertThat(answer).isNotNull();
                    if (answer.attributeId() == Mad.ATTR_REP) {
                        reps++;
                    } else if (answer.attributeId() == Mad.ATTR_REJ) {
                        rejs++;
                    }
                }
                assertThat(reps).isEqualTo(8);
                assertThat(rejs).isEqualTo(4);
                assertThat(a.liveQps()).isEqualTo(baseline + 8);
            }
            long until = System.nanoTime() + 20_000_000_000L;
            while (a.liveQps() > baseline && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            assertThat(a.liveQps()).as("the half-open connections timed out and were released").isEqualTo(baseline);
            // the half-open ones time out (the REP timer a REQ may ask for is bounded), and a real
            // client gets through
            long end = System.nanoTime() + 30_000_000_000L;
            RdmaEndpoint ok = null;
            CmException last = null;
            while (ok == null && System.nanoTime() < end) {
                try {
                    ok = RdmaClient.connect(c, a.address(), 7490);
                } catch (CmException e) {
                    last = e;
                    Thread.sleep(200);
                }
            }
            assertThat(ok).as("a real client gets through once the half-open ones are gone (last: %s)", last).isNotNull();
            try (RdmaEndpoint client = ok; RdmaEndpoint conn = server.accept(Duration.ofSeconds(5))) {
                assertThat(conn).isNotNull();
            }
        }
    }

    /**
     * A hand-driven peer answers a UD id's SIDR_REQ first with RC messages naming its request ID
     * (a REP, a REJ: ignored, the id still waits), then with a SIDR_REP of a foreign Q_Key
     * (refused: ADDR_ERROR -EINVAL, as cma.c), and the UD id's QP is left as it was.
     */
    @Test
    void shouldKeepRcMessagesAwayFromSidrAndRefuseAForeignQkey() throws Exception {
        int udp = PORTS.getAndIncrement();
        try (Device a = Device.open(DeviceConfig.of("atk-a", "127.0.0.2").udpPort(udp));
             Device b = Device.open(DeviceConfig.of("atk-b", "127.0.0.3").udpPort(udp));
             RawCm raw = new RawCm(a, b.address());
             EventChannel ch = new EventChannel()) {
            CmId id = CmId.create(ch, b, ServiceIds.PS_UDP);
            id.resolveAddr(0, a.address(), 7300, 2000);
            CmConnectTest.expect(ch, CmEventType.ADDR_RESOLVED);
            id.resolveRoute(2000);
            CmConnectTest.expect(ch, CmEventType.ROUTE_RESOLVED);
            ProtectionDomain pd = b.allocPd();
            CompletionQueue cq = b.createCq(8);
            QueuePair qp = id.createQp(pd, new QpInitAttr(QpType.UD, cq, cq, new QpCap(4, 4, 1, 1, 0)));
            id.connect(null);
            Mad sidr = raw.receive(5000);
            assertThat(sidr).isNotNull();
            assertThat(sidr.attributeId()).isEqualTo(Mad.ATTR_SIDR_REQ);
            int requestId = sidr.u32(CmMessages.SidrReq.REQUEST_ID);
            Mad rep = new Mad().cm(Mad.ATTR_REP, sidr.transactionId());
            rep.u32(Rep.LOCAL_COMM_ID, 99).u32(Rep.REMOTE_COMM_ID, requestId).u24(Rep.LOCAL_QPN, 0x42);
            raw.send(rep);
            Mad rej = new Mad().cm(Mad.ATTR_REJ, sidr.transactionId());
            rej.u32(CmMessages.Rej.REMOTE_COMM_ID, requestId).u16(CmMessages.Rej.REASON, 28);
            raw.send(rej);
            assertThat(ch.getEvent(500, java.util.concurrent.TimeUnit.MILLISECONDS)).as("RC messages for a SIDR id").isNull();
            assertThat(qp.state()).isEqualTo(dev.jrxe.ib.QpState.RTS);
            Mad bad = new Mad().cm(Mad.ATTR_SIDR_REP, sidr.transactionId());
            bad.u32(CmMessages.SidrRep.REQUEST_ID, requestId).u8(CmMessages.SidrRep.STATUS, 0)
                .u24(CmMessages.SidrRep.QPN, 0x42).u32(CmMessages.SidrRep.QKEY, 0x80010000);
            raw.send(bad);
            CmEvent e = CmConnectTest.expect(ch, CmEventType.ADDR_ERROR);
            assertThat(e.status()).isEqualTo(-dev.jrxe.ib.Errno.EINVAL);
            assertThat(qp.state()).as("a UD id's QP is its own").isEqualTo(dev.jrxe.ib.QpState.RTS);
            id.close();
            cq.close();
            pd.close();
        }
    }
}
