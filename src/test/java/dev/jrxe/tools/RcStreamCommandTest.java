package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code jrxe rc-stream} in one JVM: receiver on 127.0.0.2, sender on 127.0.0.3. A stream checks out
 * message by message; a receiver that leaves early is a peer that vanished, and the sender must say
 * so with the status its QP ended in and flush the rest.
 */
class RcStreamCommandTest {
    /** Exit code, stdout and stderr of one run. */
    record Run(int rc, String out, String err) {
    }

    private static Run execute(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new RcStreamCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(args);
        return new Run(rc, out.toString(), err.toString());
    }

    private static Run[] stream(String[] receiver, String[] sender) throws Exception {
        int tcp = FreePorts.tcp();
        int udp = FreePorts.udp("127.0.0.2", "127.0.0.3");
        String[] common = {"-p", Integer.toString(tcp), "--udp-port", Integer.toString(udp)};
        CompletableFuture<Run> r = CompletableFuture.supplyAsync(
            () -> execute(concat(concat(common, "--ip", "127.0.0.2"), receiver)));
        Run s = execute(concat(concat(common, "--ip", "127.0.0.3"), concat(sender, "127.0.0.2")));
        return new Run[] {r.get(120, TimeUnit.SECONDS), s};
    }

    private static String[] concat(String[] a, String... b) {
        String[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Test
    void shouldDeliverEveryMessageOnceInOrderAndIntact() throws Exception {
        Run[] runs = stream(new String[] {"-n", "5000", "-s", "3000"}, new String[] {"-n", "5000", "-s", "3000"});
        assertThat(runs[0].rc()).as("receiver: %s %s", runs[0].out(), runs[0].err()).isZero();
        assertThat(runs[1].rc()).as("sender: %s %s", runs[1].out(), runs[1].err()).isZero();
        assertThat(runs[0].out()).contains("5000 messages: 5000 received, 0 lost, 0 duplicated, 0 out of order, "
            + "0 corrupted");
        assertThat(runs[1].out()).containsPattern("5000 messages of 3000 bytes in \\d+\\.\\d\\d seconds");
    }

    @Test
    void shouldReportRetryExceededAndFlushTheRestWhenThePeerVanishes() throws Exception {
        // the receiver takes 2,000 messages and closes its device: nothing answers any more
        Run[] runs = stream(new String[] {"-n", "2000"},
            new String[] {"-n", "1000000", "-w", "32", "--timeout", "10", "--retry-cnt", "3"});
        assertThat(runs[0].rc()).as("receiver: %s %s", runs[0].out(), runs[0].err()).isZero();
        assertThat(runs[1].rc()).as("sender: %s", runs[1].out()).isEqualTo(1);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("rc-stream: message (\\d+) failed: "
            + "transport retry counter exceeded \\(RETRY_EXC_ERR\\), \\d+ ms after the last progress "
            + "\\(timeout 10 and retry_cnt 3 promise 16 ms\\); "
            + "(\\d+) posted, (\\d+) acknowledged, (\\d+) more flushed").matcher(runs[1].err());
        assertThat(m.find()).as(runs[1].err()).isTrue();
        long failed = Long.parseLong(m.group(1));
        long posted = Long.parseLong(m.group(2));
        long acked = Long.parseLong(m.group(3));
        long flushed = Long.parseLong(m.group(4));
        // it took 2,000 (and more into its receive queue); the ACK of the last ones may still have
        // been held for coalescing when it closed its device, and a closed device owes nothing: as
        // in RC anywhere, an error completion says "unknown", not "lost"
        assertThat(acked).as("acknowledged before the receiver left").isGreaterThan(1000);
        assertThat(failed).as("the oldest unacknowledged fails").isEqualTo(acked);
        assertThat(flushed).as("every other posted one is flushed").isEqualTo(posted - acked - 1);
    }

    @Test
    void shouldRefuseOptionsOutOfRange() {
        assertThat(execute("-s", "4").err()).contains("--size must be 8 .. 65536");
        assertThat(execute("-w", "0").err()).contains("--window must be 1 .. 1024");
        assertThat(execute("-m", "1000").err()).contains("'--mtu': 1000 is not an MTU (256, 512, 1024, 2048 or 4096)");
        assertThat(execute("--retry-cnt", "8").err()).contains("--retry-cnt must be 0 .. 7");
        assertThat(execute("-s", "4").rc()).isEqualTo(2);
    }
}
