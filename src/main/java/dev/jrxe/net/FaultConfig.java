package dev.jrxe.net;

import java.util.Locale;

/**
 * Fault injection settings for one direction of a link. Probabilities are per datagram and
 * independent; a dropped datagram suffers no other fault.
 *
 * @param drop      probability of dropping a datagram
 * @param duplicate probability of sending (or delivering) a datagram twice
 * @param reorder   probability of holding a datagram back until {@code depth} later ones passed
 * @param depth     how many later datagrams overtake a held-back one (at least 1)
 * @param corrupt   probability of flipping one random bit of the UDP payload
 * @param seed      seed of the random sequence, so a run can be repeated exactly
 */
public record FaultConfig(double drop, double duplicate, double reorder, int depth, double corrupt, long seed) {
    /** No faults. */
    public static final FaultConfig NONE = new FaultConfig(0, 0, 0, 1, 0, 0);

    public FaultConfig {
        checkProbability("drop", drop);
        checkProbability("duplicate", duplicate);
        checkProbability("reorder", reorder);
        checkProbability("corrupt", corrupt);
        if (depth < 1) {
            throw new IllegalArgumentException("reorder depth must be >= 1: " + depth);
        }
    }

    private static void checkProbability(String name, double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(name + " probability must be in [0, 1]: " + p);
        }
    }

    /** True when any fault has a non-zero probability. */
    public boolean enabled() {
        return drop > 0 || duplicate > 0 || reorder > 0 || corrupt > 0;
    }

    public FaultConfig withDrop(double p) {
        return new FaultConfig(p, duplicate, reorder, depth, corrupt, seed);
    }

    public FaultConfig withDuplicate(double p) {
        return new FaultConfig(drop, p, reorder, depth, corrupt, seed);
    }

    public FaultConfig withReorder(double p, int newDepth) {
        return new FaultConfig(drop, duplicate, p, newDepth, corrupt, seed);
    }

    public FaultConfig withCorrupt(double p) {
        return new FaultConfig(drop, duplicate, reorder, depth, p, seed);
    }

    public FaultConfig withSeed(long newSeed) {
        return new FaultConfig(drop, duplicate, reorder, depth, corrupt, newSeed);
    }

    /**
     * Parses {@code "drop=0.01,duplicate=0.001,reorder=0.02,depth=3,corrupt=0.001,seed=42"}; keys
     * may be left out (default 0, depth 1) and {@code dup} is short for {@code duplicate}. An empty
     * or blank string gives {@link #NONE}.
     */
    public static FaultConfig parse(String spec) {
        FaultConfig c = NONE;
        if (spec == null || spec.isBlank()) {
            return c;
        }
        for (String part : spec.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("fault setting without '=': " + p);
            }
            String key = p.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = p.substring(eq + 1).trim();
            c = switch (key) {
                case "drop" -> c.withDrop(Double.parseDouble(value));
                case "duplicate", "dup" -> c.withDuplicate(Double.parseDouble(value));
                case "reorder" -> c.withReorder(Double.parseDouble(value), c.depth);
                case "depth" -> c.withReorder(c.reorder, Integer.parseInt(value));
                case "corrupt" -> c.withCorrupt(Double.parseDouble(value));
                case "seed" -> c.withSeed(Long.parseLong(value));
                default -> throw new IllegalArgumentException("unknown fault setting: " + key);
            };
        }
        return c;
    }
}
