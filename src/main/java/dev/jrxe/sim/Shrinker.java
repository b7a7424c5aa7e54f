package dev.jrxe.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Reduces a failing run's fault schedule to a short one that still fails: delta debugging (Zeller's
 * ddmin) over the list of faults, each test a replay of the seed with a scripted plan. What is left
 * is 1-minimal: taking out any one fault makes the run pass.
 */
public final class Shrinker {
    private Shrinker() {
    }

    /** The shortest schedule found that still fails for {@code seed}; counts replays in {@code runs[0]}. */
    public static List<Fault> shrink(long seed, Simulation.Settings settings, List<Fault> faults, int[] runs) {
        return ddmin(faults, candidate -> {
            runs[0]++;
            return !Simulation.run(seed, FaultPlan.scripted(candidate), settings).passed();
        });
    }

    /** ddmin: a 1-minimal sublist of {@code items} for which {@code fails} holds (it holds for {@code items}). */
    public static <T> List<T> ddmin(List<T> items, Predicate<List<T>> fails) {
        List<T> current = new ArrayList<>(items);
        if (current.isEmpty() || fails.test(List.of())) {
            return List.of();
        }
        int n = 2;
        while (current.size() >= 2) {
            List<List<T>> chunks = split(current, n);
            boolean reduced = false;
            for (List<T> chunk : chunks) {
                if (fails.test(chunk)) {
                    current = chunk;
                    n = 2;
                    reduced = true;
                    break;
                }
            }
            if (!reduced) {
                for (List<T> chunk : chunks) {
                    List<T> rest = new ArrayList<>(current);
                    rest.removeAll(chunk);
                    if (fails.test(rest)) {
                        current = rest;
                        n = Math.max(n - 1, 2);
                        reduced = true;
                        break;
                    }
                }
            }
            if (!reduced) {
                if (n >= current.size()) {
                    break;
                }
                n = Math.min(current.size(), 2 * n);
            }
        }
        return current;
    }

    private static <T> List<List<T>> split(List<T> items, int n) {
        List<List<T>> chunks = new ArrayList<>(n);
        int size = items.size();
        int start = 0;
        for (int i = 0; i < n; i++) {
            int end = start + (size - start) / (n - i);
            chunks.add(new ArrayList<>(items.subList(start, end)));
            start = end;
        }
        return chunks;
    }
}
