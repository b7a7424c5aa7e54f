package dev.jrxe.wire;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Tag;

/**
 * Jazzer: arbitrary datagrams into the receive path. Input layout: byte 0 bit 0 = give the
 * datagram a valid ICRC first (so mutations reach the structural checks), bytes 1-2 = the IPv4
 * ID to seal with, the rest = the datagram. Seeds (real rxe packets of every captured opcode) are
 * in src/test/resources/dev/jrxe/wire/RxDecoderFuzzTestInputs.
 */
@Tag("fuzz")
class RxDecoderFuzzTest {
    private static final DecoderHarness HARNESS = new DecoderHarness();

    @FuzzTest(maxDuration = "60s")
    void shouldAccountForEveryDatagram(byte[] input) {
        if (input.length < 3) {
            return;
        }
        byte[] datagram = java.util.Arrays.copyOfRange(input, 3, input.length);
        boolean seal = (input[0] & 1) != 0;
        int ipId = ((input[1] & 0xFF) << 8) | (input[2] & 0xFF);
        HARNESS.offer(datagram, datagram.length, seal, ipId);
        HARNESS.checkAccounting();
    }
}
