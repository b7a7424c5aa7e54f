package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.tools.PingpongCommand.Dest;
import dev.jrxe.verbs.Gid;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The TCP exchange against peers that misbehave: none can hold a tool past its idle timeout. */
class AddressExchangeTest {
    private static final Dest ME = new Dest(0, 0x12, 0x345, Gid.ofIpv4(0x7F000002));

    /** A peer trickling a byte at a time restarts SO_TIMEOUT on every read; the exchange has one deadline. */
    @Test
    void shouldGiveUpOnAPeerThatTricklesItsAddressPastTheIdleTimeout() throws Exception {
        int tcp = FreePorts.tcp();
        StringWriter err = new StringWriter();
        AddressExchange oob = AddressExchange.single(new PrintWriter(err, true), "test", 1);
        CompletableFuture<Dest[]> server = CompletableFuture.supplyAsync(
            () -> oob.server(PingpongHarness.SERVER_IP, tcp, List.of(ME), r -> true));
        try (Socket peer = connect(tcp)) {
            OutputStream o = peer.getOutputStream();
            long start = System.nanoTime();
            // 52 bytes at one per 200 ms would take over 10 s; the server must give up after 1
            for (int i = 0; i < 52 && !server.isDone(); i++) {
                o.write('0');
                o.flush();
                Thread.sleep(200);
            }
            assertThat(server.get(30, TimeUnit.SECONDS)).isNull();
            assertThat(System.nanoTime() - start).as("gave up well before the trickle ended")
                .isLessThan(TimeUnit.SECONDS.toNanos(8));
            assertThat(err.toString()).contains("test: the peer did not finish the exchange within 1 s");
        }
    }

    @Test
    void shouldReportAPeerThatSendsGarbageInsteadOfAnAddress() throws Exception {
        int tcp = FreePorts.tcp();
        StringWriter err = new StringWriter();
        AddressExchange oob = AddressExchange.single(new PrintWriter(err, true), "test", 5);
        CompletableFuture<Dest[]> server = CompletableFuture.supplyAsync(
            () -> oob.server(PingpongHarness.SERVER_IP, tcp, List.of(ME), r -> true));
        try (Socket peer = connect(tcp)) {
            peer.getOutputStream().write(new byte[52]); // 52 NULs: no address
            assertThat(server.get(30, TimeUnit.SECONDS)).isNull();
            assertThat(err.toString()).contains("52/52: Couldn't read remote address");
        }
    }

    private static Socket connect(int port) throws Exception {
        for (int i = 0; ; i++) {
            try {
                return new Socket(PingpongHarness.SERVER_IP, port);
            } catch (java.io.IOException e) {
                if (i > 100) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }
}
