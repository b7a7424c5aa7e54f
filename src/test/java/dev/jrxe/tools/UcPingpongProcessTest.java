package dev.jrxe.tools;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code jrxe uc-pingpong} between two JVMs, server on 127.0.0.2 and client on 127.0.0.3. */
class UcPingpongProcessTest {
    @Test
    void shouldPingPongBetweenTwoProcessesWithChkAndEvents() throws Exception {
        List<List<String>> out = PingpongHarness.twoProcesses("uc-pingpong", "-c", "-e", "-n", "100");
        PingpongHarness.assertPaired(out, 1, ',', 4096, 100);
    }
}
