package dev.jrxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.net.DropReason;
import dev.jrxe.wire.PcapReader.Datagram;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seeded, bounded counterpart of {@link RxDecoderFuzzTest} that runs with the normal tests: real
 * rxe packets, bit flips, cuts, extensions, random opcodes and pad counts, random bytes; half of
 * them re-sealed with a valid ICRC.
 */
class RxDecoderRandomizedTest {
    private static final int ITERATIONS = 200_000;

    @Test
    void shouldAccountForEveryMutatedDatagram() throws Exception {
        List<byte[]> seeds = new ArrayList<>();
        for (String capture : new String[] {"12_ib_atomic_bw_cas", "14_rping", "08_ib_write_lat", "10_ib_read_lat",
            "05_ud_pingpong", "17_rc_pingpong_loss10"}) {
            for (Datagram d : PcapReader.read(Goldens.CAPTURES.resolve(capture + ".pcap"))) {
                seeds.add(d.payload());
            }
        }
        SplittableRandom random = new SplittableRandom(0x5EED);
        DecoderHarness harness = new DecoderHarness();
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] packet = mutate(seeds.get(random.nextInt(seeds.size())), random);
            harness.offer(packet, packet.length, random.nextBoolean(), random.nextInt(1 << 16));
        }
        harness.checkAccounting();
        assertThat(harness.decoder.offered()).isEqualTo(ITERATIONS);
        // the mutations reach every branch of the decoder
        assertThat(harness.decoder.accepted()).isPositive();
        for (DropReason r : new DropReason[] {DropReason.TRUNCATED, DropReason.BAD_ICRC, DropReason.UNKNOWN_OPCODE,
            DropReason.BAD_VERSION, DropReason.OVERSIZED}) {
            assertThat(harness.counters.drops(r)).as(r.name()).isPositive();
        }
    }

    private static byte[] mutate(byte[] seed, SplittableRandom r) {
        byte[] p;
        switch (r.nextInt(8)) {
            case 0 -> { // random bytes of random length
                p = new byte[r.nextInt(0, 200)];
                r.nextBytes(p);
            }
            case 1 -> p = java.util.Arrays.copyOf(seed, r.nextInt(seed.length + 1)); // cut
            case 2 -> p = java.util.Arrays.copyOf(seed, seed.length + r.nextInt(1, 5000)); // extend
            case 3 -> { // another opcode
                p = seed.clone();
                p[0] = (byte) r.nextInt(256);
            }
            case 4 -> { // TVer / pad / SE / M bits
                p = seed.clone();
                p[1] = (byte) r.nextInt(256);
            }
            default -> { // flip a few bits anywhere
                p = seed.clone();
                for (int k = r.nextInt(1, 4); k > 0; k--) {
                    int bit = r.nextInt(p.length * 8);
                    p[bit / 8] ^= (byte) (1 << (bit % 8));
                }
            }
        }
        return p;
    }
}
