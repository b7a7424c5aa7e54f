package dev.jrxe.sim;

import dev.jrxe.internal.Internals;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated run: devices on one {@link SimNetwork}, all in this thread on a {@link SimClock},
 * under a {@link SimWorkload}. The loop: the workload acts (posts, polls), then every device runs until
 * none has work and no datagram is due, then the clock jumps to the next thing that will happen (a
 * datagram's arrival, a device's timer, the workload's next action). A run is a function of its seed
 * and its fault plan.
 */
public final class Simulation {
    /**
     * @param devices       devices on the network
     * @param maxQpPairs    QP pairs at most (a seed picks 1..this many)
     * @param operations    work requests posted in all
     * @param maxSize       largest message (SENDs stop at the 256 KiB of a receive buffer)
     * @param timeLimit     virtual nanoseconds after which an unfinished run counts as stuck
     */
    public record Settings(int devices, int maxQpPairs, int operations, long maxSize, long timeLimit) {
        /** What {@code jrxe sim} runs: up to three QP pairs, 60 operations of 0 .. 1 MiB. */
        public static final Settings DEFAULT = new Settings(2, 3, 60, 1 << 20, 120_000_000_000L);
        /** The suite's: up to two QP pairs, 30 operations of 0 .. 64 KiB, so that 2,000 seeds fit in CI. */
        public static final Settings QUICK = new Settings(2, 2, 30, 64 << 10, 120_000_000_000L);
    }

    /**
     * @param seed        the seed
     * @param failure     null when every check passed, else what failed
     * @param digest      SHA-256 of the trace (every datagram, every completion)
     * @param faults      the fault schedule the network applied
     * @param datagrams   datagrams sent
     * @param completions completions the workload checked
     * @param virtualNanos virtual time the run took
     * @param breaks      QPs the workload broke on purpose (and recovered)
     * @param counters    the devices' transport counters, summed (rxe's names)
     */
    public record Result(long seed, String failure, String digest, List<Fault> faults, long datagrams,
                         long completions, long virtualNanos, long breaks, java.util.Map<String, Long> counters) {
        public boolean passed() {
            return failure == null;
        }
    }

    private Simulation() {
    }

    /** The fault plan a seed gets by default: its own random rates and draws. */
    public static FaultPlan plan(long seed) {
        return FaultPlan.random(seed * 0xBF58476D1CE4E5B9L + 7, FaultPlan.Rates.forSeed(seed));
    }

    public static Result run(long seed) {
        return run(seed, plan(seed), Settings.DEFAULT);
    }

    public static Result run(long seed, FaultPlan plan, Settings settings) {
        return run(seed, plan, settings, null);
    }

    /** {@code verbose}: where every datagram, fault, post and completion is printed as it happens (or null). */
    public static Result run(long seed, FaultPlan plan, Settings settings, java.io.PrintWriter verbose) {
        SimClock clock = new SimClock();
        Trace trace = new Trace();
        trace.verbose = verbose;
        SimNetwork net = new SimNetwork(clock, plan, trace);
        List<Device> devices = new ArrayList<>();
        SimWorkload work = null;
        String failure = null;
        java.util.Map<String, Long> counters = new java.util.TreeMap<>();
        long start = clock.getAsLong();
        try {
            for (int i = 0; i < settings.devices(); i++) {
                int addr = 0x7F000002 + i;
                DeviceConfig config = DeviceConfig.of("sim" + i, "127.0.0." + (2 + i)).manualProgress()
                    .clock(clock).seed(seed * 1000 + i + 1);
                devices.add(Device.open(Internals.withLink(config, net.attach(addr, 4791))));
            }
            work = SimWorkload.forSeed(seed, settings, trace, clock, devices);
            while (!work.done()) {
                work.step();
                quiesce(net, devices, work);
                if (work.done()) {
                    break;
                }
                long next = Math.min(net.nextDelivery(), work.nextAction());
                for (Device d : devices) {
                    next = Math.min(next, d.nextWork());
                }
                if (next == Long.MAX_VALUE) {
                    throw new SimulationFailure("nothing in flight, no timer running, work outstanding:"
                        + work.pending());
                }
                clock.advanceTo(next);
                if (clock.getAsLong() - start > settings.timeLimit()) {
                    throw new SimulationFailure("not done after " + settings.timeLimit() / 1_000_000_000 + " s of"
                        + " virtual time:" + work.pending());
                }
            }
            work.checkMemory();
        } catch (SimulationFailure e) {
            failure = e.getMessage();
        } catch (RuntimeException | Error e) {
            StringWriter w = new StringWriter();
            e.printStackTrace(new PrintWriter(w));
            failure = "unexpected " + w;
        } finally {
            for (Device d : devices) {
                for (int c = 0; c < dev.jrxe.transport.TransportCounters.count(); c++) {
                    counters.merge(dev.jrxe.transport.TransportCounters.name(c), Internals.transportCounters(d).get(c), Long::sum);
                }
            }
            if (work != null) {
                work.close();
            }
            for (Device d : devices) {
                d.close();
            }
            if (work != null) {
                work.unmap();
            }
        }
        return new Result(seed, failure, trace.digest(), plan.faults(), net.sent(),
            work == null ? 0 : work.completions(), clock.getAsLong() - start, work == null ? 0 : work.breaks(), counters);
    }

    /** Runs every device and delivers due datagrams until nothing happens at this instant. */
    private static void quiesce(SimNetwork net, List<Device> devices, SimWorkload work) {
        boolean busy = true;
        int rounds = 0;
        while (busy) {
            busy = net.deliverDue() > 0;
            for (Device d : devices) {
                if (d.progress() > 0) {
                    busy = true;
                }
            }
            if (busy) {
                work.step();
            }
            if (++rounds > 1_000_000) {
                throw new SimulationFailure("the devices never go quiet at one instant (a livelock)");
            }
        }
    }
}
