package dev.jrxe.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The endpoint API: a server that accepts, a client that connects, a SEND and an RDMA WRITE over
 * the endpoints, a clean close from either side; a connect to a port nothing listens on is
 * refused at once, and one to an address where no CM answers ends within its timeout.
 */
class EndpointTest {
    private static final AtomicInteger PORTS = new AtomicInteger(31000 + (int) (ProcessHandle.current().pid() % 500) * 20);

    private static WorkCompletion poll(dev.jrxe.verbs.CompletionQueue cq) {
        return CmConnectTest.poll(cq);
    }

    @Test
    void shouldConnectTransferAndClose() throws Exception {
        int udp = PORTS.getAndIncrement();
        try (Device a = Device.open(DeviceConfig.of("ep-a", "127.0.0.2").udpPort(udp));
             Device b = Device.open(DeviceConfig.of("ep-b", "127.0.0.3").udpPort(udp));
             Arena arena = Arena.ofShared();
             RdmaServer server = RdmaServer.bind(a, 7471)) {
            MemorySegment sbuf = arena.allocate(4096, 4096);
            MemorySegment cbuf = arena.allocate(4096, 4096);
            try (RdmaEndpoint client = RdmaClient.connect(b, a.address(), 7471,
                EndpointOptions.DEFAULT.withPrivateData("hi".getBytes()));
                 RdmaEndpoint conn = server.accept(Duration.ofSeconds(5))) {
                assertThat(conn).isNotNull();
                assertThat(new String(conn.peerPrivateData(), 0, 2)).isEqualTo("hi");
                assertThat(conn.peerAddress()).isEqualTo(b.address());
                MemoryRegion smr = conn.register(sbuf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
                MemoryRegion cmr = client.register(cbuf, Access.LOCAL_WRITE);
                conn.qp().postRecv(new RecvWr(1).sge(sbuf.address(), 128, smr.lkey()));
                cbuf.set(ValueLayout.JAVA_BYTE, 0, (byte) 42);
                SendWr s = new SendWr(1).sge(cbuf.address(), 128, cmr.lkey());
                s.sendFlags = SendFlags.SIGNALED;
                client.qp().postSend(s);
                assertThat(poll(client.cq()).status).isEqualTo(WcStatus.SUCCESS);
                assertThat(poll(conn.cq()).byteLen).isEqualTo(128);
                assertThat(sbuf.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 42);
                SendWr w = new SendWr(1).sge(cbuf.address(), 64, cmr.lkey()).rdma(sbuf.address() + 1024, smr.rkey());
                w.opcode = WrOpcode.RDMA_WRITE;
                w.sendFlags = SendFlags.SIGNALED;
                client.qp().postSend(w);
                assertThat(poll(client.cq()).status).isEqualTo(WcStatus.SUCCESS);
                assertThat(sbuf.get(ValueLayout.JAVA_BYTE, 1024)).isEqualTo((byte) 42);
                client.close();
                long end = System.nanoTime() + 5_000_000_000L;
                while (!conn.isDisconnected() && System.nanoTime() < end) {
                    Thread.sleep(5);
                }
                assertThat(conn.isDisconnected()).as("the server learns of the client's disconnect").isTrue();
            }
        }
    }

    @Test
    void shouldRefuseAtOnceWhenNothingListensAndTimeOutWhenNothingAnswers() throws Exception {
        int udp = PORTS.getAndIncrement();
        try (Device a = Device.open(DeviceConfig.of("ep-a", "127.0.0.2").udpPort(udp));
             Device b = Device.open(DeviceConfig.of("ep-b", "127.0.0.3").udpPort(udp));
             RdmaServer other = RdmaServer.bind(a, 7998)) { // a's CM runs, but nothing listens on 7999
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> RdmaClient.connect(b, a.address(), 7999))
                .isInstanceOfSatisfying(CmException.Refused.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.ECONNREFUSED);
                    assertThat(e.rejectReason()).isEqualTo(CmMessages.RejReason.INVALID_SERVICE_ID);
                });
            assertThat(System.nanoTime() - t0).as("a refusal comes back at once, not after a timeout")
                .isLessThan(4_000_000_000L);
            // 127.0.0.9: no device there; the REQs vanish (so do they at a device whose CM never ran)
            EndpointOptions quick = EndpointOptions.DEFAULT.withConnectTimeout(Duration.ofMillis(800));
            assertThatThrownBy(() -> RdmaClient.connect(b, 0x7F000009, 7999, quick))
                .isInstanceOfSatisfying(CmException.TimedOut.class, e -> assertThat(e.errno()).isEqualTo(Errno.ETIMEDOUT));
        }
    }

    /** 100 clients connect to one server at once; all succeed; everything is released after. */
    @Test
    void shouldAcceptAHundredClientsAtOnce() throws Exception {
        int udp = PORTS.getAndIncrement();
        try (Device a = Device.open(DeviceConfig.of("ep-a", "127.0.0.2").udpPort(udp));
             Device b = Device.open(DeviceConfig.of("ep-b", "127.0.0.3").udpPort(udp));
             RdmaServer server = RdmaServer.bind(a, 7472)) {
            EndpointOptions small = new EndpointOptions(4, 4, 1, 0, 16, 1, null, Duration.ofSeconds(20));
            List<Thread> threads = new ArrayList<>();
            List<RdmaEndpoint> clients = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < 100; i++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        clients.add(RdmaClient.connect(b, a.address(), 7472, small));
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            List<RdmaEndpoint> accepted = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                RdmaEndpoint e = server.accept(Duration.ofSeconds(20));
                assertThat(e).as("connection %d", i).isNotNull();
                accepted.add(e);
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failures).isEmpty();
            assertThat(clients).hasSize(100);
            for (RdmaEndpoint c : clients) {
                c.close();
            }
            for (RdmaEndpoint e : accepted) {
                e.close();
            }
        }
    }

    /** test_rdmacm's async case: connections handed to a callback; the client RDMA READs the server's buffer. */
    @Test
    void shouldHandConnectionsToACallbackAndServeReads() throws Exception {
        int udp = PORTS.getAndIncrement();
        try (Device a = Device.open(DeviceConfig.of("ep-a", "127.0.0.2").udpPort(udp));
             Device b = Device.open(DeviceConfig.of("ep-b", "127.0.0.3").udpPort(udp));
             Arena arena = Arena.ofShared();
             RdmaServer server = RdmaServer.bind(a, 7473)) {
            MemorySegment sbuf = arena.allocate(4096, 4096);
            MemorySegment cbuf = arena.allocate(4096, 4096);
            for (int i = 0; i < 256; i++) {
                sbuf.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            java.util.concurrent.CompletableFuture<RdmaEndpoint> got = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CompletableFuture<Integer> rkey = new java.util.concurrent.CompletableFuture<>();
            server.onConnection(ep -> {
                rkey.complete(ep.register(sbuf, Access.LOCAL_WRITE | Access.REMOTE_READ).rkey());
                got.complete(ep);
            });
            try (RdmaEndpoint client = RdmaClient.connect(b, a.address(), 7473)) {
                RdmaEndpoint conn = got.get(5, java.util.concurrent.TimeUnit.SECONDS);
                MemoryRegion cmr = client.register(cbuf, Access.LOCAL_WRITE);
                SendWr r = new SendWr(1).sge(cbuf.address(), 256, cmr.lkey())
                    .rdma(sbuf.address(), rkey.get(5, java.util.concurrent.TimeUnit.SECONDS));
                r.opcode = WrOpcode.RDMA_READ;
                r.sendFlags = SendFlags.SIGNALED;
                client.qp().postSend(r);
                assertThat(poll(client.cq()).status).isEqualTo(WcStatus.SUCCESS);
                assertThat(cbuf.asSlice(0, 256).mismatch(sbuf.asSlice(0, 256))).isEqualTo(-1);
                conn.close(); // the server side disconnects first this time
                long end = System.nanoTime() + 5_000_000_000L;
                while (!client.isDisconnected() && System.nanoTime() < end) {
                    Thread.sleep(5);
                }
                assertThat(client.isDisconnected()).isTrue();
            }
        }
    }
}
