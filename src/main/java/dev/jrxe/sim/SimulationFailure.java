package dev.jrxe.sim;

/** The oracle saw something that must not happen (or the run stopped making progress). */
public final class SimulationFailure extends RuntimeException {
    public SimulationFailure(String message) {
        super(message);
    }
}
