package dev.jrxe.tools;

import dev.jrxe.sim.Fault;
import dev.jrxe.sim.Shrinker;
import dev.jrxe.sim.Simulation;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe sim}: the deterministic simulation. One seed ({@code --seed}) prints what the run did
 * and, last, the digest of its whole trace; many ({@code --seeds}) print a progress line and a
 * summary. A failing seed can be shrunk to the shortest fault schedule that still fails.
 */
@Command(name = "sim", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Deterministic simulation: jrxe devices in one thread on a virtual clock over an in-memory network "
            + "with seeded loss, duplication, reordering and corruption, under a random RC workload checked "
            + "against an oracle. A run is a function of its seed: the same seed prints the same digest.",
        "",
        "Run one seed (--seed) or many (--seeds, from --from). A failing seed is printed with what failed; "
            + "--shrink reduces its fault schedule to a short one that still fails."})
public final class SimCommand implements Callable<Integer> {
    @Option(names = "--seed", paramLabel = "N", description = "run this one seed")
    Long seed;

    @Option(converter = Converters.Positive.class,
        names = "--seeds", paramLabel = "K", description = "run K seeds (default ${DEFAULT-VALUE})",
        defaultValue = "100")
    int seeds;

    @Option(names = "--from", paramLabel = "F", description = "first seed of --seeds (default ${DEFAULT-VALUE})",
        defaultValue = "1")
    long from;

    @Option(names = "--quick", description = "the suite's smaller runs: up to 2 QP pairs, 30 operations of at "
        + "most 64 KiB (default: up to 3 pairs, 60 operations of at most 1 MiB)")
    boolean quick;

    @Option(converter = Converters.Positive.class,
        names = "--ops", paramLabel = "N", description = "operations per run (default: 60, --quick 30)")
    Integer ops;

    @Option(names = "--shrink", description = "shrink the fault schedule of a failing seed and print it")
    boolean shrink;

    @Option(names = "--show-faults", description = "with --seed: list the faults the network applied")
    boolean showFaults;

    @Option(names = "--verbose", description = "with --seed: print every datagram, fault, post and completion")
    boolean verbose;

    @CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        try (JfrOption.Session recording = jfr.start(spec.commandLine().getErr())) {
            return execute();
        }
    }

    private Integer execute() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Simulation.Settings s = quick ? Simulation.Settings.QUICK : Simulation.Settings.DEFAULT;
        if (ops != null) {
            if (ops < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--ops must be at least 1: " + ops);
            }
            s = new Simulation.Settings(s.devices(), s.maxQpPairs(), ops, s.maxSize(), s.timeLimit());
        }
        if (seeds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--seeds must be at least 1: " + seeds);
        }
        if (seed != null) {
            return one(out, seed, s);
        }
        return many(out, err, s);
    }

    private int one(PrintWriter out, long n, Simulation.Settings s) {
        long t0 = System.nanoTime();
        Simulation.Result r = Simulation.run(n, Simulation.plan(n), s, verbose ? out : null);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        out.printf("seed %d: %s%n", n, r.passed() ? "passed" : "FAILED");
        out.printf("  %d datagrams, %d faults, %d completions checked, %d QPs broken and recovered, %.3f ms virtual,"
            + " %d ms%n", r.datagrams(), r.faults().size(), r.completions(), r.breaks(), r.virtualNanos() / 1e6, ms);
        out.printf("  retransmissions %d, duplicates %d, RNR NAKs %d, retries exhausted %d%n",
            r.counters().get("completer_retry_err"), r.counters().get("duplicate_request"),
            r.counters().get("rcvd_rnr_err"), r.counters().get("retry_exceeded_err"));
        if (showFaults) {
            for (Fault f : r.faults()) {
                out.println("  " + f);
            }
        }
        if (!r.passed()) {
            out.println("  " + r.failure());
            if (shrink) {
                shrunk(out, n, s, r.faults());
            }
        }
        out.println("digest " + r.digest());
        out.flush();
        return r.passed() ? 0 : 1;
    }

    private void shrunk(PrintWriter out, long n, Simulation.Settings s, List<Fault> faults) {
        int[] runs = {0};
        List<Fault> small = Shrinker.shrink(n, s, faults, runs);
        out.printf("  shrunk to %d of %d faults in %d replays:%n", small.size(), faults.size(), runs[0]);
        for (Fault f : small) {
            out.println("    " + f);
        }
    }

    private int many(PrintWriter out, PrintWriter err, Simulation.Settings s) {
        long t0 = System.nanoTime();
        long lastLine = t0;
        List<Long> failed = new ArrayList<>();
        long datagrams = 0;
        long faults = 0;
        long completions = 0;
        for (long n = from; n < from + seeds; n++) {
            Simulation.Result r = Simulation.run(n, Simulation.plan(n), s);
            datagrams += r.datagrams();
            faults += r.faults().size();
            completions += r.completions();
            if (!r.passed()) {
                failed.add(n);
                out.printf("seed %d FAILED: %s%n", n, r.failure());
                if (shrink) {
                    shrunk(out, n, s, r.faults());
                }
                out.flush();
            }
            long now = System.nanoTime();
            if (now - lastLine > 1_000_000_000L || n == from + seeds - 1) {
                lastLine = now;
                err.printf("sim: %d/%d seeds, %d failed, %.1f s%n", n - from + 1, seeds, failed.size(),
                    (now - t0) / 1e9);
                err.flush();
            }
        }
        String list = failed.size() <= 20 ? failed.toString()
            : failed.subList(0, 20).toString().replace("]", ", ... " + (failed.size() - 20) + " more]");
        out.printf("%d seeds (%d..%d): %d passed, %d failed%s%n", seeds, from, from + seeds - 1,
            seeds - failed.size(), failed.size(), failed.isEmpty() ? "" : " " + list);
        out.printf("  %d datagrams, %d faults, %d completions checked, %.1f s%n", datagrams, faults, completions,
            (System.nanoTime() - t0) / 1e9);
        out.flush();
        return failed.isEmpty() ? 0 : 1;
    }
}
