package dev.jrxe.tools;

import dev.jrxe.ib.Errno;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.VerbsException;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What the ibv_*_pingpong tools of rdma-core's libibverbs/examples have in common, as the base of
 * {@code jrxe rc-pingpong}, {@code uc-pingpong}, {@code ud-pingpong} and {@code srq-pingpong}: the
 * options all of them have with the same meaning and default, jrxe's device options, the 52-byte
 * address message, opening the device, the local address, waiting for CQ events and the result
 * lines. Each tool adds the options that differ ({@code -s}, whose default is not the same
 * everywhere, {@code -m}, {@code -q}, ...) and its run.
 *
 * <p>Deviations from the C tools: {@code -g} defaults to 1 (the IPv4-mapped GID, a jrxe device's
 * only one) instead of -1; {@code --ip}/{@code --udp-port} say where the device lives; the client
 * retries the TCP connect for a few seconds (the server JVM may still be starting); a client left
 * at the default {@code --ip} whose address is taken (a server on this machine) moves its device to
 * a free loopback address and says so, so that {@code rc-pingpong &} then {@code rc-pingpong
 * localhost} runs; the TCP listener binds {@code --ip}, not every address; and no wait is silent or
 * endless: after 3 s without a completion the tool says so, and after {@code --idle-timeout}
 * seconds (10) it gives up naming the likely causes, where the C tools spin forever. Every tool
 * warms its hot path up before the exchange ({@link HotPathWarmup}, srq's {@link SrqWarmup};
 * skipped with {@code --no-warmup}), so that its measured loop runs compiled code as the C tools' does.
 */
abstract class PingpongCommand implements Callable<Integer> {
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;
    /** sizeof "0000:000000:000000:00000000000000000000000000000000" in C: 51 characters and the NUL. */
    static final int MSG_SIZE = 52;
    /** sizeof "done": four characters and the NUL. */
    static final int DONE_SIZE = 5;
    static final int PAGE_SIZE = 4096;
    /** The warm-up's round trips at most, and its time at most (it ends sooner once the JIT is quiet). */
    static final int WARMUP_ROUND_TRIPS = 200_000;
    static final long WARMUP_BUDGET_NANOS = 5_000_000_000L;
    /** The warm-up's messages are the run's size up to this (64 KiB: 16 packets at MTU 4096). */
    static final int WARMUP_MAX_SIZE = 65536;

    @CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "server to connect to (client mode)")
    String servername;

    // the order attributes keep ibv_*_pingpong's option order in --help across base and subclasses
    @Option(converter = Converters.Port.class, names = {"-p", "--port"}, order = 10, defaultValue = "18515",
        description = "listen on/connect to TCP port (default ${DEFAULT-VALUE})")
    int port;

    @Option(converter = Converters.DeviceName.class,
        names = {"-d", "--ib-dev"}, order = 20, paramLabel = "DEV", defaultValue = "jrxe0",
        description = "use device DEV (default ${DEFAULT-VALUE})")
    String ibDev;

    @Option(converter = Converters.IbPort.class,
        names = {"-i", "--ib-port"}, order = 30, paramLabel = "PORT", defaultValue = "1",
        description = "use port PORT of the device (default ${DEFAULT-VALUE})")
    int ibPort;

    @Option(converter = Converters.Positive.class,
        names = {"-r", "--rx-depth"}, order = 60, paramLabel = "DEP", defaultValue = "500",
        description = "number of receives to post at a time (default ${DEFAULT-VALUE})")
    int rxDepth;

    @Option(converter = Converters.Positive.class, names = {"-n", "--iters"}, order = 70, defaultValue = "1000",
        description = "number of exchanges (default ${DEFAULT-VALUE})")
    int iters;

    @Option(converter = Converters.ServiceLevel.class, names = {"-l", "--sl"}, order = 80, defaultValue = "0",
        description = "service level value (default ${DEFAULT-VALUE})")
    int sl;

    @Option(names = {"-e", "--events"}, order = 90, description = "sleep on CQ events (default poll)")
    boolean useEvents;

    @Option(converter = Converters.GidIndex.class,
        names = {"-g", "--gid-idx"}, order = 100, paramLabel = "IDX", defaultValue = "1",
        description = "local port gid index (default ${DEFAULT-VALUE}, the IPv4-mapped RoCEv2 GID and a jrxe "
            + "device's only one; unlike the ibv_*_pingpong tools' -1, because RoCE always needs a GID)")
    int gidx;

    @Option(names = {"-c", "--chk"}, order = 150, description = "validate received buffer")
    boolean validate;

    @Option(converter = Converters.DeviceAddress.class, names = "--ip", order = 200, defaultValue = "127.0.0.1",
        description = "IPv4 address of the local jrxe device (default ${DEFAULT-VALUE})")
    String ip;

    @Option(names = "--no-gso", order = 215,
        description = "never send UDP GSO trains: every packet alone, as a capture on lo or veth shows it (docs/CAPTURE.md)")
    boolean noGso;

    @Option(converter = Converters.Port.class, names = "--udp-port", order = 210, defaultValue = "4791",
        description = "UDP port of both devices (default ${DEFAULT-VALUE}, RoCEv2)")
    int udpPort;

    @Option(converter = Converters.WaitSeconds.class, names = "--idle-timeout", order = 230, paramLabel = "S",
        defaultValue = "10", description = "give up after S seconds (0..86400) without a completion or a packet, "
            + "naming the likely causes "
            + "(a peer that exited, a --udp-port that differs); says it is waiting after 3 s; 0 waits forever as "
            + "ibv_*_pingpong (default ${DEFAULT-VALUE})")
    int idleTimeout;

    @Option(converter = Converters.OutputFile.class,
        names = "--pcap", order = 220, paramLabel = "FILE", description = "write every RoCE packet this "
        + "device sends and receives to FILE (pcapng, Wireshark decodes it as RoCEv2)")
    java.nio.file.Path pcap;

    // picocli's standard help options, declared here to keep them last in --help
    @Option(names = {"-h", "--help"}, order = 900, usageHelp = true, description = "Show this help message and exit.")
    boolean helpRequested;

    @Option(names = {"-V", "--version"}, order = 910, versionHelp = true,
        description = "Print version information and exit.")
    boolean versionRequested;

    PrintWriter out;
    PrintWriter err;
    private int numCqEvents;
    private CompletionWatch watch;
    private Device device;

    /** One side's address (one QP's) as exchanged over TCP. */
    record Dest(int lid, int qpn, int psn, Gid gid) {
        /** srq_pingpong's filler for the messages past its QPs: all fields zero. */
        static final Dest NONE = new Dest(0, 0, 0, new Gid(new byte[16]));

        /** The text the C tools send: "%04x:%06x:%06x:%s" with the GID as 32 hex digits. */
        String message() {
            return String.format("%04x:%06x:%06x:%s", lid, qpn, psn, gid.toWireString());
        }

        /** The 52 bytes on the wire: the message, NUL-padded. */
        byte[] encode() {
            byte[] wire = new byte[MSG_SIZE];
            byte[] b = message().getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(b, 0, wire, 0, Math.min(b.length, MSG_SIZE - 1));
            return wire;
        }

        /** Parses what sscanf("%x:%x:%x:%s") reads from the 52 bytes; null if they are not a message. */
        static Dest decode(byte[] wire) {
            int n = 0;
            while (n < wire.length && wire[n] != 0) {
                n++;
            }
            String[] f = new String(wire, 0, n, StandardCharsets.US_ASCII).split(":", 4);
            try {
                if (f.length != 4 || f[3].length() < 32) {
                    return null;
                }
                return new Dest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                    Gid.fromWireString(f[3].substring(0, 32)));
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }

    @Override
    public Integer call() throws Exception {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        watch = null; // a command object run twice starts its waits over
        numCqEvents = 0;
        optionsAgree();
        try (JfrOption.Session recording = jfr.start(err)) {
            try {
                return runOnDevice();
            } finally {
                out.flush();
                err.flush();
            }
        }
    }

    /**
     * Combinations the C tool refuses after parsing, each with its own message, refused through
     * {@link Converters#require} (one line, the usage-error status); none by default. Single
     * values are checked by the options' converters before the command runs.
     */
    void optionsAgree() {
    }

    private int runOnDevice() throws IOException, InterruptedException {
        Device dev;
        try {
            dev = openDevice();
        } catch (RuntimeException e) { // bad address, port in use
            err.printf("Couldn't get context for %s: %s%n", ibDev, e.getMessage());
            return 1;
        }
        device = dev;
        try (dev; Arena arena = Arena.ofShared()) {
            return run(dev, arena);
        }
    }

    /** Loopback addresses after 127.0.0.1 a client tries when its default one is taken. */
    static final int FALLBACK_ADDRESSES = 16;

    /**
     * Opens the device on {@code --ip}. A client left at the default address that finds it taken
     * (a server on this machine, the habit {@code rc-pingpong &} then {@code rc-pingpong
     * localhost}) takes the first free one of 127.0.0.2 .. 127.0.0.17 instead and says which.
     */
    private Device openDevice() {
        try {
            return Device.open(config(ip));
        } catch (VerbsException e) {
            boolean ipGiven = spec.commandLine().getParseResult() != null
                && spec.commandLine().getParseResult().hasMatchedOption("--ip");
            if (e.errno() != Errno.EADDRINUSE || servername == null || ipGiven) {
                throw e;
            }
            for (int i = 2; i < 2 + FALLBACK_ADDRESSES; i++) {
                String alt = "127.0.0." + i;
                try {
                    Device dev = Device.open(config(alt));
                    err.printf("%s: %s UDP %d is taken (a server on this machine?): this client's device uses %s%n",
                        Main.qualifiedName(spec.commandLine()), ip, udpPort, alt);
                    err.flush();
                    ip = alt;
                    return dev;
                } catch (VerbsException taken) {
                    if (taken.errno() != Errno.EADDRINUSE) {
                        throw taken;
                    }
                }
            }
            throw e;
        }
    }

    private DeviceConfig config(String address) {
        DeviceConfig config = DeviceConfig.of(ibDev, address).udpPort(udpPort).noGso(noGso);
        if (pcap != null) {
            config.pcap(pcap);
        }
        return config;
    }

    /** The tool proper, on the open device; buffers come from {@code arena}. Returns the exit code. */
    abstract int run(Device dev, Arena arena) throws IOException, InterruptedException;

    /** The GID of {@code -g} (all zeros for a negative index); null after printing {@code failure}. */
    Gid localGid(Device dev, String failure) {
        try {
            return gidx >= 0 ? dev.queryGid(ibPort, gidx) : new Gid(new byte[16]);
        } catch (VerbsException e) {
            err.printf(failure + "%n", gidx);
            return null;
        }
    }

    /** The port's LID (0 on RoCE); -1 after printing the C tools' message. */
    int localLid(Device dev) {
        try {
            return dev.queryPort(ibPort).lid;
        } catch (VerbsException e) {
            err.println("Couldn't get port info");
            return -1;
        }
    }

    /** The local address line; ud_pingpong puts a colon before "GID" where the others put a comma. */
    void printLocal(Dest d, char beforeGid) {
        out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x%c GID %s%n", d.lid(), d.qpn(), d.psn(),
            beforeGid, DevinfoCommand.ntop(d.gid()));
    }

    void printRemote(Dest d) {
        out.printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", d.lid(), d.qpn(), d.psn(),
            DevinfoCommand.ntop(d.gid()));
    }

    /** The wait for the next completion of this run (from the first call on). */
    CompletionWatch watch() {
        if (watch == null) {
            watch = CompletionWatch.of(err, Main.qualifiedName(spec.commandLine()), udpPort, idleTimeout, device);
        }
        return watch;
    }

    /** Events the run took ({@link PingpongCompletions#events}), to acknowledge after it. */
    void countCqEvents(int n) {
        numCqEvents += n;
    }

    /** ibv_ack_cq_events for every event {@link #countCqEvents} counted. */
    void ackCqEvents(CompletionQueue cq) {
        if (numCqEvents > 0) {
            cq.ackEvents(numCqEvents);
        }
    }

    /** pp_post_recv: posts {@code wr} {@code n} times; returns how many went in (it stops at the first failure). */
    static int postRecvs(QueuePair qp, RecvWr wr, int n) {
        int i = 0;
        try {
            for (; i < n; i++) {
                qp.postRecv(wr);
            }
        } catch (VerbsException e) {
            return i;
        }
        return i;
    }

    /** pp_post_send's classic post; false when it failed (the caller prints "Couldn't post send"). */
    static boolean postSend(QueuePair qp, SendWr wr) {
        try {
            qp.postSend(wr);
            return true;
        } catch (VerbsException e) {
            return false;
        }
    }

    /**
     * One step of pp_close_ctx: destroys {@code resource} (nothing when null); false after printing
     * "Couldn't {@code step}", where the C tools stop tearing down.
     */
    boolean destroyed(String step, AutoCloseable resource) {
        if (resource == null) {
            return true;
        }
        try {
            resource.close();
            return true;
        } catch (VerbsException e) {
            err.printf("Couldn't %s%n", step);
            return false;
        } catch (Exception e) {
            throw new IllegalStateException("jrxe resources fail only with VerbsException", e);
        }
    }

    /**
     * The byte the C tools put at the start of each page with {@code -c}: {@code i / page_size %
     * sizeof(char)}, which is always 0; the check is only as strong as theirs.
     */
    static byte pageMark(long offset) {
        return (byte) (offset / PAGE_SIZE % 1);
    }

    /** {@code -c} on the client: the page marks, in the {@code size} bytes at {@code offset} of {@code buf}. */
    static void markPages(java.lang.foreign.MemorySegment buf, long offset, int size) {
        for (long i = 0; i < size; i += PAGE_SIZE) {
            buf.set(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + i, pageMark(i));
        }
    }

    /** {@code -c} on the server, after the run: "invalid data in page N" for each page mark missing. */
    void checkPages(java.lang.foreign.MemorySegment buf, long offset, int size) {
        for (long i = 0; i < size; i += PAGE_SIZE) {
            if (buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + i) != pageMark(i)) {
                out.printf("invalid data in page %d%n", i / PAGE_SIZE);
            }
        }
    }

    /** The two result lines every ibv_*_pingpong prints (the usec it measures with gettimeofday). */
    void printResults(int size, long elapsedNanos) {
        // The peer may still wait for the ACK of our last message (its last send completion),
        // which the device holds for an answer that will not come: it leaves now, not after the
        // progress thread's grace, so that the peer's clock does not count our printing
        device.pausePolling();
        double usec = elapsedNanos / 1e3;
        long bytes = (long) size * iters * 2;
        out.printf("%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1e6, bytes * 8.0 / usec);
        out.printf("%d iters in %.2f seconds = %.2f usec/iter%n", iters, usec / 1e6, usec / iters);
    }
}
