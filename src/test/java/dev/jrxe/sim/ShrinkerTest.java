package dev.jrxe.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ShrinkerTest {
    @Test
    void shouldReduceToTheFaultsTheFailureNeeds() {
        List<Integer> all = IntStream.range(0, 1000).boxed().toList();
        int[] tests = {0};
        List<Integer> small = Shrinker.ddmin(all, l -> {
            tests[0]++;
            return l.contains(17) && l.contains(640) && l.contains(641);
        });
        assertThat(small).containsExactly(17, 640, 641);
        assertThat(tests[0]).as("tests ddmin needed").isLessThan(200);
    }

    @Test
    void shouldGiveNothingWhenTheFailureNeedsNoFault() {
        assertThat(Shrinker.ddmin(List.of(1, 2, 3), l -> true)).isEmpty();
    }

    @Test
    void shouldKeepASingleNeededFault() {
        List<Integer> items = new ArrayList<>(IntStream.range(0, 77).boxed().toList());
        assertThat(Shrinker.ddmin(items, l -> l.contains(76))).containsExactly(76);
    }
}
