package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code jrxe bench mkey}: three targets, WRITE and SEND, each with its ratio to the plain region. */
class BenchMkeyCommandTest {
    @Test
    void shouldReportWriteAndSendThroughBothKeysAsRatiosOfThePlainRegion() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int port = FreePorts.udp("127.0.0.2", "127.0.0.3");
        int rc = cl.execute("bench", "mkey", "--messages", "300", "--rounds", "1", "--udp-port", Integer.toString(port));
        assertThat(rc).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("target             WRITE GB/s    ratio    SEND GB/s    ratio");
        assertThat(out.toString()).containsPattern("plain MR +[0-9.]+ +100% +[0-9.]+ +100%");
        assertThat(out.toString()).containsPattern("interleaved key +[0-9.]+ +[0-9]+% +[0-9.]+ +[0-9]+%");
        assertThat(out.toString()).containsPattern("list key +[0-9.]+ +[0-9]+% +[0-9.]+ +[0-9]+%");
    }

    @Test
    void shouldRejectSizesThatAreNotMultiplesOf16KiB() {
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("bench", "mkey", "--size", "1000")).isEqualTo(2);
        assertThat(err.toString()).contains("--size must be a multiple of 16384: 1000");
    }
}
