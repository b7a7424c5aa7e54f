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
 * @param index          this engine's index among its device's engines (0 for a device of one)
 * @param engines        how many engines the device runs: engine {@code index} owns the QPNs with
 *                       {@code qpn % engines == index}, as the kernel steers them ({@code net.QpSteering})
 */
public record EngineOptions(boolean progressThread, LongSupplier clock, long seed, EngineTuning tuning,
                            int index, int engines) {
    /** A progress thread, the system clock, unpredictable QPNs, the tuning of {@code Configuration}. */
    public static final EngineOptions DEFAULT = new EngineOptions(true, System::nanoTime, 0);

    public EngineOptions {
        if (clock == null) {
            throw new IllegalArgumentException("an engine needs a clock");
        }
        if (tuning == null) {
            throw new IllegalArgumentException("an engine needs its tuning");
        }
        if (engines < 1 || index < 0 || index >= engines) {
            throw new IllegalArgumentException("engine " + index + " of " + engines);
        }
    }

    /** Engine 0 of a device of one engine. */
    public EngineOptions(boolean progressThread, LongSupplier clock, long seed, EngineTuning tuning) {
        this(progressThread, clock, seed, tuning, 0, 1);
    }

    /** These options for engine {@code i} of {@code k}. */
    public EngineOptions engine(int i, int k) {
        return new EngineOptions(progressThread, clock, seed, tuning, i, k);
    }

    /** With the tuning of {@code Configuration} (system properties, else defaults). */
    public EngineOptions(boolean progressThread, LongSupplier clock, long seed) {
        this(progressThread, clock, seed, EngineTuning.fromConfiguration());
    }
}
