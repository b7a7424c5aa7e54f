package dev.jrxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PsnTest {
    @Test
    void shouldWrapAroundAt24Bits() {
        assertThat(Psn.next(0xFFFFFF)).isZero();
        assertThat(Psn.add(0xFFFFFE, 3)).isEqualTo(1);
        assertThat(Psn.add(1, -2)).isEqualTo(0xFFFFFF);
        assertThat(Psn.add(5, 1 << 24)).isEqualTo(5);
    }

    @Test
    void shouldCompareAcrossTheWrap() {
        assertThat(Psn.diff(0, 0xFFFFFF)).isEqualTo(1);
        assertThat(Psn.diff(0xFFFFFF, 0)).isEqualTo(-1);
        assertThat(Psn.isAfter(2, 0xFFFFF0)).isTrue();
        assertThat(Psn.isBefore(0xFFFFF0, 2)).isTrue();
        assertThat(Psn.compare(7, 7)).isZero();
        assertThat(Psn.diff(Psn.HALF - 1, 0)).isEqualTo(Psn.HALF - 1);
        assertThat(Psn.diff(Psn.HALF, 0)).as("half way is behind").isEqualTo(-Psn.HALF);
    }

    @Test
    void shouldReturnTheDistanceAddWasGiven() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 100_000; i++) {
            int psn = random.nextInt(1 << 24);
            int n = random.nextInt(-Psn.HALF, Psn.HALF);
            int later = Psn.add(psn, n);
            assertThat(Psn.isValid(later)).isTrue();
            assertThat(Psn.diff(later, psn)).isEqualTo(n);
            assertThat(Psn.compare(later, psn)).isEqualTo(Integer.signum(n));
        }
    }

    @Test
    void shouldMaskQpns() {
        assertThat(Qpn.mask(0x12345678)).isEqualTo(0x345678);
        assertThat(Qpn.isValid(0xFFFFFF)).isTrue();
        assertThat(Qpn.isValid(0x1000000)).isFalse();
        assertThat(Psn.isValid(-1)).isFalse();
    }
}
