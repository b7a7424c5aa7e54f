package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A peer that dies mid-stream ({@code kill -9} of the receiving JVM): the sender, with rc-stream's
 * defaults (timeout 14, retry_cnt 7), ends the oldest outstanding SEND with RETRY_EXC_ERR, flushes
 * every other one and exits 1 instead of waiting forever.
 */
class RcStreamProcessTest {
    private static final Pattern FAILED = Pattern.compile("rc-stream: message (\\d+) failed: "
        + "transport retry counter exceeded \\(RETRY_EXC_ERR\\), "
        + "(\\d+) ms after the last progress \\(timeout 14 and retry_cnt 7 promise 536 ms\\); (\\d+) posted, "
        + "(\\d+) acknowledged, (\\d+) more flushed");

    @Test
    void shouldFailItsOutstandingSendsWhenThePeerIsKilled() throws Exception {
        String tcp = Integer.toString(FreePorts.tcp());
        String udp = Integer.toString(FreePorts.udp("127.0.0.2", "127.0.0.3"));
        try (ToolProcess receiver = ToolProcess.start("rc-stream", "--ip", "127.0.0.2", "-p", tcp, "--udp-port", udp,
                "-n", "1000000000")) {
            assertThat(receiver.awaitLine("rc-stream: receiving", 60, TimeUnit.SECONDS)).as(receiver.output()).isTrue();
            try (ToolProcess sender = ToolProcess.start("rc-stream", "--ip", "127.0.0.3", "-p", tcp, "--udp-port", udp,
                    "-n", "1000000000", "127.0.0.2")) {
                Thread.sleep(3000); // connected and streaming (the exchange takes well under a second)
                assertThat(sender.lines()).as("still streaming").noneMatch(l -> l.contains("failed"));
                receiver.kill();
                int rc = sender.await(120, TimeUnit.SECONDS);
                assertThat(rc).as("sender: %s", sender.output()).isEqualTo(1);
                Matcher m = FAILED.matcher(sender.output());
                assertThat(m.find()).as(sender.output()).isTrue();
                System.out.println("peer killed: " + m.group());
                long failed = Long.parseLong(m.group(1));
                long posted = Long.parseLong(m.group(3));
                long acked = Long.parseLong(m.group(4));
                long flushed = Long.parseLong(m.group(5));
                assertThat(acked).as("it streamed before the kill").isPositive();
                assertThat(failed).isEqualTo(acked);
                assertThat(flushed).isEqualTo(posted - acked - 1);
            }
        }
    }
}
