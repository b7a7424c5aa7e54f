package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code jrxe srq-pingpong} between two JVMs, server on 127.0.0.2 and client on 127.0.0.3, and
 * the server's TCP exchange against a peer that speaks ibv_srq_pingpong's protocol byte for byte.
 */
class SrqPingpongProcessTest {
    private static final Pattern LOCAL = Pattern.compile(
        "  local address:  LID 0x0000, QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID ::ffff:127\\.0\\.0\\.2");
    private static final String ZERO_MESSAGE = "0000:000000:000000:00000000000000000000000000000000";

    @Test
    void shouldPingPongBetweenTwoProcessesWithChk() throws Exception {
        List<List<String>> out = PingpongHarness.twoProcesses("srq-pingpong", "-c", "-q", "8", "-n", "200");
        PingpongHarness.assertPaired(out, 8, ',', 4096, 200);
    }

    @Test
    void shouldExchange256MessagesInQpOrderThenReadDone() throws Exception {
        int tcp = FreePorts.tcp();
        int udp = FreePorts.udp(PingpongHarness.SERVER_IP);
        try (ToolProcess s = ToolProcess.start("srq-pingpong", "-q", "3", "-p", Integer.toString(tcp), "--udp-port",
            Integer.toString(udp), "--ip", PingpongHarness.SERVER_IP, "-n", "1")) {
            assertThat(s.awaitLine("  local address:", 60, TimeUnit.SECONDS)).as(s.output()).isTrue();
            try (Socket sock = connect(tcp)) {
                sock.setSoTimeout(30_000);
                OutputStream o = sock.getOutputStream();
                // what ibv_srq_pingpong -q 3 sends: three addresses, then 253 all-zero messages
                for (int i = 0; i < 256; i++) {
                    String text = i < 3 ? String.format("0000:0000a%d:12345%d:00000000000000000000ffff7f000063", i, i)
                        : ZERO_MESSAGE;
                    o.write(message(text));
                }
                DataInputStream in = new DataInputStream(sock.getInputStream());
                List<String> replies = new ArrayList<>();
                byte[] reply = new byte[52];
                for (int i = 0; i < 256; i++) {
                    in.readFully(reply);
                    assertThat(reply[51]).as("NUL of message %d", i).isZero();
                    replies.add(new String(reply, 0, 51, StandardCharsets.US_ASCII));
                }
                o.write("done\0".getBytes(StandardCharsets.US_ASCII));
                o.flush();
                for (int i = 0; i < 3; i++) {
                    assertThat(s.awaitLine(String.format(
                        "  remote address: LID 0x0000, QPN 0x0000a%d, PSN 0x12345%d, GID ::ffff:127.0.0.99", i, i),
                        30, TimeUnit.SECONDS)).as(s.output()).isTrue();
                }
                // the local lines came before the remote ones
                List<String> local = s.lines().stream().filter(l -> l.startsWith("  local address:")).toList();
                assertThat(local).hasSize(3);
                for (int i = 0; i < 3; i++) {
                    Matcher m = LOCAL.matcher(local.get(i));
                    assertThat(m.matches()).as(local.get(i)).isTrue();
                    assertThat(replies.get(i)).as("message %d names QP %d", i, i)
                        .isEqualTo("0000:" + m.group(1) + ":" + m.group(2) + ":00000000000000000000ffff7f000002");
                }
                assertThat(replies.subList(3, 256)).as("all-zero messages after the QPs").containsOnly(ZERO_MESSAGE);
            }
            // no QP answers at 127.0.0.99: the server waits for pings until closing kills it
            assertThat(s.lines().stream().filter(l -> l.startsWith("  remote address:"))).hasSize(3);
        }
    }

    private static byte[] message(String text) {
        byte[] msg = new byte[52];
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(b, 0, msg, 0, b.length);
        return msg;
    }

    private static Socket connect(int port) throws IOException, InterruptedException {
        for (int i = 0; ; i++) {
            try {
                return new Socket(PingpongHarness.SERVER_IP, port); // the server listens on its --ip only
            } catch (IOException e) {
                if (i > 100) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
