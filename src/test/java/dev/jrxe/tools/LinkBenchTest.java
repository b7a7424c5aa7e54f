package dev.jrxe.tools;


import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LinkBenchTest {
    @Test
    void shouldMeasureEveryPathAgainstAReceiverProcess() throws Exception {
        LinkBench.Options o = LinkBench.Options.defaults().withWarmup(Duration.ofMillis(500))
                .withDuration(Duration.ofMillis(1000)).withCrc(true);
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        List<LinkBench.Result> results = LinkBench.run(o, new PrintStream(text, true, StandardCharsets.UTF_8));
        assertThat(results).extracting(LinkBench.Result::path).containsExactly("RAW", "CHANNEL", "MMSG", "GSO");
        for (LinkBench.Result r : results) {
            assertThat(r.datagram()).isEqualTo(4112);
            assertThat(r.sent()).isPositive();
            assertThat(r.received()).isPositive().isLessThanOrEqualTo(r.sent() + 10_000);
            assertThat(r.receivedBytes()).isEqualTo(r.received() * 4112);
            assertThat(r.gigabytesPerSecond()).isPositive();
        }
        // the batched paths move many datagrams per send call
        assertThat(results.get(2).txCalls()).isLessThan(results.get(2).sent() / 10);
        assertThat(results.get(3).txCalls()).isLessThan(results.get(3).sent() / 10);
        String out = text.toString(StandardCharsets.UTF_8);
        assertThat(out).contains("GB/s").contains("vs RAW").contains("GSO");
    }
}
