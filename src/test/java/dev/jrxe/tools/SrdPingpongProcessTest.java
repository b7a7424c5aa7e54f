package dev.jrxe.tools;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code jrxe srd-pingpong} between two JVMs, server on 127.0.0.2 and client on 127.0.0.3. */
class SrdPingpongProcessTest {
    @Test
    void shouldPingPongBetweenTwoProcessesWithChk() throws Exception {
        List<List<String>> out = PingpongHarness.twoProcesses("srd-pingpong", "-c", "-n", "100");
        PingpongHarness.assertPaired(out, 1, ':', 1024, 100);
    }
}
