package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code jrxe rc-pingpong} with ODP memory ({@code -o}, {@code -O}, {@code -P}) between two JVM
 * processes, server on 127.0.0.2 and client on 127.0.0.3, with {@code -c} so that the server checks
 * that the client's data arrived in its (on-demand) receive buffer.
 */
class RcPingpongOdpTest {
    private static final long TIMEOUT_SECONDS = 180;
    private static final String SERVER_IP = "127.0.0.2";
    private static final String CLIENT_IP = "127.0.0.3";
    private static final Pattern BYTES = Pattern.compile("(\\d+) bytes in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d Mbit/sec");
    private static final Pattern ITERS = Pattern.compile("(\\d+) iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter");

    @TempDir
    Path dir;

    /** Runs server and client with the same options; returns {server output, client output}. */
    private List<String> pingPong(String... options) throws Exception {
        int tcp;
        try (ServerSocket s = new ServerSocket(0)) {
            tcp = s.getLocalPort();
        }
        int udp = RegBenchTraffic.freeUdpPort(SERVER_IP, CLIENT_IP);
        List<String> common = new ArrayList<>(List.of("rc-pingpong", "-p", Integer.toString(tcp), "--udp-port",
            Integer.toString(udp)));
        common.addAll(List.of(options));
        List<String> server = new ArrayList<>(common);
        server.addAll(List.of("--ip", SERVER_IP));
        List<String> client = new ArrayList<>(common);
        client.addAll(List.of("--ip", CLIENT_IP, SERVER_IP));
        try (JrxeSubprocess s = JrxeSubprocess.start(dir.resolve("server.out"), server.toArray(String[]::new))) {
            assertThat(s.awaitLine("  local address:", TIMEOUT_SECONDS, TimeUnit.SECONDS))
                .as("server up: %s", s.output()).isTrue();
            try (JrxeSubprocess c = JrxeSubprocess.start(dir.resolve("client.out"), client.toArray(String[]::new))) {
                int clientRc = c.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                int serverRc = s.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertThat(clientRc).as("client exit status, output:%n%s", c.output()).isZero();
                assertThat(serverRc).as("server exit status, output:%n%s", s.output()).isZero();
                return List.of(s.output(), c.output());
            }
        }
    }

    private static void assertResults(String output, int size, int iters) {
        List<String> bytes = output.lines().filter(l -> BYTES.matcher(l).matches()).toList();
        List<String> iterLines = output.lines().filter(l -> ITERS.matcher(l).matches()).toList();
        assertThat(bytes).as(output).hasSize(1);
        assertThat(iterLines).as(output).hasSize(1);
        assertThat(bytes.getFirst()).startsWith((2L * size * iters) + " bytes in ");
        assertThat(iterLines.getFirst()).startsWith(iters + " iters in ");
        assertThat(output).doesNotContain("invalid data", "Couldn't", "Failed");
    }

    @Test
    void shouldPingPongThroughImplicitOdpRegions() throws Exception {
        List<String> out = pingPong("-O", "-c", "-n", "300");
        assertResults(out.get(0), 4096, 300);
        assertResults(out.get(1), 4096, 300);
    }

    @Test
    void shouldPingPongThroughPrefetchedExplicitOdpRegions() throws Exception {
        List<String> out = pingPong("-o", "-P", "-c", "-n", "300");
        assertResults(out.get(0), 4096, 300);
        assertResults(out.get(1), 4096, 300);
        assertThat(String.join("\n", out)).doesNotContain("Couldn't prefetch");
    }

    @Test
    void shouldPingPongMultiPageMessagesThroughPrefetchedImplicitOdp() throws Exception {
        List<String> out = pingPong("-O", "-P", "-c", "-s", "20000", "-m", "4096", "-n", "100");
        assertResults(out.get(0), 20000, 100);
        assertResults(out.get(1), 20000, 100);
        assertThat(String.join("\n", out)).doesNotContain("Couldn't prefetch");
    }

    @Test
    void shouldRefusePrefetchWithoutOnDemandMemory() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        assertThat(cl.execute("rc-pingpong", "-P", "--ip", CLIENT_IP)).isEqualTo(1);
        assertThat(err.toString()).contains("prefetch is valid only with on-demand memory region");
    }
}
