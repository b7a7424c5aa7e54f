package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The live-engine fuzz harness on seeded random inputs in the ordinary suite (the Jazzer run
 * explores from there in its own execution): 3,000 inputs of up to 48 packets each.
 */
class LiveEngineRandomizedTest {
    @Test
    void shouldKeepEveryPeerInsideItsKeysOnRandomInputs() {
        SplittableRandom random = new SplittableRandom(0x5EC0);
        try (LiveEngineHarness h = new LiveEngineHarness()) {
            for (int i = 0; i < 3000; i++) {
                byte[] input = new byte[64 + random.nextInt(1024)];
                random.nextBytes(input);
                h.run(input);
            }
            assertThat(h.inputs).isEqualTo(3000);
            assertThat(h.packets).isGreaterThan(3000 * 10);
            assertThat(h.accepted()).as("packets that reached a QP's responder or completer").isGreaterThan(3000 * 5);
        }
    }
}
