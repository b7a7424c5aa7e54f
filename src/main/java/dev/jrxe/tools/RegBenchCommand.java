package dev.jrxe.tools;

import dev.jrxe.ib.Mtu;
import dev.jrxe.memory.RegionKind;
import dev.jrxe.tools.RegistrationBenchmark;
import dev.jrxe.tools.RegistrationBenchmark.Row;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe reg-bench}: the implicit-ODP RFC's registration benchmark (pinned, explicit ODP and
 * implicit ODP regions over sizes; a seeded shuffled plan, one warm-up and N timed registrations
 * per bucket), then what the RFC did not measure: the cost of the first RDMA WRITE into a cold
 * 2 MiB implicit-ODP child, and steady-state RDMA WRITE bandwidth into implicit ODP against
 * pinned memory, between two jrxe devices in this process.
 */
@Command(name = "reg-bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Memory registration benchmark: pinned vs explicit ODP vs implicit ODP (the implicit-ODP RFC's "
        + "method), then first-touch cost and WRITE bandwidth into implicit ODP memory.",
        "Progress goes to stderr, results to stdout."})
public final class RegBenchCommand implements Callable<Integer> {
    static final String DEFAULT_SIZES = "4K,64K,1M,16M,64M,256M,1G";
    private static final int COPY_WRITES_PER_ROUND = 200_000;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--sizes", split = ",", converter = RegBenchSizes.class, paramLabel = "SIZE",
        defaultValue = DEFAULT_SIZES, description = "region sizes (default ${DEFAULT-VALUE})")
    List<Long> sizes;

    @Option(converter = Converters.Positive.class,
        names = "--runs", defaultValue = "30", description = "timed registrations per kind and size, after one "
        + "warm-up (default ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the shuffled order (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--kinds", split = ",", paramLabel = "KIND", defaultValue = "pinned,odp,implicit",
        description = "region kinds: pinned, odp, implicit (default ${DEFAULT-VALUE})")
    List<String> kinds;

    @Option(converter = Converters.NonNegative.class,
        names = "--jit-warmup", defaultValue = "2000", paramLabel = "N", description = "untimed registrations per "
        + "kind before the plan, so that compiled code is timed (default ${DEFAULT-VALUE})")
    int jitWarmup;

    @Option(converter = Converters.OutputFile.class,
        names = "--csv", paramLabel = "FILE", description = "write one CSV row per (kind, size) to FILE")
    Path csv;

    @Option(converter = Converters.OutputFile.class,
        names = "--svg", paramLabel = "FILE", description = "draw median latency against size to FILE (SVG)")
    Path svg;

    @Option(names = "--no-traffic", description = "registration only: skip the first-touch and bandwidth runs")
    boolean noTraffic;

    @Option(names = "--touch-pinned", description = "touch pinned buffers before timing, as the RFC did: the timed "
        + "call then pins present pages and RSS stays flat for every kind (default: untouched memory, so pinning "
        + "populates it and RSS while registered climbs with the size)")
    boolean touchPinned;

    @Option(converter = Converters.Positive.class,
        names = "--touch-chunks", defaultValue = "64", paramLabel = "N", description = "cold 2 MiB chunks "
        + "written once each for the first-touch cost (default ${DEFAULT-VALUE})")
    int touchChunks;

    @Option(names = "--touch-bytes", defaultValue = "4K", converter = RegBenchSizes.class, paramLabel = "SIZE",
        description = "size of each first-touch WRITE (default ${DEFAULT-VALUE})")
    long touchBytes;

    @Option(names = "--bw-bytes", defaultValue = "64K", converter = RegBenchSizes.class, paramLabel = "SIZE",
        description = "size of each bandwidth WRITE (default ${DEFAULT-VALUE})")
    long bwBytes;

    @Option(converter = Converters.Positive.class, names = "--bw-depth", defaultValue = "16", paramLabel = "N",
        description = "WRITEs in flight (default ${DEFAULT-VALUE})")
    int bwDepth;

    @Option(names = "--bw-window", defaultValue = "64M", converter = RegBenchSizes.class, paramLabel = "SIZE",
        description = "target window the WRITEs cycle through, per kind (default ${DEFAULT-VALUE})")
    long bwWindow;

    @Option(converter = Converters.PositiveSeconds.class,
        names = "--bw-seconds", defaultValue = "0.25", paramLabel = "S",
        description = "seconds per bandwidth round and kind (default ${DEFAULT-VALUE})")
    double bwSeconds;

    @Option(converter = Converters.Positive.class, names = "--bw-rounds", defaultValue = "24", paramLabel = "N",
        description = "bandwidth rounds, each running both kinds, the first alternating; medians "
            + "reported (default ${DEFAULT-VALUE})")
    int bwRounds;

    @Option(converter = Converters.MtuBytes.class,
        names = "--mtu", defaultValue = "4096", description = "path MTU of the traffic QP (default ${DEFAULT-VALUE})")
    int mtu;

    @Option(converter = Converters.DeviceAddress.class, names = "--ip-a", defaultValue = "127.0.0.2", paramLabel = "IP",
        description = "address of the requester device (default ${DEFAULT-VALUE})")
    String ipA;

    @Option(converter = Converters.DeviceAddress.class, names = "--ip-b", defaultValue = "127.0.0.3", paramLabel = "IP",
        description = "address of the target device (default ${DEFAULT-VALUE})")
    String ipB;

    @Option(converter = Converters.PortOrZero.class,
        names = "--udp-port", defaultValue = "0", paramLabel = "PORT", description = "UDP port of both traffic "
        + "devices; 0 (default) picks one free on both addresses, so the run never meets a device on 4791")
    int udpPort;

    private PrintWriter out;
    private PrintWriter err;

    @Override
    public Integer call() throws IOException {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        try {
            String problem = validate();
            Converters.require(spec, problem == null, problem);
            return run();
        } finally {
            out.flush();
            err.flush();
        }
    }

    private String validate() {
        for (String k : kinds) {
            if (kindOf(k) == null) {
                return "unknown kind '" + k + "' (pinned, odp, implicit)";
            }
        }
        if (!noTraffic) {
            if (touchBytes > (2 << 20) || bwBytes > Integer.MAX_VALUE || bwWindow < bwBytes) {
                return "--touch-bytes must fit one 2 MiB chunk and --bw-window hold at least one --bw-bytes WRITE";
            }
        }
        return null;
    }

    static RegionKind kindOf(String name) {
        for (RegionKind k : RegionKind.values()) {
            if (RegistrationBenchmark.kindName(k).equals(name.trim().toLowerCase(Locale.ROOT))) {
                return k;
            }
        }
        return null;
    }

    private int run() throws IOException {
        Consumer<String> progress = line -> {
            err.println(line);
            err.flush();
        };
        Set<RegionKind> kindSet = EnumSet.noneOf(RegionKind.class);
        kinds.forEach(k -> kindSet.add(kindOf(k)));
        long[] sizeArray = sizes.stream().mapToLong(Long::longValue).toArray();
        progress.accept(String.format(Locale.ROOT, "reg-bench: %d kinds x %d sizes x (1 + %d) registrations, seed %d",
            kindSet.size(), sizeArray.length, runs, seed));
        List<Row> rows = RegistrationBenchmark.run(RegistrationBenchmark.Options.defaults().withSizes(sizeArray)
            .withRuns(runs).withSeed(seed).withKinds(kindSet).withJitWarmup(jitWarmup).withProgress(progress)
            .withTouchPinned(touchPinned));
        printTable(rows);
        if (csv != null) {
            List<String> lines = new ArrayList<>();
            lines.add(RegistrationBenchmark.CSV_HEADER);
            rows.forEach(r -> lines.add(r.csv()));
            Files.write(csv, lines, StandardCharsets.UTF_8);
        }
        if (svg != null) {
            Files.writeString(svg, RegBenchSvg.render(rows, String.format(Locale.ROOT,
                "jrxe reg-bench: median registration latency (%d runs, seed %d)", runs, seed)), StandardCharsets.UTF_8);
        }
        if (noTraffic) {
            return 0;
        }
        return runTraffic(progress);
    }

    private int runTraffic(Consumer<String> progress) throws IOException {
        int port = udpPort != 0 ? udpPort : FreePorts.udp(ipA, ipB);
        RegBenchTraffic.Setup setup = new RegBenchTraffic.Setup(ipA, ipB, port, Mtu.fromBytes(mtu), bwDepth,
            (int) Math.max(bwBytes, touchBytes));
        progress.accept("reg-bench: traffic between " + ipA + " and " + ipB + ", UDP port " + port);
        try (RegBenchTraffic traffic = new RegBenchTraffic(setup)) {
            RegBenchTraffic.FirstTouch t = traffic.firstTouch(touchChunks, (int) touchBytes, progress);
            out.println();
            out.printf("First touch: one %s RDMA WRITE from %s into each of %d cold 2 MiB implicit-ODP chunks on %s, "
                + "then the same WRITE again (warm)%n", RegBenchSizes.format(t.writeBytes()), ipA, t.chunks(), ipB);
            out.printf("  cold WRITE  median %s  p95 %s%n", duration(t.coldMedianNs()), duration(t.coldP95Ns()));
            out.printf("  warm WRITE  median %s%n", duration(t.warmMedianNs()));
            out.printf("  first-touch cost per child (cold - warm, median of pairs) %s%n", duration(t.extraMedianNs()));
            out.printf("  children created: %d%n", t.childrenCreated());
            List<RegistrationBenchmark.TouchRow> local = RegistrationBenchmark.firstTouch(touchChunks);
            out.printf("  without the network (Region.write through an implicit key on this thread): %s%n",
                String.join(", ", local.stream().map(l -> l.what() + " " + duration(l.medianNs())).toList()));
            out.printf("  the page fault alone (a CPU store into a fresh 2 MiB chunk, no jrxe): %s%n",
                duration(RegBenchTraffic.plainFirstTouchNs(touchChunks)));
            out.flush();
            RegBenchTraffic.Bandwidth b = traffic.bandwidth((int) bwBytes, bwDepth, bwWindow, bwSeconds, bwRounds,
                progress);
            out.println();
            out.printf("WRITE bandwidth: %s WRITEs, %d in flight, %s window, MTU %d, %d rounds of %.2f s per kind%n",
                RegBenchSizes.format(b.writeBytes()), b.inFlight(), RegBenchSizes.format(b.windowBytes()), mtu,
                bwRounds, b.secondsPerRound());
            out.printf("  pinned    median %.3f GB/s  best %.3f GB/s  rounds %s%n", b.pinnedMedian(), b.pinnedBest(),
                rounds(b.pinnedGbps()));
            out.printf("  implicit  median %.3f GB/s  best %.3f GB/s  rounds %s%n", b.implicitMedian(),
                b.implicitBest(), rounds(b.implicitGbps()));
            out.printf("  implicit / pinned = %.1f %% (median of per-round ratios; target >= 95 %%), best / best "
                + "%.1f %%%n", 100 * b.pairedRatio(), 100 * b.implicitBest() / b.pinnedBest());
            int packet = Math.min(mtu, (int) bwBytes);
            double[] copy = RegBenchTraffic.packetCopyNs(packet, bwWindow, COPY_WRITES_PER_ROUND, 5);
            out.printf("  responder memory path per %d B packet, no network (best of 5 x %d writes into the warm "
                + "window): pinned %.0f ns, implicit %.0f ns (%+.0f ns)%n", packet, COPY_WRITES_PER_ROUND, copy[0],
                copy[1], copy[1] - copy[0]);
            return 0;
        } catch (RuntimeException e) {
            err.println("reg-bench: traffic failed: " + e);
            return 1;
        }
    }

    private static String rounds(double[] v) {
        StringBuilder s = new StringBuilder();
        for (double d : v) {
            s.append(s.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "%.3f", d));
        }
        return s.toString();
    }

    private void printTable(List<Row> rows) {
        out.printf("Registration latency: %d timed runs per kind and size after one warm-up, shuffled (seed %d)%n",
            runs, seed);
        out.printf(touchPinned
            ? "Pinned buffers touched before timing (--touch-pinned, the RFC's method): RSS stays flat%n"
            : "Untouched memory: pinning populates each page while timed; rss_during is sampled while registered%n");
        out.printf("%-9s %6s %5s %10s %10s %10s %10s %10s %5s %6s %11s %11s%n", "kind", "size", "runs", "median",
            "p95", "p99", "min", "max", "fail", "errno", "rss_before", "rss_during");
        for (Row r : rows) {
            out.printf("%-9s %6s %5d %10s %10s %10s %10s %10s %5d %6s %11s %11s%n", r.kind(),
                RegBenchSizes.format(r.sizeBytes()), r.runs(), duration(r.medianNs()), duration(r.p95Ns()),
                duration(r.p99Ns()), duration(r.minNs()), duration(r.maxNs()), r.failures(),
                r.errno() == 0 ? "-" : Integer.toString(r.errno()), mib(r.rssBeforeKib()), mib(r.rssDuringKib()));
        }
        List<Row> implicit = rows.stream().filter(r -> r.kind().equals("implicit")).toList();
        if (!implicit.isEmpty()) {
            long worst = implicit.stream().mapToLong(Row::medianNs).max().orElse(0);
            long growth = implicit.stream().mapToLong(r -> r.rssDuringKib() - r.rssBeforeKib()).max().orElse(0);
            out.printf("implicit: largest median %s (target <= 5 us at every size: %s); largest RSS growth while "
                + "registered %d KiB%n", duration(worst), worst <= 5_000 ? "met" : "MISSED", growth);
        }
        List<Row> pinned = rows.stream().filter(r -> r.kind().equals("pinned")).toList();
        if (pinned.size() > 1) {
            Row first = pinned.getFirst();
            Row last = pinned.getLast();
            out.printf("pinned: median %s at %s -> %s at %s (%.2f us per 4 KiB page at the largest size)%n",
                duration(first.medianNs()), RegBenchSizes.format(first.sizeBytes()), duration(last.medianNs()),
                RegBenchSizes.format(last.sizeBytes()), last.medianNs() / 1e3 / (last.sizeBytes() / 4096.0));
        }
        out.flush();
    }

    /** Nanoseconds as a short human duration: 850 ns, 1.23 us, 310.5 us, 12.3 ms, 1.20 s. */
    static String duration(long ns) {
        if (ns < 0) {
            return "-" + duration(-ns);
        }
        if (ns < 1_000) {
            return ns + " ns";
        }
        if (ns < 100_000) {
            return String.format(Locale.ROOT, "%.2f us", ns / 1e3);
        }
        if (ns < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f us", ns / 1e3);
        }
        if (ns < 1_000_000_000) {
            return String.format(Locale.ROOT, "%.2f ms", ns / 1e6);
        }
        return String.format(Locale.ROOT, "%.2f s", ns / 1e9);
    }

    private static String mib(long kib) {
        return String.format(Locale.ROOT, "%.1f MiB", kib / 1024.0);
    }
}
