package dev.jrxe.transport;

import java.util.function.LongSupplier;

/**
 * How an {@link Engine} runs: the seams through which a simulation drives the same code as
 * production. Production uses {@link #DEFAULT}.
 *
 * @param progressThread whether a background thread serves the device; without one, the engine
 *                       runs only when its caller drives it ({@link Engine#runDutyCycle})
 * @param clock          the nanosecond clock every timer reads (ACK timeout, RNR wait, ACK hold,
 *                       housekeeping); a simulation gives a virtual one
 * @param seed           seed of the QPN permutation; 0: unpredictable ({@code SecureRandom})
 * @param tuning         the engine's timings and limits (ACK hold, progress thread, SRD)
 */
public record EngineOptions(boolean progressThread, LongSupplier clock, long seed, EngineTuning tuning) {
    /** A progress thread, the system clock, unpredictable QPNs, the tuning of {@code Configuration}. */
    public static final EngineOptions DEFAULT = new EngineOptions(true, System::nanoTime, 0);

    public EngineOptions {
        if (clock == null) {
            throw new IllegalArgumentException("an engine needs a clock");
        }
        if (tuning == null) {
            throw new IllegalArgumentException("an engine needs its tuning");
        }
    }

    /** With the tuning of {@code Configuration} (system properties, else defaults). */
    public EngineOptions(boolean progressThread, LongSupplier clock, long seed) {
        this(progressThread, clock, seed, EngineTuning.fromConfiguration());
    }
}
