package dev.jrxe.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe bench pingpong}: round-trip latency of jrxe's RC SEND against plain Java UDP in the
 * same run, each between two child processes (127.0.0.2 and 127.0.0.3) that busy-poll. Prints median
 * and p99 per message size and the ratio jrxe/raw. This process only starts the children and
 * collects their "RESULT" lines; a child is this command with a hidden {@code --role}.
 */
@Command(name = "pingpong", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Round-trip latency of jrxe RC SEND against raw Java UDP, busy-polling.",
        "Each runs between two processes, in rounds that alternate the order of the modes; prints median, p99 and "
            + "mean per round and size, the ratio jrxe/raw, and the medians over the rounds."})
public final class BenchPingpongCommand implements Callable<Integer> {
    static final String READY = "READY";
    static final long HIGHEST_NANOS = 10_000_000_000L;
    private static final String INFO = "INFO ";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(converter = Converters.Positive.class,
        names = "--iters", description = "measured round trips per size, up to 10,000,000 (default ${DEFAULT-VALUE})",
        defaultValue = "20000")
    int iters;

    @Option(converter = Converters.NonNegative.class,
        names = "--warmup", description = "unmeasured round trips per size first, up to 10,000,000 (default ${DEFAULT-VALUE})",
        defaultValue = "20000")
    int warmup;

    @Option(converter = Converters.PositiveSize.class, names = "--sizes", split = ",", paramLabel = "SIZE",
        description = "message sizes: bytes, or with K or M (default ${DEFAULT-VALUE})",
        defaultValue = "4096,8")
    List<Integer> sizes;

    @Option(converter = Converters.MtuBytes.class,
        names = {"-m", "--mtu"}, description = "jrxe path MTU (default ${DEFAULT-VALUE}: 4 KiB in one packet, "
        + "like the raw datagram)", defaultValue = "4096")
    int mtu;

    @Option(names = "--memory", description = "buffers of the jrxe side: native (jrxe's allocator, direct "
        + "copies) or arena (a shared Arena, as most applications have) (default ${DEFAULT-VALUE})",
        defaultValue = RcSendPingpong.MEMORY_NATIVE)
    String memory;

    @Option(names = "--send-window", description = "SENDs in flight before the next waits for a completion "
        + "(default ${DEFAULT-VALUE}; 1 waits for every ACK, as ibv_rc_pingpong does)", defaultValue = "64")
    int sendWindow;

    @Option(converter = Converters.Positive.class,
        names = "--rounds", description = "rounds of all modes, the order of the modes alternating; the "
        + "summary takes the median over rounds of each figure and of the round's ratio (default ${DEFAULT-VALUE})",
        defaultValue = "3")
    int rounds;

    @Option(names = "--modes", split = ",", description = "what to run: raw, rc (default ${DEFAULT-VALUE})",
        defaultValue = "raw,rc")
    List<String> modes;

    @Option(converter = Converters.DeviceAddress.class,
        names = "--ip-a", description = "initiator address (default ${DEFAULT-VALUE})", defaultValue = "127.0.0.2")
    String ipA;

    @Option(converter = Converters.DeviceAddress.class,
        names = "--ip-b", description = "responder address (default ${DEFAULT-VALUE})", defaultValue = "127.0.0.3")
    String ipB;

    @Option(converter = Converters.PortOrZero.class,
        names = "--udp-port", description = "UDP port of the jrxe devices (default: a free one)",
        defaultValue = "0")
    int udpPort;

    @Option(converter = Converters.PortOrZero.class,
        names = "--raw-port", description = "UDP port of the raw baseline (default: a free one)",
        defaultValue = "0")
    int rawPort;

    @Option(names = "--jvm-opt", description = "extra JVM option for the child processes (repeatable), "
        + "e.g. --jvm-opt=-XX:StartFlightRecording=filename=rc.jfr")
    List<String> jvmOpts = new ArrayList<>();

    @Option(converter = Converters.Positive.class,
        names = "--timeout", description = "seconds each mode may take before its processes are killed "
        + "(default ${DEFAULT-VALUE})", defaultValue = "600")
    int timeoutSeconds;

    @Option(names = "--verbose", description = "print the children's INFO lines (transport counters)")
    boolean verbose;

    @Option(names = "--role", hidden = true)
    String role;

    @Option(names = "--tcp-port", hidden = true, defaultValue = "0")
    int tcpPort;

    @Override
    public Integer call() throws Exception {
        Converters.require(spec, sizes.stream().allMatch(s -> s <= 65000), "--sizes: each size 1..65000 bytes");
        Converters.require(spec, sendWindow >= 1 && sendWindow <= 64, "--send-window must be 1..64: " + sendWindow);
        Converters.require(spec, memory.equals(RcSendPingpong.MEMORY_NATIVE) || memory.equals(RcSendPingpong.MEMORY_ARENA),
            "--memory must be native or arena: '" + memory + "'");
        Converters.require(spec, iters >= 1 && iters <= PingpongPlan.MAX_ITERS,
            "--iters must be 1.." + PingpongPlan.MAX_ITERS + ": " + iters);
        Converters.require(spec, warmup >= 0 && warmup <= PingpongPlan.MAX_ITERS,
            "--warmup must be 0.." + PingpongPlan.MAX_ITERS + ": " + warmup);
        PingpongPlan plan = new PingpongPlan(sizes, warmup, iters);
        if (role != null) {
            return runRole(plan);
        }
        return orchestrate(plan);
    }

    // ---------------------------------------------------------------- child side

    private int runRole(PingpongPlan plan) throws IOException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        InetSocketAddress a = new InetSocketAddress(InetAddress.getByName(ipA), rawPort);
        InetSocketAddress b = new InetSocketAddress(InetAddress.getByName(ipB), rawPort);
        switch (role) {
            case "raw-responder" -> RawUdpPingpong.respond(b, a, plan, out);
            case "raw-initiator" -> RawUdpPingpong.initiate(a, b, plan, out);
            case "rc-responder" -> RcSendPingpong.respond(ipB, udpPort, tcpPort, mtu, memory, sendWindow, plan, out);
            case "rc-initiator" -> RcSendPingpong.initiate(ipA, udpPort, tcpPort, mtu, memory, sendWindow, plan, out);
            default -> {
                System.err.println("unknown role " + role);
                return 1;
            }
        }
        return 0;
    }

    // ---------------------------------------------------------------- parent side

    private int orchestrate(PingpongPlan plan) throws IOException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int jrxePort = udpPort != 0 ? udpPort : FreePorts.udp(ipA, ipB);
        int rawUdp = rawPort != 0 ? rawPort : FreePorts.udp(ipA, ipB);
        out.printf("jrxe bench pingpong: two processes (%s <-> %s) busy-polling; per size %d round trips "
            + "measured after %d warm-up; jrxe RC path MTU %d, %s memory, send window %d; %d round%s, modes in "
            + "alternating order%n", ipA, ipB, plan.iters(), plan.warmup(), mtu, memory, sendWindow, rounds,
            rounds == 1 ? "" : "s");
        out.flush();
        for (String mode : modes) {
            if (!mode.equals(RawUdpPingpong.MODE) && !mode.equals(RcSendPingpong.MODE)) {
                err.println("unknown mode " + mode + " (raw, rc)");
                return 1;
            }
        }
        List<Map<String, LatencyResult>> perRound = new ArrayList<>();
        List<String> infos = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            Map<String, LatencyResult> results = new LinkedHashMap<>();
            perRound.add(results);
            infos.clear();
            List<String> order = new ArrayList<>(modes);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (String mode : order) {
                String failure = runMode(mode, childArgs(plan, jrxePort, rawUdp), plan, results, infos);
                if (failure != null) {
                    err.println("bench pingpong: round " + (round + 1) + ": " + mode + ": " + failure);
                    return 1;
                }
            }
        }
        printTable(out, plan, perRound);
        if (verbose) {
            out.println("last round:");
            infos.forEach(out::println);
        }
        out.flush();
        return 0;
    }

    private List<String> childArgs(PingpongPlan plan, int jrxePort, int rawUdp) throws IOException {
        return List.of("bench", "pingpong", "--iters", Integer.toString(plan.iters()),
                "--warmup", Integer.toString(plan.warmup()), "--sizes", joined(plan.sizes()), "--mtu",
                Integer.toString(mtu), "--memory", memory, "--send-window", Integer.toString(sendWindow), "--ip-a", ipA, "--ip-b", ipB, "--udp-port", Integer.toString(jrxePort),
                "--raw-port", Integer.toString(rawUdp), "--tcp-port", Integer.toString(FreePorts.tcp()));
    }

    /** Runs one mode's two children; returns null on success or why it failed. */
    private String runMode(String mode, List<String> common, PingpongPlan plan, Map<String, LatencyResult> results,
                           List<String> infos) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        List<String> respArgs = new ArrayList<>(common);
        respArgs.addAll(List.of("--role", mode + "-responder"));
        List<String> initArgs = new ArrayList<>(common);
        initArgs.addAll(List.of("--role", mode + "-initiator"));
        try (ChildJvm responder = ChildJvm.start(jvmOpts, respArgs, false)) {
            BlockingQueue<String> respLines = drain(responder);
            String ready = respLines.poll(left(deadline), TimeUnit.NANOSECONDS);
            if (!READY.equals(ready)) {
                return "responder did not get ready (" + ready + ")";
            }
            try (ChildJvm initiator = ChildJvm.start(jvmOpts, initArgs, false)) {
                BlockingQueue<String> initLines = drain(initiator);
                int got = 0;
                while (got < plan.sizes().size()) {
                    String line = initLines.poll(left(deadline), TimeUnit.NANOSECONDS);
                    if (line == null || line.equals(EOF)) {
                        return "initiator stopped after " + got + " of " + plan.sizes().size() + " sizes";
                    }
                    LatencyResult r = LatencyResult.parse(line);
                    if (r != null) {
                        results.put(mode + "/" + r.size(), r);
                        got++;
                    } else if (line.startsWith(INFO)) {
                        infos.add(line.substring(INFO.length()));
                    }
                }
                if (initiator.waitFor(left(deadline), TimeUnit.NANOSECONDS) != 0) {
                    return "initiator failed";
                }
                collectInfos(initLines, infos);
            }
            if (responder.waitFor(left(deadline), TimeUnit.NANOSECONDS) != 0) {
                return "responder failed";
            }
            collectInfos(respLines, infos);
        }
        return null;
    }

    private static final String EOF = "\u0000EOF";

    private static BlockingQueue<String> drain(ChildJvm child) {
        BlockingQueue<String> q = new LinkedBlockingQueue<>();
        Thread.ofVirtual().start(() -> {
            try {
                for (String line; (line = child.readLine()) != null; ) {
                    q.add(line);
                }
            } catch (IOException ignored) {
                // the child is gone
            }
            q.add(EOF);
        });
        return q;
    }

    private static void collectInfos(BlockingQueue<String> lines, List<String> infos) throws InterruptedException {
        for (String line; (line = lines.poll(5, TimeUnit.SECONDS)) != null && !line.equals(EOF); ) {
            if (line.startsWith(INFO)) {
                infos.add(line.substring(INFO.length()));
            }
        }
    }

    private static long left(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    /**
     * One row per round and size, then per size the median over rounds of each column; its ratio
     * is the median of the rounds' ratios (each pairs two modes measured minutes apart at most).
     */
    private void printTable(PrintWriter out, PingpongPlan plan, List<Map<String, LatencyResult>> perRound) {
        out.printf("%6s %6s  %-29s  %-29s  %-17s%n", "", "", "raw Java UDP (us)", "jrxe RC SEND (us)", "jrxe / raw");
        out.printf("%6s %6s  %9s %9s %9s  %9s %9s %9s  %8s %8s%n", "round", "size", "median", "p99", "mean", "median",
            "p99", "mean", "median", "p99");
        for (int r = 0; r < perRound.size(); r++) {
            for (int size : plan.sizes()) {
                LatencyResult raw = perRound.get(r).get(RawUdpPingpong.MODE + "/" + size);
                LatencyResult rc = perRound.get(r).get(RcSendPingpong.MODE + "/" + size);
                double[] row = {
                    raw == null ? -1 : raw.medianNs(), raw == null ? -1 : raw.p99Ns(), raw == null ? -1 : raw.meanNs(),
                    rc == null ? -1 : rc.medianNs(), rc == null ? -1 : rc.p99Ns(), rc == null ? -1 : rc.meanNs(),
                    ratio(rc, raw, true), ratio(rc, raw, false)};
                printRow(out, Integer.toString(r + 1), size, row);
            }
        }
        if (perRound.size() > 1) {
            for (int size : plan.sizes()) {
                double[] row = new double[8];
                for (int c = 0; c < row.length; c++) {
                    double[] values = new double[perRound.size()];
                    for (int r = 0; r < perRound.size(); r++) {
                        LatencyResult raw = perRound.get(r).get(RawUdpPingpong.MODE + "/" + size);
                        LatencyResult rc = perRound.get(r).get(RcSendPingpong.MODE + "/" + size);
                        values[r] = switch (c) {
                            case 0 -> raw == null ? -1 : raw.medianNs();
                            case 1 -> raw == null ? -1 : raw.p99Ns();
                            case 2 -> raw == null ? -1 : raw.meanNs();
                            case 3 -> rc == null ? -1 : rc.medianNs();
                            case 4 -> rc == null ? -1 : rc.p99Ns();
                            case 5 -> rc == null ? -1 : rc.meanNs();
                            case 6 -> ratio(rc, raw, true);
                            default -> ratio(rc, raw, false);
                        };
                    }
                    row[c] = median(values);
                }
                printRow(out, "median", size, row);
            }
        }
    }

    private static void printRow(PrintWriter out, String round, int size, double[] v) {
        out.printf("%6s %6d  %9s %9s %9s  %9s %9s %9s  %8s %8s%n", round, size, us(v[0]), us(v[1]), us(v[2]), us(v[3]),
            us(v[4]), us(v[5]), times(v[6]), times(v[7]));
    }

    /** Median of {@code values}; -1 (not measured) when any is -1. */
    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        if (v.length == 0 || v[0] < 0) {
            return -1;
        }
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private static String us(double ns) {
        return ns < 0 ? "-" : String.format("%.2f", ns / 1000.0);
    }

    private static String times(double ratio) {
        return ratio < 0 ? "-" : String.format("%.2fx", ratio);
    }

    private static double ratio(LatencyResult rc, LatencyResult raw, boolean median) {
        if (rc == null || raw == null) {
            return -1;
        }
        return median ? (double) rc.medianNs() / raw.medianNs() : (double) rc.p99Ns() / raw.p99Ns();
    }

    private static String joined(List<Integer> values) {
        return String.join(",", values.stream().map(String::valueOf).toList());
    }
}
