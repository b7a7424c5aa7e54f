package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code jrxe bench srd}: RC and SRD on a clean and a faulty link, each row with its ratios to RC's. */
class BenchSrdCommandTest {
    @Test
    void shouldReportRcAndSrdOnBothLinksAsRatiosToRc() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int rc = cl.execute("bench", "srd", "--messages", "400", "--warmup", "0", "--drop", "0.02");
        assertThat(rc).as(out + "\n" + err).isZero();
        String o = out.toString();
        assertThat(o).contains("link        p50 us     p99 us   p99.9 us       msgs/s    p99/RC   rate/RC  pkts again");
        assertThat(o).containsPattern("RC +clean( +[0-9.]+){4} +1\\.00 +1\\.00 +[0-9]+\n");
        assertThat(o).containsPattern("SRD +clean( +[0-9.]+){6} +[0-9]+\n");
        assertThat(o).containsPattern("RC +faulty( +[0-9.]+){4} +1\\.00 +1\\.00 +[1-9][0-9]*\n");
        assertThat(o).containsPattern("SRD +faulty( +[0-9.]+){6} +[1-9][0-9]*\n");
    }

    @Test
    void shouldRefuseAMessageLargerThanTheMtu() {
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        assertThat(cl.execute("bench", "srd", "--size", "2048")).isEqualTo(2);
        assertThat(err.toString()).contains("--size must be at most the MTU 1024: 2048");
    }
}
