package dev.jrxe.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Decides the faults of each datagram. {@link #random} draws them with fixed probabilities from a
 * seed and records what it drew; {@link #scripted} replays a given list (the replay of a failing
 * run, or a shrunk one). Either way {@link #faults()} lists what happened, so a run's fault schedule
 * is explicit.
 */
public abstract class FaultPlan {
    private final List<Fault> applied = new ArrayList<>();

    /** The faults for datagram {@code seq} of {@code length} bytes (none: an empty list). */
    final List<Fault> decide(long seq, int length) {
        List<Fault> f = draw(seq, length);
        applied.addAll(f);
        return f;
    }

    abstract List<Fault> draw(long seq, int length);

    /** Every fault applied so far, in datagram order. */
    public List<Fault> faults() {
        return Collections.unmodifiableList(applied);
    }

    /** Probabilities per datagram; a dropped datagram suffers nothing else. */
    public record Rates(double drop, double duplicate, double delay, double corrupt) {
        public static final Rates NONE = new Rates(0, 0, 0, 0);

        /** Rates for a seed: some runs clean, most with a few percent of each fault. */
        public static Rates forSeed(long seed) {
            SplittableRandom r = new SplittableRandom(seed ^ 0x6A09E667F3BCC909L);
            if (r.nextInt(8) == 0) {
                return NONE;
            }
            return new Rates(r.nextDouble() * 0.08, r.nextDouble() * 0.03, r.nextDouble() * 0.05,
                r.nextDouble() * 0.01);
        }
    }

    public static FaultPlan random(long seed, Rates rates) {
        SplittableRandom r = new SplittableRandom(seed);
        return new FaultPlan() {
            @Override
            List<Fault> draw(long seq, int length) {
                if (r.nextDouble() < rates.drop()) {
                    return List.of(new Fault(seq, Fault.DROP, 0));
                }
                List<Fault> f = new ArrayList<>(0);
                if (r.nextDouble() < rates.duplicate()) {
                    f.add(new Fault(seq, Fault.DUPLICATE, 0));
                }
                if (r.nextDouble() < rates.delay()) {
                    f.add(new Fault(seq, Fault.DELAY, 1_000 + r.nextLong(400_000)));
                }
                if (r.nextDouble() < rates.corrupt()) {
                    f.add(new Fault(seq, Fault.CORRUPT, r.nextLong(8L * length)));
                }
                return f;
            }
        };
    }

    public static FaultPlan scripted(List<Fault> faults) {
        TreeMap<Long, List<Fault>> bySeq = new TreeMap<>();
        for (Fault f : faults) {
            bySeq.computeIfAbsent(f.seq(), k -> new ArrayList<>()).add(f);
        }
        return new FaultPlan() {
            @Override
            List<Fault> draw(long seq, int length) {
                List<Fault> f = bySeq.get(seq);
                if (f == null) {
                    return List.of();
                }
                List<Fault> fit = new ArrayList<>(f.size());
                for (Fault x : f) {
                    // a replayed schedule may meet a shorter datagram than the one it was made for
                    fit.add(x.kind() == Fault.CORRUPT ? new Fault(seq, x.kind(), x.value() % (8L * length)) : x);
                }
                return fit;
            }
        };
    }
}
