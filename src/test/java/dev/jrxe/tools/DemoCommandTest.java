package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.transport.TransportCounters;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code jrxe demo} in process, on a UDP port of its own and with fewer round trips. */
class DemoCommandTest {
    @Test
    void shouldRunEveryOperationAndPrintBothDevicesCounters() throws Exception {
        int udp = FreePorts.udp("127.0.0.2", "127.0.0.3");
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new PrintWriter(out, true));
        int rc = cl.execute("demo", "--udp-port", Integer.toString(udp), "-n", "50");
        String text = out.toString();
        assertThat(rc).as(text).isZero();
        List<String> lines = text.lines().toList();
        assertThat(lines).as(text).containsSubsequence(
            "jrxe demo: jrxe0@127.0.0.2:" + udp + " and jrxe1@127.0.0.3:" + udp + ", RoCEv2 over UDP port " + udp,
            "RDMA WRITE: 4096 bytes into jrxe1's memory, checked",
            "RDMA READ: 4096 bytes from jrxe1's memory, checked",
            "ATOMIC FETCH_ADD 40+2: returned 40, memory 42; CMP_SWP 42->4242: returned 42, memory 4242: ok",
            "counters of jrxe0:",
            "counters of jrxe1:",
            "demo: all checks passed");
        assertThat(lines).anyMatch(l -> l.matches("RC connected: jrxe0 QPN 0x[0-9a-f]{6} <-> jrxe1 QPN 0x[0-9a-f]{6}, "
            + "path MTU \\d+"));
        assertThat(lines).anyMatch(l -> l.matches(
            "SEND ping-pong: 50 round trips of 4096 bytes, every byte checked: \\d+\\.\\d\\d usec/round trip"));
        String jrxe1 = text.substring(text.indexOf("counters of jrxe1:"));
        String jrxe0 = text.substring(text.indexOf("counters of jrxe0:"), text.indexOf("counters of jrxe1:"));
        for (String section : List.of(jrxe0, jrxe1)) {
            for (int i = 0; i < TransportCounters.count(); i++) {
                assertThat(section).containsPattern("\n  " + TransportCounters.name(i) + " +\\d+\n");
            }
            assertThat(section).containsPattern("\n  link: tx \\d+ pkts / \\d+ bytes, rx \\d+ pkts / \\d+ bytes");
            // each side sent 50 SENDs and received 50; retransmissions do not count as new messages
            assertThat(section).containsPattern("\n  rdma_sends +50\n").containsPattern("\n  rdma_recvs +50\n");
        }
    }

    @Test
    void shouldWriteAFlightRecordingWithJrxeEventsWhenAskedTo() throws Exception {
        int udp = FreePorts.udp("127.0.0.2", "127.0.0.3");
        java.nio.file.Path file = java.nio.file.Files.createTempFile("demo", ".jfr");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute("demo", "--udp-port", Integer.toString(udp), "-n", "20", "--jfr", file.toString());
        assertThat(rc).as(out.toString()).isZero();
        assertThat(err.toString()).contains("jfr: recording written to " + file);
        List<jdk.jfr.consumer.RecordedEvent> states = jdk.jfr.consumer.RecordingFile.readAllEvents(file).stream()
            .filter(e -> e.getEventType().getName().equals("dev.jrxe.QpState")).toList();
        java.nio.file.Files.delete(file);
        assertThat(states).extracting(e -> e.getString("device") + " " + e.getString("to"))
            .contains("jrxe0 INIT", "jrxe0 RTR", "jrxe0 RTS", "jrxe1 INIT", "jrxe1 RTR", "jrxe1 RTS");
    }
}
