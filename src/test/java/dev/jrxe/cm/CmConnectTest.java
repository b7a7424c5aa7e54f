package dev.jrxe.cm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
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
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * rdma_cm over two jrxe devices (127.0.0.2 listening, 127.0.0.3 connecting): the event sequence
 * librdmacm programs see, private data both ways, traffic on the connected QPs, disconnect from
 * either side; reject with private data; no listener (REJ invalid service ID).
 */
class CmConnectTest {
    private static final AtomicInteger PORTS = new AtomicInteger(30000 + (int) (ProcessHandle.current().pid() % 500) * 20);

    static CmEvent expect(EventChannel ch, int type) throws InterruptedException {
        CmEvent e = ch.getEvent(10, TimeUnit.SECONDS);
        assertThat(e).as("waiting for %s", CmEventType.str(type)).isNotNull();
        assertThat(e.type()).as("event %s (status %d)", e, e.status()).isEqualTo(type);
        e.ack();
        return e;
    }

    static WorkCompletion poll(CompletionQueue cq) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion within 10 s");
            }
        }
        return wc[0];
    }

    /** Two devices, a listener on a, a connected pair; the test's body gets the ids. */
    interface Body {
        void run(CmId server, CmId client, Pair p) throws Exception;
    }

    record Pair(Device a, Device b, ProtectionDomain pda, ProtectionDomain pdb, CompletionQueue cqa,
                CompletionQueue cqb, MemorySegment bufA, MemorySegment bufB, MemoryRegion mra, MemoryRegion mrb,
                EventChannel cha, EventChannel chb, int port) {
    }

    static void withDevices(java.util.function.Consumer<Pair> body) {
        int udp = PORTS.getAndIncrement();
        try (Device a = Device.open(DeviceConfig.of("cm-a", "127.0.0.2").udpPort(udp));
             Device b = Device.open(DeviceConfig.of("cm-b", "127.0.0.3").udpPort(udp));
             Arena arena = Arena.ofShared();
             EventChannel cha = new EventChannel();
             EventChannel chb = new EventChannel()) {
            ProtectionDomain pda = a.allocPd();
            ProtectionDomain pdb = b.allocPd();
            MemorySegment bufA = arena.allocate(8192, 4096);
            MemorySegment bufB = arena.allocate(8192, 4096);
            int all = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ;
            body.accept(new Pair(a, b, pda, pdb, a.createCq(64), b.createCq(64), bufA, bufB,
                pda.registerMemory(bufA, all), pdb.registerMemory(bufB, all), cha, chb, 7174));
        }
    }

    private static QpInitAttr rc(CompletionQueue cq) {
        return new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 16, 1, 1, 0));
    }

    @Test
    void shouldConnectExchangePrivateDataSendAndDisconnect() {
        withDevices(p -> {
            try {
                CmId listen = CmId.create(p.cha(), p.a(), ServiceIds.PS_TCP);
                listen.bindAddr(p.a().address(), p.port());
                listen.listen(3);

                CmId client = CmId.create(p.chb(), p.b(), ServiceIds.PS_TCP);
                // test_rdmacm_async_resolve_addrinfo: the address through rdma_resolve_addrinfo first
                client.resolveAddrinfo("127.0.0.2", Integer.toString(p.port()));
                expect(p.chb(), CmEventType.ADDRINFO_RESOLVED);
                CmId.AddrInfo ai = client.queryAddrinfo();
                assertThat(ai).isEqualTo(new CmId.AddrInfo(p.a().address(), p.port()));
                client.resolveAddrinfo("127.0.0.2", "not-a-port");
                assertThat(expect(p.chb(), CmEventType.ADDRINFO_ERROR).status()).isEqualTo(-dev.jrxe.ib.Errno.EINVAL);
                client.resolveAddr(0, ai.destAddr(), ai.destPort(), 2000);
                expect(p.chb(), CmEventType.ADDR_RESOLVED);
                client.resolveRoute(2000);
                expect(p.chb(), CmEventType.ROUTE_RESOLVED);
                QueuePair cqp = client.createQp(p.pdb(), rc(p.cqb()));
                ConnParam cp = new ConnParam();
                cp.privateData = "hello from the client".getBytes();
                client.connect(cp);

                CmEvent req = expect(p.cha(), CmEventType.CONNECT_REQUEST);
                assertThat(req.listenId()).isSameAs(listen);
                assertThat(new String(req.privateData(), 0, 21)).isEqualTo("hello from the client");
                assertThat(req.param().qpNum).isEqualTo(cqp.qpNum());
                CmId server = req.id();
                assertThat(server.remoteAddress()).isEqualTo(p.b().address());
                QueuePair sqp = server.createQp(p.pda(), rc(p.cqa()));
                sqp.postRecv(new RecvWr(1).sge(p.bufA().address(), 64, p.mra().lkey()));
                ConnParam ap = new ConnParam();
                ap.privateData = "welcome".getBytes();
                server.accept(ap);
                assertThat(sqp.state()).as("the passive QP is in RTS before its REP leaves").isEqualTo(QpState.RTS);

                CmEvent est = expect(p.chb(), CmEventType.ESTABLISHED);
                assertThat(new String(est.privateData(), 0, 7)).isEqualTo("welcome");
                assertThat(cqp.state()).isEqualTo(QpState.RTS);
                expect(p.cha(), CmEventType.ESTABLISHED);

                SendWr s = new SendWr(1).sge(p.bufB().address(), 64, p.mrb().lkey());
                s.opcode = WrOpcode.SEND;
                s.sendFlags = SendFlags.SIGNALED;
                cqp.postSend(s);
                assertThat(poll(p.cqb()).status).isEqualTo(WcStatus.SUCCESS);
                WorkCompletion r = poll(p.cqa());
                assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
                assertThat(r.byteLen).isEqualTo(64);

                client.disconnect();
                expect(p.cha(), CmEventType.DISCONNECTED);
                server.disconnect(); // answers the DREQ
                expect(p.chb(), CmEventType.DISCONNECTED);
                assertThat(cqp.state()).isEqualTo(QpState.ERR);
                server.close();
                client.close();
                listen.close();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void shouldRejectWithPrivateDataAndWithoutListener() {
        withDevices(p -> {
            try {
                CmId listen = CmId.create(p.cha(), p.a(), ServiceIds.PS_TCP);
                listen.bindAddr(0, p.port());
                listen.listen(3);
                CmId client = CmId.create(p.chb(), p.b(), ServiceIds.PS_TCP);
                client.resolveAddr(0, p.a().address(), p.port(), 2000);
                expect(p.chb(), CmEventType.ADDR_RESOLVED);
                client.resolveRoute(2000);
                expect(p.chb(), CmEventType.ROUTE_RESOLVED);
                client.createQp(p.pdb(), rc(p.cqb()));
                client.connect(null);
                CmEvent req = expect(p.cha(), CmEventType.CONNECT_REQUEST);
                req.id().reject("go away".getBytes());
                CmEvent rej = expect(p.chb(), CmEventType.REJECTED);
                assertThat(rej.status()).isEqualTo(CmMessages.RejReason.CONSUMER_DEFINED);
                assertThat(new String(rej.privateData(), 0, 7)).isEqualTo("go away");
                req.id().close();
                client.close();

                CmId nobody = CmId.create(p.chb(), p.b(), ServiceIds.PS_TCP);
                nobody.resolveAddr(0, p.a().address(), p.port() + 1, 2000);
                expect(p.chb(), CmEventType.ADDR_RESOLVED);
                nobody.resolveRoute(2000);
                expect(p.chb(), CmEventType.ROUTE_RESOLVED);
                nobody.createQp(p.pdb(), rc(p.cqb()));
                nobody.connect(null);
                CmEvent none = expect(p.chb(), CmEventType.REJECTED);
                assertThat(none.status()).isEqualTo(CmMessages.RejReason.INVALID_SERVICE_ID);
                nobody.close();
                listen.close();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
    }

    /** test_rdmacm's UDP port space: SIDR resolves a UD service's QPN and Q_Key; a datagram follows. */
    @Test
    void shouldResolveAUdServiceWithSidrAndSendToIt() {
        withDevices(p -> {
            try {
                CmId listen = CmId.create(p.cha(), p.a(), ServiceIds.PS_UDP);
                listen.bindAddr(0, 7200);
                listen.listen(3);
                CmId client = CmId.create(p.chb(), p.b(), ServiceIds.PS_UDP);
                client.resolveAddr(0, p.a().address(), 7200, 2000);
                expect(p.chb(), CmEventType.ADDR_RESOLVED);
                client.resolveRoute(2000);
                expect(p.chb(), CmEventType.ROUTE_RESOLVED);
                QueuePair cqp = client.createQp(p.pdb(), new QpInitAttr(QpType.UD, p.cqb(), p.cqb(),
                    new QpCap(8, 8, 1, 1, 0)));
                ConnParam cp = new ConnParam();
                cp.privateData = "udp please".getBytes();
                client.connect(cp);
                CmEvent req = expect(p.cha(), CmEventType.CONNECT_REQUEST);
                assertThat(new String(req.privateData(), 0, 10)).isEqualTo("udp please");
                CmId server = req.id();
                QueuePair sqp = server.createQp(p.pda(), new QpInitAttr(QpType.UD, p.cqa(), p.cqa(),
                    new QpCap(8, 8, 1, 1, 0)));
                sqp.postRecv(new RecvWr(1).sge(p.bufA().address(), 40 + 64, p.mra().lkey()));
                server.accept(null);
                CmEvent est = expect(p.chb(), CmEventType.ESTABLISHED);
                assertThat(est.param().qpNum).isEqualTo(sqp.qpNum());
                assertThat(est.param().qkey).isEqualTo(ServiceIds.UDP_QKEY);
                try (dev.jrxe.verbs.AddressHandle ah = p.pdb().createAh(
                    new dev.jrxe.verbs.AhAttr(p.a().queryGid(1, 1), 1))) {
                    SendWr s = new SendWr(1).sge(p.bufB().address(), 64, p.mrb().lkey());
                    s.sendFlags = SendFlags.SIGNALED;
                    s.ah = ah;
                    s.remoteQpn = est.param().qpNum;
                    s.remoteQkey = est.param().qkey;
                    cqp.postSend(s);
                    assertThat(poll(p.cqb()).status).isEqualTo(WcStatus.SUCCESS);
                    WorkCompletion r = poll(p.cqa());
                    assertThat(r.status).isEqualTo(WcStatus.SUCCESS);
                    assertThat(r.srcQp).isEqualTo(cqp.qpNum());
                }
                server.close();
                client.close();

                CmId nobody = CmId.create(p.chb(), p.b(), ServiceIds.PS_UDP);
                nobody.resolveAddr(0, p.a().address(), 7201, 2000);
                expect(p.chb(), CmEventType.ADDR_RESOLVED);
                nobody.resolveRoute(2000);
                expect(p.chb(), CmEventType.ROUTE_RESOLVED);
                nobody.createQp(p.pdb(), new QpInitAttr(QpType.UD, p.cqb(), p.cqb(), new QpCap(8, 8, 1, 1, 0)));
                nobody.connect(null);
                CmEvent none = expect(p.chb(), CmEventType.UNREACHABLE);
                assertThat(none.status()).as("SIDR status: no listener").isEqualTo(CmMessages.SidrRep.UNSUPPORTED);
                nobody.close();
                listen.close();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
    }
}
