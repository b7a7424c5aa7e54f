package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
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

    /** Runs server and client with the same options; returns {server output, client output}. */
    private static List<String> pingPong(String... options) throws Exception {
        return RcPingpongProcessTest.pingPong(TIMEOUT_SECONDS, options).stream()
            .map(lines -> String.join("\n", lines)).toList();
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
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        // a usage error: one line, exit status 2 (issue 17)
        assertThat(cl.execute("rc-pingpong", "-P", "--ip", CLIENT_IP)).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).contains("prefetch is valid only with on-demand memory region");
    }
}
