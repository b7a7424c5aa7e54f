package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code jrxe rc-pingpong} between two JVM processes, server on 127.0.0.2 and client on 127.0.0.3,
 * checked line by line against ibv_rc_pingpong's output formats; and each side's TCP exchange
 * against a peer that speaks ibv_rc_pingpong's 52-byte protocol byte for byte.
 */
class RcPingpongProcessTest {
    private static final long RUN_TIMEOUT_SECONDS = 180;
    private static final String SERVER_IP = "127.0.0.2";
    private static final String CLIENT_IP = "127.0.0.3";
    private static final String HEX4 = "0x([0-9a-f]{4})";
    private static final String HEX6 = "0x([0-9a-f]{6})";
    private static final Pattern ADDRESS = Pattern.compile(
        "  (local|remote) address: {1,2}LID " + HEX4 + ", QPN " + HEX6 + ", PSN " + HEX6 + ", GID (\\S+)");
    private static final Pattern BYTES = Pattern.compile("(\\d+) bytes in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d Mbit/sec");
    private static final Pattern ITERS = Pattern.compile("(\\d+) iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter");
    private static final Pattern WIRE_MESSAGE = Pattern.compile("[0-9a-f]{4}:[0-9a-f]{6}:[0-9a-f]{6}:[0-9a-f]{32}");

    /** The lines of one side's successful run, parsed. */
    record Run(String localGid, String localQpn, String localPsn, String remoteGid, String remoteQpn,
               String remotePsn, long bytes, int iters) {
    }

    private static Run parse(List<String> lines) {
        List<String> relevant = lines.stream()
            .filter(l -> l.startsWith("  local") || l.startsWith("  remote") || BYTES.matcher(l).matches()
                || ITERS.matcher(l).matches())
            .toList();
        assertThat(relevant).as("result lines in ibv_rc_pingpong's order, in %s", lines).hasSize(4);
        Matcher local = ADDRESS.matcher(relevant.get(0));
        Matcher remote = ADDRESS.matcher(relevant.get(1));
        Matcher bytes = BYTES.matcher(relevant.get(2));
        Matcher iters = ITERS.matcher(relevant.get(3));
        assertThat(local.matches() && local.group(1).equals("local")).as(relevant.get(0)).isTrue();
        assertThat(remote.matches() && remote.group(1).equals("remote")).as(relevant.get(1)).isTrue();
        assertThat(bytes.matches()).as(relevant.get(2)).isTrue();
        assertThat(iters.matches()).as(relevant.get(3)).isTrue();
        assertThat(local.group(2)).as("RoCE LID").isEqualTo("0000");
        return new Run(local.group(5), local.group(3), local.group(4), remote.group(5), remote.group(3),
            remote.group(4), Long.parseLong(bytes.group(1)), Integer.parseInt(iters.group(1)));
    }

    /** Runs server and client with the given extra options; both must succeed. */
    private static List<List<String>> pingPong(String... options) throws Exception {
        return pingPong(RUN_TIMEOUT_SECONDS, options);
    }

    /**
     * Runs {@code jrxe rc-pingpong} server (127.0.0.2) and client (127.0.0.3) in two JVMs with the
     * given extra options on free ports; both must exit 0. Returns {server lines, client lines}.
     */
    static List<List<String>> pingPong(long timeoutSeconds, String... options) throws Exception {
        int tcp = FreePorts.tcp();
        int udp = FreePorts.udp(SERVER_IP, CLIENT_IP);
        List<String> common = new ArrayList<>(List.of("rc-pingpong", "-p", Integer.toString(tcp), "--udp-port",
            Integer.toString(udp)));
        common.addAll(List.of(options));
        List<String> server = new ArrayList<>(common);
        server.addAll(List.of("--ip", SERVER_IP));
        List<String> client = new ArrayList<>(common);
        client.addAll(List.of("--ip", CLIENT_IP, SERVER_IP));
        try (ToolProcess s = ToolProcess.start(server.toArray(String[]::new))) {
            assertThat(s.awaitLine("  local address:", 60, TimeUnit.SECONDS)).as("server up: %s", s.output()).isTrue();
            try (ToolProcess c = ToolProcess.start(client.toArray(String[]::new))) {
                int clientRc = c.await(timeoutSeconds, TimeUnit.SECONDS);
                int serverRc = s.await(timeoutSeconds, TimeUnit.SECONDS);
                assertThat(clientRc).as("client exit code, output:%n%s", c.output()).isZero();
                assertThat(serverRc).as("server exit code, output:%n%s", s.output()).isZero();
                return List.of(s.lines(), c.lines());
            }
        }
    }

    private static void assertPaired(List<List<String>> outputs, int size, int iters) {
        Run server = parse(outputs.get(0));
        Run client = parse(outputs.get(1));
        assertThat(server.localGid()).isEqualTo("::ffff:" + SERVER_IP);
        assertThat(client.localGid()).isEqualTo("::ffff:" + CLIENT_IP);
        assertThat(server.remoteGid()).isEqualTo(client.localGid());
        assertThat(client.remoteGid()).isEqualTo(server.localGid());
        assertThat(server.remoteQpn()).isEqualTo(client.localQpn());
        assertThat(server.remotePsn()).isEqualTo(client.localPsn());
        assertThat(client.remoteQpn()).isEqualTo(server.localQpn());
        assertThat(client.remotePsn()).isEqualTo(server.localPsn());
        for (Run r : List.of(server, client)) {
            assertThat(r.iters()).isEqualTo(iters);
            assertThat(r.bytes()).isEqualTo(2L * size * iters);
        }
    }

    @Test
    void shouldPingPongWithIbvRcPingpongDefaults() throws Exception {
        List<List<String>> out = pingPong();
        assertPaired(out, 4096, 1000);
    }

    @Test
    void shouldReportNoInvalidDataWithChk() throws Exception {
        List<List<String>> out = pingPong("-c");
        assertPaired(out, 4096, 1000);
        assertThat(out.get(0)).noneMatch(l -> l.contains("invalid data"));
    }

    @Test
    void shouldReportNoInvalidDataWithChkOverSeveralPagesAndMtus() throws Exception {
        List<List<String>> out = pingPong("-c", "-s", "20000", "-m", "4096", "-n", "200");
        assertPaired(out, 20000, 200);
        assertThat(out.get(0)).noneMatch(l -> l.contains("invalid data"));
    }

    @Test
    void shouldPingPongWithTheNewSendApiAndReportReceiveCompletionTimestamps() throws Exception {
        List<List<String>> out = pingPong("-N", "-t", "-c", "-n", "300");
        assertPaired(out, 4096, 300);
        for (int side = 0; side < 2; side++) {
            List<String> lines = out.get(side);
            long max = cycles(lines, "Max receive completion clock cycles = ");
            long min = cycles(lines, "Min receive completion clock cycles = ");
            double avg = Double.parseDouble(lines.stream().filter(l -> l.startsWith("Average receive completion clock cycles = "))
                .findFirst().orElseThrow().substring("Average receive completion clock cycles = ".length()));
            // nanoseconds between receive completions: one round trip each, so min <= avg <= max,
            // and 299 of them add up to no more than the client's run took. Not the server's: as
            // ibv_rc_pingpong's, it starts its clock after sending its address and printing the
            // client's, and the client's first message may complete before that
            assertThat(min).isPositive().isLessThanOrEqualTo(max);
            assertThat(avg).isBetween((double) min, (double) max);
            if (side == 0) {
                continue;
            }
            double seconds = Double.parseDouble(lines.stream().filter(l -> l.contains(" iters in "))
                .findFirst().orElseThrow().replaceAll(".* iters in ([0-9.]+) seconds.*", "$1"));
            assertThat(avg * 299 / 1e9).isLessThanOrEqualTo(seconds + 0.01);
        }
        assertThat(out.get(0)).noneMatch(l -> l.contains("invalid data"));
    }

    private static long cycles(List<String> lines, String prefix) {
        return Long.parseLong(lines.stream().filter(l -> l.startsWith(prefix)).findFirst()
            .orElseThrow(() -> new AssertionError("no line " + prefix + " in " + lines)).substring(prefix.length()));
    }

    @Test
    void shouldPingPongSleepingOnCqEvents() throws Exception {
        List<List<String>> out = pingPong("-e", "-n", "300");
        assertPaired(out, 4096, 300);
    }

    @Test
    void shouldPingPongSmallInlineMessagesWithEventsAndChk() throws Exception {
        List<List<String>> out = pingPong("-e", "-c", "-s", "8", "-r", "10", "-n", "300");
        assertPaired(out, 8, 300);
        assertThat(out.get(0)).noneMatch(l -> l.contains("invalid data"));
    }

    @Test
    void shouldAnswerAnIbvRcPingpongClientWith52ByteMessageThenReadDone() throws Exception {
        int tcp = FreePorts.tcp();
        int udp = FreePorts.udp(SERVER_IP);
        try (ToolProcess s = ToolProcess.start("rc-pingpong", "-p", Integer.toString(tcp), "--udp-port",
            Integer.toString(udp), "--ip", SERVER_IP, "-n", "1")) {
            assertThat(s.awaitLine("  local address:", 60, TimeUnit.SECONDS)).as(s.output()).isTrue();
            try (Socket sock = connect(tcp)) {
                sock.setSoTimeout(30_000);
                OutputStream out = sock.getOutputStream();
                // what ibv_rc_pingpong's client sends: its address, NUL-terminated in 52 bytes
                byte[] msg = new byte[52];
                byte[] text = "0000:0000ab:123456:00000000000000000000ffff7f000063".getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(text, 0, msg, 0, text.length);
                out.write(msg);
                byte[] reply = new byte[52];
                new DataInputStream(sock.getInputStream()).readFully(reply);
                assertThat(reply[51]).as("NUL terminator").isZero();
                String replyText = new String(reply, 0, 51, StandardCharsets.US_ASCII);
                assertThat(replyText).matches(WIRE_MESSAGE);
                assertThat(replyText).endsWith(":00000000000000000000ffff7f000002");
                out.write("done\0".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                // the server prints the peer once the exchange is complete
                assertThat(s.awaitLine("  remote address: LID 0x0000, QPN 0x0000ab, PSN 0x123456, GID ::ffff:127.0.0.99",
                    30, TimeUnit.SECONDS)).as(s.output()).isTrue();
            }
            // nothing will ever be sent to it over RoCE: it waits for the ping; that is all we check here
            String local = s.lines().stream().filter(l -> l.startsWith("  local address:")).findFirst().orElseThrow();
            Matcher m = ADDRESS.matcher(local);
            assertThat(m.matches()).isTrue();
            assertThat(m.group(5)).isEqualTo("::ffff:127.0.0.2");
        }
    }

    @Test
    void shouldSendItsAddressLikeAnIbvRcPingpongClientThenDone() throws Exception {
        int udp = FreePorts.udp(CLIENT_IP);
        try (ServerSocket ss = new ServerSocket()) {
            ss.bind(new InetSocketAddress(0));
            ss.setSoTimeout(60_000);
            try (ToolProcess c = ToolProcess.start("rc-pingpong", "-p", Integer.toString(ss.getLocalPort()),
                "--udp-port", Integer.toString(udp), "--ip", CLIENT_IP, "-n", "5", "127.0.0.1")) {
                try (Socket sock = ss.accept()) {
                    sock.setSoTimeout(30_000);
                    DataInputStream in = new DataInputStream(sock.getInputStream());
                    byte[] hello = new byte[52];
                    in.readFully(hello);
                    assertThat(hello[51]).isZero();
                    String text = new String(hello, 0, 51, StandardCharsets.US_ASCII);
                    assertThat(text).matches(WIRE_MESSAGE).endsWith(":00000000000000000000ffff7f000003");
                    byte[] reply = new byte[52];
                    byte[] r = "0000:000042:00abcd:00000000000000000000ffff7f0000fe".getBytes(StandardCharsets.US_ASCII);
                    System.arraycopy(r, 0, reply, 0, r.length);
                    sock.getOutputStream().write(reply);
                    byte[] done = new byte[5];
                    in.readFully(done);
                    assertThat(new String(done, StandardCharsets.US_ASCII)).isEqualTo("done\0");
                    assertThat(in.read()).as("nothing after done; the client closes").isEqualTo(-1);
                }
                assertThat(c.awaitLine("  remote address: LID 0x0000, QPN 0x000042, PSN 0x00abcd, GID ::ffff:127.0.0.254",
                    30, TimeUnit.SECONDS)).as(c.output()).isTrue();
                // no QP answers at 127.0.0.254; with retry_cnt 7, which rxe (and jrxe) treat as infinite,
                // the client would retry forever, as ibv_rc_pingpong on rxe does: closing kills it
            }
        }
    }

    private static Socket connect(int port) throws IOException, InterruptedException {
        for (int i = 0; ; i++) {
            try {
                return new Socket(SERVER_IP, port); // the server listens on its --ip only
            } catch (IOException e) {
                if (i > 100) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
