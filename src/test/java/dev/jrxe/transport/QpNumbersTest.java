package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class QpNumbersTest {
    @Test
    void shouldMapSlotsOneToOneOntoQpnsThatAreNotReserved() {
        QpNumbers n = new QpNumbers(42);
        Set<Integer> seen = new HashSet<>();
        for (int slot = 1; slot <= 200_000; slot++) {
            int qpn = n.qpn(slot);
            assertThat(qpn).isBetween(QpNumbers.FIRST_QPN, QpNumbers.MULTICAST_QPN - 1);
            assertThat(seen.add(qpn)).as("slot %d", slot).isTrue();
            assertThat(n.slot(qpn)).isEqualTo(slot);
        }
        for (int reserved : new int[] {0, 1, 0x10, 0xFFFFFF, 0x1000000, -1}) {
            assertThat(n.slot(reserved)).isEqualTo(-1);
        }
    }

    @Test
    void shouldGiveEachEngineItsOwnUnpredictableNumbers() {
        int same = 0;
        for (int i = 0; i < 64; i++) {
            QpNumbers a = new QpNumbers();
            QpNumbers b = new QpNumbers();
            if (a.qpn(1) == b.qpn(1)) {
                same++;
            }
        }
        // two random permutations agree on slot 1 with probability 2^-24 each time
        assertThat(same).isZero();
        // and the first QPNs are not the sequence rxe would hand out
        QpNumbers n = new QpNumbers();
        assertThat(n.qpn(2) - n.qpn(1)).isNotEqualTo(1);
    }

    @Test
    void shouldKeepEveryQpnOfAnEngineInItsClassModuloTheEngineCount() {
        for (int k : new int[] {2, 3, 4, 16}) {
            Set<Integer> all = new HashSet<>();
            for (int r = 0; r < k; r++) {
                QpNumbers n = new QpNumbers(r, k, 7);
                for (int slot = 1; slot <= 20_000; slot++) {
                    int qpn = n.qpn(slot);
                    assertThat(qpn % k).as("K=%d engine %d slot %d", k, r, slot).isEqualTo(r);
                    assertThat(qpn).isBetween(QpNumbers.FIRST_QPN, QpNumbers.MULTICAST_QPN - 1);
                    assertThat(n.slot(qpn)).isEqualTo(slot);
                    // no two engines of a device ever hand out the same QPN
                    assertThat(all.add(qpn)).isTrue();
                    // another engine's QPN is not a slot here (the lookup then finds no QP)
                    assertThat(n.slot(qpn + 1 == QpNumbers.MULTICAST_QPN ? qpn - 1 : qpn + 1)).isEqualTo(-1);
                }
                // the last fresh slot still maps inside the QPN space
                int last = (1 << 20) - 16;
                assertThat(n.slot(n.qpn(last))).isEqualTo(last);
                assertThat(n.qpn(last) % k).isEqualTo(r);
            }
        }
    }

    @Test
    void shouldNumberAsBeforeWithOneEngine() {
        QpNumbers one = new QpNumbers(0, 1, 42);
        QpNumbers before = new QpNumbers(42);
        for (int slot = 1; slot <= 1000; slot++) {
            assertThat(one.qpn(slot)).isEqualTo(before.qpn(slot));
        }
    }
}
