package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.Errno;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The ibv_rc_pingpong exchange as API: the 52-byte peer message, and a bootstrap that reaches RTS. */
class RcBootstrapTest {
    @Test
    void shouldEncodeThePeerAsIbvRcPingpongDoes() {
        RcPeer p = new RcPeer(Gid.ofIpv4(0x7F000002), 0x11, 0xABCDEF, RcPeer.ROCE_PORT);
        byte[] wire = p.encode();
        assertThat(wire).hasSize(52);
        assertThat(new String(wire, 0, 51, StandardCharsets.US_ASCII))
            .isEqualTo("0000:000011:abcdef:00000000000000000000ffff7f000002");
        assertThat(wire[51]).isZero();
        assertThat(RcPeer.decode(wire)).isEqualTo(p);
        RcPeer other = new RcPeer(Gid.ofIpv4(0x7F000003), 0x22, 1, 20001);
        assertThat(new String(other.encode(), 0, 4, StandardCharsets.US_ASCII)).isEqualTo("4e21");
        assertThat(RcPeer.decode(other.encode())).isEqualTo(other);
        assertThatThrownBy(() -> RcPeer.decode("hello".getBytes(StandardCharsets.US_ASCII)))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RcPeer(p.gid(), 1 << 24, 0, 4791)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldConnectTwoQpsOverTcpAndCarryASend() throws Exception {
        try (RcFixture f = new RcFixture(8192)) {
            QpCap cap = new QpCap(16, 16, 1, 1, 0);
            QueuePair server = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, cap));
            QueuePair client = f.pdb.createQp(new QpInitAttr(QpType.RC, f.cqb, f.cqb, cap));
            // the server posts its receive before the exchange (in INIT), as ibv_rc_pingpong; the
            // client's QP starts from RESET
            new RcConnect().toInit(server);
            server.postRecv(new RecvWr(1).sge(f.mra, 0, 256));
            InetSocketAddress listen = new InetSocketAddress("127.0.0.2", RcFixture.nextPort());
            CompletableFuture<RcPeer> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return RcBootstrap.accept(server, listen, Duration.ofSeconds(10));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            RcPeer serverSide = RcBootstrap.connect(client, listen, Duration.ofSeconds(10));
            RcPeer clientSide = accepted.get();
            assertThat(serverSide.qpn()).isEqualTo(server.qpNum());
            assertThat(clientSide.qpn()).isEqualTo(client.qpNum());
            assertThat(clientSide.gid()).isEqualTo(f.b.queryGid(1, Device.IPV4_GID_INDEX));
            assertThat(server.state()).isEqualTo(QpState.RTS);
            assertThat(client.state()).isEqualTo(QpState.RTS);

            RcFixture.fill(f.bufB, 0, 200, 9);
            SendWr wr = new SendWr(1).sge(f.mrb, 0, 200);
            wr.sendFlags = SendFlags.SIGNALED;
            assertThat(client.trySend(wr)).isZero();
            assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.SEND);
            WorkCompletion got = f.pollOk(f.cqa);
            assertThat(got.opcode).isEqualTo(WcOpcode.RECV);
            assertThat(got.byteLen).isEqualTo(200);
            RcFixture.assertFilled(f.bufA, 0, 200, 9);
            client.close();
            server.close();
        }
    }

    @Test
    void shouldServeManyClientsThatConnectAtOnceFromOneListeningSocket() throws Exception {
        try (RcFixture f = new RcFixture(8192); java.net.ServerSocket listening = new java.net.ServerSocket()) {
            listening.bind(new InetSocketAddress("127.0.0.2", RcFixture.nextPort()));
            InetSocketAddress at = (InetSocketAddress) listening.getLocalSocketAddress();
            QpCap cap = new QpCap(4, 4, 1, 1, 0);
            int clients = 3;
            QueuePair[] mine = new QueuePair[clients];
            java.util.List<CompletableFuture<RcPeer>> connecting = new java.util.ArrayList<>();
            for (int i = 0; i < clients; i++) {
                QueuePair q = f.pdb.createQp(new QpInitAttr(QpType.RC, f.cqb, f.cqb, cap));
                // all connect at once: the later ones wait in the backlog while the first is served
                connecting.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return RcBootstrap.connect(q, at, Duration.ofSeconds(10));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }));
            }
            java.util.Set<Integer> served = new java.util.HashSet<>();
            for (int i = 0; i < clients; i++) {
                mine[i] = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, cap));
                served.add(RcBootstrap.accept(mine[i], listening, Duration.ofSeconds(10), new RcConnect()).qpn());
                assertThat(mine[i].state()).isEqualTo(QpState.RTS);
            }
            java.util.Set<Integer> serverQps = new java.util.HashSet<>();
            for (CompletableFuture<RcPeer> c : connecting) {
                serverQps.add(c.get().qpn());
            }
            assertThat(served).as("three distinct clients").hasSize(clients);
            assertThat(serverQps).as("each met its own server QP")
                .containsExactlyInAnyOrder(mine[0].qpNum(), mine[1].qpNum(), mine[2].qpNum());
            assertThat(listening.isClosed()).as("the listening socket is the caller's").isFalse();
        }
    }

    @Test
    void shouldRefuseAPeerOnAnotherUdpPortAndGiveUpOnAnAbsentServer() throws Exception {
        try (RcFixture f = new RcFixture(8192)) {
            QueuePair q = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)));
            InetSocketAddress nobody = new InetSocketAddress("127.0.0.2", RcFixture.nextPort());
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> RcBootstrap.connect(q, nobody, Duration.ofMillis(500)))
                .isInstanceOf(java.io.IOException.class).hasMessageContaining("cannot reach");
            assertThat(System.nanoTime() - t0).as("gave up, not hung").isLessThan(Duration.ofSeconds(10).toNanos());

            InetSocketAddress listen = new InetSocketAddress("127.0.0.2", RcFixture.nextPort());
            CompletableFuture<Throwable> server = CompletableFuture.supplyAsync(() -> {
                try {
                    RcBootstrap.accept(q, listen, Duration.ofSeconds(10));
                    return null;
                } catch (Throwable e) {
                    return e;
                }
            });
            RcPeer wrongPort = new RcPeer(f.b.queryGid(1, 1), 0x33, 7, f.b.udpPort() + 1);
            for (int i = 0; i < 50; i++) {
                try (java.net.Socket s = new java.net.Socket()) {
                    s.connect(listen, 1000);
                    s.getOutputStream().write(wrongPort.encode());
                    break;
                } catch (java.net.ConnectException e) {
                    Thread.sleep(100);
                }
            }
            assertThat(server.get()).isInstanceOfSatisfying(VerbsException.class,
                e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
            assertThat(q.state()).isEqualTo(QpState.INIT);
            q.close();
        }
    }
}
