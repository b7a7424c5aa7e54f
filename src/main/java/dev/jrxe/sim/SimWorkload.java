package dev.jrxe.sim;

import dev.jrxe.verbs.Device;
import java.util.List;

/**
 * What the simulation loop drives: a workload on the simulated devices and the oracle that checks
 * it. One implementation per QP type (RC: {@link RcWorkload}); a new QP type's is one new file,
 * listed in {@link #KINDS}, and every seed then runs one of them.
 */
interface SimWorkload {
    /** Creates a workload for one seed on the devices. */
    interface Factory {
        SimWorkload create(long seed, Simulation.Settings settings, Trace trace, SimClock clock, List<Device> devices);
    }

    /** The workloads seeds choose from ({@code seed % KINDS.size()}). */
    List<Factory> KINDS = List.of(RcWorkload::new);

    static SimWorkload forSeed(long seed, Simulation.Settings settings, Trace trace, SimClock clock,
                               List<Device> devices) {
        return KINDS.get((int) Long.remainderUnsigned(seed, KINDS.size())).create(seed, settings, trace, clock, devices);
    }

    /** Posts, polls and checks what is due now. */
    void step();

    /** Everything posted has completed and been checked. */
    boolean done();

    /** The next virtual time it wants to act at, or {@code Long.MAX_VALUE}. */
    long nextAction();

    /** What is still outstanding, for a failure message. */
    String pending();

    /** At the end: memory holds what the model says. Throws {@link SimulationFailure}. */
    void checkMemory();

    /** Completions checked so far. */
    long completions();

    /** QPs broken on purpose and recovered. */
    long breaks();

    /** Closes the verbs objects (before the devices close). */
    void close();

    /** Releases its memory (after the devices closed). */
    void unmap();
}
