package dev.jrxe.transport;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;

/**
 * Jazzer: arbitrary packet sequences from a connected peer into a live engine with registered
 * memory (see {@link LiveEngineHarness} for the input's meaning and the invariants: no byte
 * changes outside what a peer may write, no READ response carries a byte it may not read, no
 * exception escapes the transport).
 */
@Tag("fuzz")
class LiveEngineFuzzTest {
    private static final LiveEngineHarness HARNESS = new LiveEngineHarness();

    @FuzzTest(maxDuration = "60s")
    void shouldKeepEveryPeerInsideItsKeys(byte[] input) {
        HARNESS.run(input);
    }

    @AfterAll
    static void close() {
        HARNESS.close();
    }
}
