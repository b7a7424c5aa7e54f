package dev.jrxe.net;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Decides, datagram by datagram, which faults of a {@link FaultConfig} hit it, from a seeded
 * random sequence (the same seed and traffic give the same faults), and counts what it did.
 * A link only creates one when the config is {@link FaultConfig#enabled() enabled}, so the
 * disabled case costs one null check.
 */
public final class FaultInjector {
    /** No fault. */
    public static final int PASS = 0;
    public static final int DROP = 1;
    public static final int DUPLICATE = 2;
    public static final int DELAY = 4;
    public static final int CORRUPT = 8;

    private final FaultConfig config;
    private final SplittableRandom random;
    private long decided;
    private long dropped;
    private long duplicated;
    private long delayed;
    private long corrupted;

    public FaultInjector(FaultConfig config) {
        this.config = config;
        this.random = new SplittableRandom(config.seed());
    }

    public FaultConfig config() {
        return config;
    }

    /**
     * The faults for the next datagram: {@link #PASS}, {@link #DROP} alone, or any of
     * {@link #DUPLICATE}, {@link #DELAY}, {@link #CORRUPT}. Counts them.
     */
    public int decide() {
        decided++;
        if (config.drop() > 0 && random.nextDouble() < config.drop()) {
            dropped++;
            return DROP;
        }
        int faults = PASS;
        if (config.duplicate() > 0 && random.nextDouble() < config.duplicate()) {
            faults |= DUPLICATE;
            duplicated++;
        }
        if (config.reorder() > 0 && random.nextDouble() < config.reorder()) {
            faults |= DELAY;
            delayed++;
        }
        if (config.corrupt() > 0 && random.nextDouble() < config.corrupt()) {
            faults |= CORRUPT;
            corrupted++;
        }
        return faults;
    }

    /** Takes back a {@link #DELAY} the link could not carry out (no room to hold the datagram). */
    void delayNotDone() {
        delayed--;
    }

    /** Takes back a {@link #DUPLICATE} the link could not carry out. */
    void duplicateNotDone() {
        duplicated--;
    }

    /** How many later datagrams overtake a delayed one. */
    public int depth() {
        return config.depth();
    }

    /** Flips one random bit of {@code length} bytes at {@code offset} (no-op when length is 0). */
    public void corrupt(MemorySegment buf, long offset, int length) {
        if (length <= 0) {
            return;
        }
        long bit = random.nextLong((long) length * 8);
        long at = offset + (bit >>> 3);
        buf.set(JAVA_BYTE, at, (byte) (buf.get(JAVA_BYTE, at) ^ (1 << (bit & 7))));
    }

    /** Datagrams decided on. */
    public long decided() {
        return decided;
    }

    public long dropped() {
        return dropped;
    }

    public long duplicated() {
        return duplicated;
    }

    public long delayed() {
        return delayed;
    }

    public long corrupted() {
        return corrupted;
    }

    @Override
    public String toString() {
        return "decided " + decided + ", dropped " + dropped + ", duplicated " + duplicated
                + ", delayed " + delayed + ", corrupted " + corrupted;
    }
}
