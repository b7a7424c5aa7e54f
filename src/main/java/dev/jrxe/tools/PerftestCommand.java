package dev.jrxe.tools;

import dev.jrxe.ib.Mtu;
import dev.jrxe.net.Links;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jrxe perftest TEST} and its aliases {@code jrxe ib_write_bw}, ...: one of perftest's
 * tests with its options, defaults, TCP exchange and output (../shared/reference/cm-and-perftest.md
 * §4), so that the real ib_write_bw and friends can be the peer. RC, UC and UD; one run or, with
 * {@code -a}, sizes 2 B .. 8 MiB, or {@code -D} seconds (every test; the latency tests print
 * perftest's duration table), each in perftest 4.5's exchange sequence ({@link PerftestSequence});
 * {@code --csv}/{@code --svg} write the rows and a chart; {@code --cpu_util} with -D; {@code -b}
 * for the BW tests (both sides post, each prints the sum; for SEND over RC, and with -D each
 * prints its own messages both ways, as perftest); UD for the send
 * tests (messages cut to the MTU, the server counting what UD dropped); {@code -R} (the exchange on
 * an rdma_cm connection, the RC QPs connected by rdma_cm) and {@code -z} (the exchange only), in
 * perftest 4.5's wire format (OOB version 6.06: its records as the binary struct); jrxe's
 * {@code --engines K}. Not yet: -e events, -R over UD.
 */
@Command(mixinStandardHelpOptions = true, sortOptions = false,
    description = {"A perftest test (ib_write_bw, ib_read_bw, ...) over a jrxe device: the same options, defaults,",
        "TCP exchange (port 18515; rdma_cm with -R or -z) and output, so perftest's binaries can be the peer.",
        "Server: no SERVER argument. Client: the server's address."})
final class PerftestCommand implements Callable<Integer> {
    static final int MAX_ALL_SIZE = 1 << 23;
    static final int CYCLE_BUFFER = 4096;
    static final int CACHE_LINE = 64;
    /** perftest's UC_MAX_RX: the most receives per QP it posts over UC and UD. */
    static final int UC_MAX_RX = 16000;

    private final PerftestTest test;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "the server to connect to (client mode)")
    String server;

    @Option(converter = Converters.Port.class, names = {"-p", "--port"}, defaultValue = "18515",
        description = "listen on/connect to this TCP port, or rdma_cm port with -R or -z (default ${DEFAULT-VALUE})")
    int port;

    @Option(converter = Converters.DeviceName.class, names = {"-d", "--ib-dev"}, defaultValue = "jrxe0",
        description = "use IB device <dev> (default ${DEFAULT-VALUE})")
    String ibDev;

    @Option(converter = Converters.IbPort.class, names = {"-i", "--ib-port"}, defaultValue = "1",
        description = "use port <port> of IB device (default ${DEFAULT-VALUE})")
    int ibPort;

    @Option(converter = Converters.PositiveSize.class, names = {"-s", "--size"},
        description = "size of message to exchange (default: the test's, 65536 for BW, 2 for latency, 8 for atomics)")
    Integer size;

    @Option(names = {"-a", "--all"}, description = "run sizes from 2 till 2^23")
    boolean all;

    @Option(converter = Converters.Positive.class, names = {"-n", "--iters"},
        description = "number of exchanges (default: the test's, 5000 for write-bw, 1000 otherwise)")
    Integer iters;

    @Option(converter = Converters.Positive.class, names = {"-t", "--tx-depth"},
        description = "size of tx queue (default: 128 for BW, 1 for latency)")
    Integer txDepth;

    @Option(converter = Converters.Positive.class, names = {"-r", "--rx-depth"},
        description = "rx queue size, SEND tests (default 512; at most -n, and -n up to 16000 over UC and UD)")
    Integer rxDepth;

    @Option(converter = Converters.MtuBytes.class, names = {"-m", "--mtu"},
        description = "MTU size: 256 - 4096 (default: the port's active MTU)")
    Integer mtu;

    @Option(converter = Converters.GidIndex.class, names = {"-x", "--gid-index"}, defaultValue = "1",
        description = "test uses GID with GID index (default ${DEFAULT-VALUE}, the IPv4-mapped RoCEv2 GID)")
    int gidIndex;

    @Option(converter = Converters.Positive.class, names = {"-q", "--qp"}, defaultValue = "1",
        description = "num of qp's (default ${DEFAULT-VALUE})")
    int qps;

    @Option(names = {"-c", "--connection"}, defaultValue = "RC",
        description = "connection type RC/UC/UD (default ${DEFAULT-VALUE}; UC for write and send tests, UD for send tests)")
    String connection;

    @Option(converter = Converters.Positive.class, names = {"-Q", "--cq-mod"},
        description = "generate a completion every <n> requests, BW tests (default 100; 1 above 8 KiB but with -a or UD; "
            + "the list's size with -l)")
    Integer cqMod;

    @Option(converter = Converters.Positive.class, names = {"-l", "--post_list"}, defaultValue = "1",
        description = "post list of WQEs of <list size> size (instead of single post), BW tests (default ${DEFAULT-VALUE})")
    int postList;

    @Option(converter = Converters.Positive.class, names = {"-D", "--duration"}, paramLabel = "SECONDS",
        description = "run for SECONDS instead of -n iterations, measuring all but a margin at each end: a quarter "
            + "of them, rounded down to whole seconds (perftest's)")
    Integer duration;

    @Option(names = {"-A", "--atomic_type"}, defaultValue = "FETCH_AND_ADD",
        description = "type of atomic operation: CMP_AND_SWAP or FETCH_AND_ADD (default ${DEFAULT-VALUE})")
    String atomicType;

    @Option(names = {"-u", "--qp-timeout"}, defaultValue = "14", description = "QP timeout (default ${DEFAULT-VALUE})")
    int qpTimeout;

    @Option(names = {"-F", "--CPU-freq"}, description = "do not fail on a CPU frequency mismatch (jrxe times with nanoTime: no effect)")
    boolean cpuFreq;

    @Option(names = "--report_gbits", description = "report bandwidth in Gb/s instead of MB/s")
    boolean gbits;

    @Option(names = "--dont_xchg_versions", description = "do not exchange versions, cycle buffer, cache line and MTU")
    boolean dontXchgVersions;

    @Option(names = "--check", description = "jrxe: fill what is sent with a pattern and check, after the run, every byte "
        + "that landed (the side the data lands on fails with exit 1 when one differs)")
    boolean check;

    @Option(converter = Converters.OutputFile.class, names = "--csv", paramLabel = "FILE",
        description = "jrxe: write the results (one row per size) to FILE as CSV; BW tests add the UDP ceiling")
    java.nio.file.Path csv;

    @Option(converter = Converters.OutputFile.class, names = "--svg", paramLabel = "FILE",
        description = "jrxe: draw bandwidth (BW tests, with the UDP ceiling measured after the run, as ./jrxe bench "
            + "link's GSO path) or latency (typical, 99%%) against size to FILE")
    java.nio.file.Path svg;

    @Option(converter = Converters.DeviceAddress.class, names = "--ip", defaultValue = "127.0.0.1",
        description = "IPv4 address of the local jrxe device (default ${DEFAULT-VALUE}; a client whose server is at "
            + "that address moves its device to the next one)")
    String ip;

    @Option(converter = Converters.Port.class, names = "--udp-port", defaultValue = "4791",
        description = "UDP port of both devices (default ${DEFAULT-VALUE}, RoCEv2)")
    int udpPort;

    @Option(names = {"-b", "--bidirectional"}, description = "measure bidirectional bandwidth: both sides post, each prints the "
        + "sum (BW tests; SEND over RC, and with -D each side prints its own messages both ways)")
    boolean bidirectional;

    @Option(names = {"-R", "--rdma_cm"}, description = "connect QPs with rdma_cm and run test on those QPs: the exchange "
        + "travels on an rdma_cm connection to the -p port instead of TCP (RC; perftest 4.5's binary records)")
    boolean rdmaCm;

    @Option(names = {"-z", "--com_rdma_cm"}, description = "communicate with rdma_cm module to exchange data - use regular "
        + "QPs: the exchange on an rdma_cm connection to the -p port, the QPs connected from the records")
    boolean comRdmaCm;

    @Option(names = "--cpu_util", description = "show the CPUs' user time over the measured seconds (/proc/stat, all CPUs; with -D only)")
    boolean cpuUtil;

    @Option(names = "--engines", paramLabel = "K", defaultValue = "1",
        description = "jrxe: engines of the local device (default ${DEFAULT-VALUE}): each a socket, progress thread and "
            + "lock of its own, QP i on engine i %% K with a CQ of its own; with -D, one polling thread per engine")
    int engines;

    @Option(names = "--no-warmup", description = "jrxe: skip the untimed warm-up before the exchange (the test's own loops"
        + " between two QP sets of this device until the JVM has compiled them; a cold JVM otherwise measures its"
        + " interpreter and compilers for the first seconds)")
    boolean noWarmup;

    PerftestCommand(PerftestTest test) {
        this.test = test;
    }

    /** The rows printed, for --csv and --svg. */
    private final List<PerftestPlot.Point> points = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        boolean client = server != null;
        String type = connection.toUpperCase(java.util.Locale.ROOT);
        boolean uc = type.equals("UC");
        boolean ud = type.equals("UD");
        Converters.require(spec, uc || ud || type.equals("RC"), "connection type " + connection
            + " is not one jrxe's perftest runs (RC, UC for write and send tests, UD for send tests)");
        Converters.require(spec, !ud || test.verb == PerftestTest.Verb.SEND, "UD has no " + test.verb.title
            + " (send tests only)");
        Converters.require(spec, !uc || test.verb == PerftestTest.Verb.WRITE || test.verb == PerftestTest.Verb.SEND,
            "UC has no " + test.verb.title + " (RC only)");
        boolean cas = switch (atomicType) {
            case "CMP_AND_SWAP" -> true;
            case "FETCH_AND_ADD" -> false;
            default -> {
                Converters.require(spec, false, "atomic type " + atomicType + " is neither CMP_AND_SWAP nor FETCH_AND_ADD");
                yield false;
            }
        };
        Converters.require(spec, test.verb != PerftestTest.Verb.ATOMIC || (size == null || size == 8) && !all,
            "Message size cannot be changed for Atomic tests: they move 8 bytes (no -s, no -a)");
        List<Integer> sizes = sizes();
        int n = iters != null ? iters : test.defaultIters;
        int tx = txDepth != null ? txDepth : test.defaultTxDepth;
        int rx = rxDepth != null ? rxDepth : test.defaultRxDepth;
        boolean send = test.verb == PerftestTest.Verb.SEND;
        if (duration == null) {
            // perftest's force_dependecies, in iteration mode: the depths fit -n; over UC and UD the
            // default receive depth becomes -n (at most UC_MAX_RX)
            tx = Math.min(tx, n);
            rx = send ? Math.min(rx, n) : rx;
            rx = send && (uc || ud) && rx == test.defaultRxDepth ? Math.min(n, UC_MAX_RX) : rx;
        }
        if (send && !all) {
            rx += rx % 2; // perftest rounds it up to even, but not for -a (a receive left over would take the next size)
        }
        // what perftest's force_dependecies says on stdout, each after a result line
        List<String> notices = new ArrayList<>();
        int mod = cqMod != null ? cqMod : (test.bw ? 100 : 1);
        if (!all && !ud && sizes.get(0) > 8192) {
            if (cqMod == null) {
                mod = 1;
            } else if (cqMod > 1) {
                notices.add("Warning: Large message requested and CQ moderation enabled\n"
                    + "Warning: It can lead to inaccurate results");
            }
        }
        mod = Math.min(mod, tx);
        Converters.require(spec, postList == 1 || test.bw, "Post list is supported in BW tests only");
        if (postList > 1) {
            // a completion per list at least (its last request): any other moderation could leave
            // the tx depth full of unsignaled requests with the next signaled one not yet posted
            Converters.require(spec, duration != null || n % postList == 0,
                "Number of iterations must be a multiple of post list size");
            if (cqMod == null) {
                mod = postList;
                notices.add("Post List requested - CQ moderation will be the size of the post list");
            }
            Converters.require(spec, postList % mod == 0, "Post list size must be a multiple of CQ moderation");
        }
        Converters.require(spec, engines >= 1 && engines <= 16, "--engines is 1 to 16, not " + engines);
        Converters.require(spec, !bidirectional || test.bw, "Bidirectional is only available in BW test");
        Converters.require(spec, !bidirectional || test.verb != PerftestTest.Verb.SEND || type.equals("RC"),
            "-b with SEND runs over RC in jrxe (over UC and UD a message that finds no receive is lost, and each side"
                + " would wait for it)");
        Converters.require(spec, duration == null || test.bw || csv == null && svg == null,
            "--csv and --svg draw a latency test's distribution, which -D does not keep");
        Converters.require(spec, duration == null || !all, "-D and -a: one or the other");
        Converters.require(spec, duration == null || !check || test.verb != PerftestTest.Verb.ATOMIC,
            "--check counts an atomic test's iterations: not with -D");
        Converters.require(spec, duration == null || postList == 1, "-D posts one request at a time (no -l)");
        Converters.require(spec, postList <= tx, "the post list (-l " + postList + ") must fit the tx depth (" + tx + ")");
        Converters.require(spec, !rdmaCm || !uc, "UC is not supported in librdmacm");
        Converters.require(spec, !rdmaCm || !ud, "-R with UD: jrxe's perftest connects RC QPs with rdma_cm only");

        boolean cpu = cpuUtil && duration != null;
        for (String notice : notices) {
            out.println(PerftestOutput.LINE);
            out.println(notice);
        }
        if (cpuUtil && !cpu) {
            out.println(PerftestOutput.LINE); // perftest goes on without it
            spec.commandLine().getErr().println(" CPU Utilization works only with Duration mode.");
        }

        String local = ip;
        if (client && InetAddress.getByName(server).getHostAddress().equals(ip)) {
            byte[] a = InetAddress.getByName(ip).getAddress();
            a[3]++;
            local = InetAddress.getByAddress(a).getHostAddress();
            spec.commandLine().getErr().println(" (" + ip + " is the server's; this client's device is on " + local + ")");
        }
        if (!client) {
            PerftestOutput.waitingBox(out);
            out.flush();
        }
        DeviceConfig cfg = DeviceConfig.of(ibDev, local).udpPort(udpPort).engines(engines);
        int firstSize = sizes.get(0);
        int txFinal = tx;
        int rxFinal = rx;
        int modFinal = mod;
        // the warm-up runs with this side's own settings: the peer's are known after the exchange
        java.util.function.Consumer<Device> warmUp = d -> warmUp(d, params(test, firstSize, n, txFinal, rxFinal, modFinal, ud,
            uc, cas, mtu != null ? Mtu.fromBytes(mtu) : d.activeMtu(), CYCLE_BUFFER, CACHE_LINE));
        try (Device dev = Device.open(cfg); PerftestOob oob = exchange(dev, client, warmUp)) {
            if (duration != null) {
                oob.allowRun(duration * 1_000L); // one side may wait in an exchange while the other runs
            }
            int maxSize = sizes.get(sizes.size() - 1);
            // the port's MTU first, then the peer's if smaller
            int wanted = mtu != null ? Mtu.fromBytes(mtu) : dev.activeMtu();
            PerftestOob.Settled s = dontXchgVersions ? new PerftestOob.Settled(PerftestOob.VERSION, CYCLE_BUFFER, CACHE_LINE, wanted)
                : oob.settle(CYCLE_BUFFER, CACHE_LINE, wanted);
            if (ud) {
                sizes = udSizes(sizes, Mtu.bytes(wanted), Mtu.bytes(s.mtu()));
                maxSize = sizes.get(sizes.size() - 1);
            }
            PerftestRun.Params p = params(test, maxSize, n, tx, rx, mod, ud, uc, cas, s.mtu(), s.cycleBuffer(), s.cacheLine());
            try (PerftestRun run = new PerftestRun(dev, p, rdmaCm);
                 PerftestCmQps cmQps = rdmaCm ? rdmaCmQps(oob, run, client) : null) {
                if (check) {
                    run.fillSources(client, bidirectional);
                }
                PerftestOutput.header(out, new PerftestOutput.Info(test, !client, ibDev, qps, ud ? "UD" : uc ? "UC" : "RC", tx, rx, mod,
                    s.mtu(), gidIndex, run.outReads, cas, bidirectional, rdmaCm, rdmaCm || comRdmaCm, postList));
                PerftestSequence seq = new PerftestSequence(new PerftestSequence.Plan(test, client, sizes, all,
                    bidirectional, duration, gbits, cpu, check), oob, run, out, spec.commandLine().getErr());
                PerftestRecord[] remote = seq.before();
                for (int i = 0; i < qps; i++) {
                    PerftestOutput.address(out, "local", run.mine[i], test);
                }
                for (int i = 0; i < qps; i++) {
                    PerftestOutput.address(out, "remote", remote[i], test);
                }
                out.println(PerftestOutput.LINE);
                out.flush();
                seq.traffic();
                points.addAll(seq.points());
            }
            if (csv != null || svg != null) {
                plot(out, s.mtu(), cas);
            }
        }
        return 0;
    }

    /** The run's parameters (jrxe's side of them: the MTU, cycle buffer and cache line are settled with the peer). */
    private PerftestRun.Params params(PerftestTest t, int maxSize, int n, int tx, int rx, int mod, boolean ud, boolean uc,
                                      boolean cas, int mtuEnum, int cycleBuffer, int cacheLine) {
        if (ud) {
            maxSize = Math.min(maxSize, Mtu.bytes(mtuEnum)); // a UD message fits one packet
        }
        return new PerftestRun.Params(t, maxSize, n, tx, rx, mod, qps, uc, mtuEnum, gidIndex, cas, qpTimeout, cycleBuffer,
            cacheLine, postList, ud);
    }

    /** The untimed warm-up ({@link PerftestWarmup}), unless --no-warmup. */
    private void warmUp(Device dev, PerftestRun.Params p) {
        if (!noWarmup) {
            PerftestWarmup.run(dev, p, bidirectional, PerftestWarmup.BUDGET_NANOS);
        }
    }

    /**
     * perftest's out-of-band channel to the peer: its TCP connection or, with -R or -z, its
     * rdma_cm control connection on {@code dev} (both to the -p port). {@code warmUp} runs before:
     * a client's before it connects, a TCP server's while it listens (a client that connects
     * meanwhile waits in the backlog), an rdma_cm server's once the control connection is up (its
     * client waits in the first exchange).
     */
    private PerftestOob exchange(Device dev, boolean client, java.util.function.Consumer<Device> warmUp) throws IOException {
        if (client) {
            warmUp.accept(dev);
        }
        if (!rdmaCm && !comRdmaCm) {
            return client ? PerftestOob.connect(new InetSocketAddress(server, port), 10_000)
                : PerftestOob.accept(new InetSocketAddress(ip, port), 600_000, () -> warmUp.accept(dev));
        }
        PerftestCmChannel c = client ? PerftestCmChannel.connect(dev, serverAddress(), port, 10_000)
            : PerftestCmChannel.accept(dev, port, 600_000);
        if (!client) {
            warmUp.accept(dev);
        }
        return PerftestOob.overRdmaCm(c, client, gidIndex);
    }

    /** The server's IPv4 address as rdma_cm takes it (a big-endian int). */
    private int serverAddress() throws IOException {
        return Links.toInt(InetAddress.getByName(server));
    }

    /**
     * perftest's create_rdma_cm_connection (-R): an exchange, the test QPs connected by rdma_cm on
     * the -p port, another exchange.
     */
    private PerftestCmQps rdmaCmQps(PerftestOob oob, PerftestRun run, boolean client) throws IOException {
        oob.handshake(PerftestRecord.EMPTY);
        PerftestCmQps q = client ? PerftestCmQps.connect(run, serverAddress(), port, 10_000)
            : PerftestCmQps.accept(run, port, 60_000);
        try {
            oob.handshake(PerftestRecord.EMPTY);
            return q;
        } catch (IOException | RuntimeException e) {
            q.close();
            throw e;
        }
    }

    /** Writes --csv and --svg; for BW tests first measures the link's UDP ceiling (GSO) in this run. */
    private void plot(PrintWriter out, int mtu, boolean cas) throws Exception {
        String unit = gbits ? "Gb/sec" : "MB/sec";
        double ceiling = 0;
        if (test.bw) {
            LinkBench.Options o = LinkBench.Options.defaults().withPaths(List.of("GSO")).withPayload(Mtu.bytes(mtu))
                .withWarmup(java.time.Duration.ofMillis(300)).withDuration(java.time.Duration.ofSeconds(1))
                .withAddresses("127.0.0.250", "127.0.0.251");
            LinkBench.Result r = LinkBench.run(o, new java.io.PrintStream(java.io.OutputStream.nullOutputStream())).get(0);
            ceiling = PerftestOutput.bw(r.gigabytesPerSecond() * 1e9, gbits);
            out.printf(" UDP ceiling (GSO, %d-byte datagrams, measured now): %.2f %s%n", r.datagram(), ceiling, unit);
        }
        String title = test.title(cas) + " (jrxe" + (test.bw ? ", dashed: UDP ceiling" : "") + ")";
        if (csv != null) {
            java.nio.file.Files.writeString(csv, PerftestPlot.csv(test, points, unit.replace("/", "_per_"), ceiling));
            out.println(" results: " + csv);
        }
        if (svg != null && !points.isEmpty()) {
            java.nio.file.Files.writeString(svg, PerftestPlot.svg(test, points, unit, ceiling, title));
            out.println(" chart: " + svg);
        }
        out.flush();
    }

    /**
     * A UD message fits one packet, as perftest 4.5's check_link (before the exchange) and
     * check_mtu (once the MTU is settled) cut it: above the port's MTU the size becomes that MTU,
     * which -a says on stderr; above the settled MTU, -a and the default size say so and take it,
     * and a size given with -s fails. -a runs the sizes up to the MTU.
     */
    private List<Integer> udSizes(List<Integer> sizes, int portMtu, int settledMtu) throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        int largest = all ? MAX_ALL_SIZE : sizes.get(0);
        if (largest > portMtu) {
            if (all) {
                err.printf(" Max msg size in UD is MTU %d%n Changing to this MTU%n", portMtu);
            }
            largest = portMtu;
        }
        if (largest > settledMtu) {
            if (!all && size != null) {
                throw new IOException("Max message size in UD cannot be greater than MTU (" + settledMtu + ")");
            }
            err.printf(" Max msg size in UD is MTU %d%n Changing to this MTU%n", settledMtu);
            largest = settledMtu;
        }
        err.flush();
        int max = largest;
        return all ? sizes.stream().filter(x -> x <= max).toList() : List.of(max);
    }

    private List<Integer> sizes() {
        List<Integer> l = new ArrayList<>();
        if (test.verb == PerftestTest.Verb.ATOMIC) {
            l.add(8);
        } else if (all) {
            for (int s = 2; s <= MAX_ALL_SIZE; s <<= 1) {
                l.add(s);
            }
        } else {
            l.add(size != null ? size : test.defaultSize);
        }
        return l;
    }

    /** {@code jrxe perftest}: the tests as subcommands. */
    @Command(name = "perftest", mixinStandardHelpOptions = true,
        description = {"perftest's tests over jrxe (also as ib_write_bw, ib_read_bw, ...): "
            + "write-bw, read-bw, send-bw, atomic-bw, write-lat, read-lat, send-lat."})
    static final class Group implements Runnable {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            spec.commandLine().usage(spec.commandLine().getOut());
        }
    }

    private static CommandLine described(CommandLine c, PerftestTest t) {
        String what = (t.bw ? "bandwidth" : "latency") + " of " + t.verb.title.replace('_', ' ')
            + (t.verb == PerftestTest.Verb.ATOMIC ? " (FETCH_AND_ADD, or -A CMP_AND_SWAP)" : "");
        c.getCommandSpec().usageMessage().description(
            "perftest's " + t.binary + " over a jrxe device: " + what + "; defaults " + t.defaultSize + " B x "
                + t.defaultIters + ", tx depth " + t.defaultTxDepth + ".",
            "Its options, defaults, TCP exchange (port 18515; rdma_cm with -R or -z) and output, so perftest's " + t.binary
                + " can be the peer. Server: no SERVER; client: the server's address.");
        return c;
    }

    /** Adds {@code perftest TEST} and the {@code ib_*} aliases to {@code cl}. */
    static void register(CommandLine cl) {
        CommandLine group = new CommandLine(new Group());
        for (PerftestTest t : PerftestTest.values()) {
            group.addSubcommand(t.command, described(new CommandLine(new PerftestCommand(t)), t));
            cl.addSubcommand(t.binary, described(new CommandLine(new PerftestCommand(t)), t));
        }
        cl.addSubcommand("perftest", group);
    }
}
