package dev.jrxe.tools;

import dev.jrxe.net.DatagramHandler;
import dev.jrxe.net.DatagramSealer;
import dev.jrxe.net.Link;
import dev.jrxe.net.LinkConfig;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.net.LinkMode;
import dev.jrxe.net.Links;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.zip.CRC32;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * Measures the link alone: RoCE-sized datagrams (4096 bytes of payload plus BTH and ICRC: 4112
 * bytes of UDP payload) one way from this process to a receiver in a child JVM, for each link
 * mode, next to a plain {@link DatagramChannel} send/receive loop measured in the same run.
 *
 * <p>Each path: the child binds the receiver and says READY; this process sends as fast as it can
 * for a warm-up, then marks START, sends for the measured time, marks STOP. Both sides count
 * between the marks; the receiver's count gives the rate (what arrived), the difference to the
 * sender's count the loss (the receiver's socket buffer overflowing).
 *
 * <p>{@code ./jrxe bench link} wraps {@link #run}; {@link #main} is the same with plain arguments.
 */
public final class LinkBench {
    /** The raw DatagramChannel baseline's name in results. */
    public static final String RAW = "RAW";

    /**
     * @param paths    paths to measure, each "RAW" or a {@link LinkMode} name (AUTO allowed)
     * @param payload  RoCE payload bytes per datagram (UDP payload = 12 + payload + 4)
     * @param warmup   sending before the measurement starts
     * @param duration measured sending time per path
     * @param sender   sender IPv4 address (127.0.0.0/8 on one host)
     * @param receiver receiver IPv4 address
     * @param batch    link batch size
     * @param crc      compute a CRC-32 over every datagram in the sealer (the cost of the ICRC)
     * @param repeat   runs per path; the run with the median rate is reported
     */
    public record Options(List<String> paths, int payload, Duration warmup, Duration duration,
                          String sender, String receiver, int batch, boolean crc, int repeat) {
        public static Options defaults() {
            return new Options(List.of(RAW, "CHANNEL", "MMSG", "GSO"), 4096, Duration.ofSeconds(1),
                    Duration.ofSeconds(3), "127.0.0.2", "127.0.0.3", 64, false, 1);
        }

        public Options withPaths(List<String> v) {
            return new Options(v, payload, warmup, duration, sender, receiver, batch, crc, repeat);
        }

        public Options withPayload(int v) {
            return new Options(paths, v, warmup, duration, sender, receiver, batch, crc, repeat);
        }

        public Options withWarmup(Duration v) {
            return new Options(paths, payload, v, duration, sender, receiver, batch, crc, repeat);
        }

        public Options withDuration(Duration v) {
            return new Options(paths, payload, warmup, v, sender, receiver, batch, crc, repeat);
        }

        public Options withAddresses(String senderAddress, String receiverAddress) {
            return new Options(paths, payload, warmup, duration, senderAddress, receiverAddress, batch, crc, repeat);
        }

        public Options withBatch(int v) {
            return new Options(paths, payload, warmup, duration, sender, receiver, v, crc, repeat);
        }

        public Options withCrc(boolean v) {
            return new Options(paths, payload, warmup, duration, sender, receiver, batch, v, repeat);
        }

        public Options withRepeat(int v) {
            return new Options(paths, payload, warmup, duration, sender, receiver, batch, crc, v);
        }

        int datagram() {
            return 12 + payload + 4;
        }
    }

    /** What one path achieved between the marks. */
    public record Result(String path, int datagram, long sent, long received, long receivedBytes, long nanos,
                         long txCalls, long rxCalls) {
        public double packetsPerSecond() {
            return received * 1e9 / nanos;
        }

        /** Gigabytes (10^9 bytes) of UDP payload received per second. */
        public double gigabytesPerSecond() {
            return receivedBytes / (double) nanos;
        }

        /** Share of the datagrams sent between the marks that did not arrive between them, in percent. */
        public double lossPercent() {
            return sent == 0 ? 0 : Math.max(0, 100.0 * (sent - received) / sent);
        }
    }

    private LinkBench() {
    }

    /** Measures every path in {@code options}, printing a line per path and a summary to {@code out}. */
    public static List<Result> run(Options options, PrintStream out) throws IOException, InterruptedException {
        out.printf(Locale.ROOT, "link bench: %d-byte UDP payloads (RoCE payload %d), %s -> %s, receiver in a child JVM,"
                        + " warm-up %d ms, measured %d ms per path, median of %d run(s)%s%n", options.datagram(),
                options.payload(), options.sender(), options.receiver(), options.warmup().toMillis(),
                options.duration().toMillis(), options.repeat(), options.crc() ? ", CRC-32 per datagram" : "");
        out.printf(Locale.ROOT, "%-8s %12s %12s %8s %7s %9s %9s %8s%n",
                "path", "sent/s", "recv/s", "GB/s", "loss%", "tx pk/call", "rx pk/call", "vs RAW");
        List<Result> results = new ArrayList<>();
        Result raw = null;
        for (String path : options.paths()) {
            List<Result> runs = new ArrayList<>();
            for (int i = 0; i < Math.max(1, options.repeat()); i++) {
                runs.add(measure(path, options));
            }
            runs.sort(java.util.Comparator.comparingDouble(Result::gigabytesPerSecond));
            Result r = runs.get(runs.size() / 2);
            results.add(r);
            if (r.path().equals(RAW)) {
                raw = r;
            }
            out.printf(Locale.ROOT, "%-8s %12.0f %12.0f %8.3f %7.1f %9.1f %9.1f %8s%n",
                    r.path(), r.sent() * 1e9 / r.nanos(), r.packetsPerSecond(), r.gigabytesPerSecond(),
                    r.lossPercent(), perCall(r.sent(), r.txCalls()), perCall(r.received(), r.rxCalls()),
                    raw == null ? "-" : String.format(Locale.ROOT, "%.2fx", r.gigabytesPerSecond() / raw.gigabytesPerSecond()));
        }
        return results;
    }

    private static double perCall(long packets, long calls) {
        return calls == 0 ? 0 : packets / (double) calls;
    }

    private static Result measure(String path, Options o) throws IOException, InterruptedException {
        String mode = path.equalsIgnoreCase(RAW) ? RAW : Links.resolve(LinkMode.valueOf(path.toUpperCase(Locale.ROOT))).name();
        Process child = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), LinkBench.class.getName(), "--receive", mode,
                o.receiver(), Integer.toString(o.batch()), Integer.toString(o.datagram())))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader from = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            Writer to = new java.io.OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
            String ready = from.readLine();
            if (ready == null || !ready.startsWith("READY ")) {
                throw new IOException("receiver did not start: " + ready);
            }
            int port = Integer.parseInt(ready.substring(6).trim());
            Sender sender = mode.equals(RAW) ? new RawSender(o, port) : new LinkSender(o, LinkMode.valueOf(mode), port);
            try {
                sender.sendFor(o.warmup().toNanos());
                long sent0 = sender.sent();
                long calls0 = sender.calls();
                to.write("START\n");
                to.flush();
                sender.sendFor(o.duration().toNanos());
                long sent = sender.sent() - sent0;
                long calls = sender.calls() - calls0;
                to.write("STOP\n");
                to.flush();
                String line = from.readLine();
                if (line == null || !line.startsWith("RESULT ")) {
                    throw new IOException("receiver gave no result: " + line);
                }
                String[] f = line.substring(7).trim().split(" ");
                return new Result(mode, o.datagram(), sent, Long.parseLong(f[0]), Long.parseLong(f[1]),
                        Long.parseLong(f[2]), calls, Long.parseLong(f[3]));
            } finally {
                sender.close();
            }
        } finally {
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
    }

    // ------------------------------------------------------------------ senders

    private interface Sender extends AutoCloseable {
        void sendFor(long nanos) throws IOException;

        long sent();

        long calls();

        @Override
        void close() throws IOException;
    }

    private static final class LinkSender implements Sender {
        private final Link link;
        private final int dst;
        private final int port;
        private final int datagram;
        private final int batch;
        private int psn;

        LinkSender(Options o, LinkMode mode, int port) throws IOException {
            DatagramSealer sealer = o.crc() ? crcSealer() : DatagramSealer.NONE;
            this.link = Links.open(LinkConfig.builder(o.sender()).port(0).mode(mode).batch(o.batch())
                    .maxDatagram(Math.max(o.datagram(), 64)).build(), sealer);
            this.dst = Links.toInt(o.receiver());
            this.port = port;
            this.datagram = o.datagram();
            this.batch = o.batch();
        }

        @Override
        public void sendFor(long nanos) {
            long end = System.nanoTime() + nanos;
            do {
                for (int i = 0; i < batch; i++) {
                    MemorySegment buf = link.claim();
                    buf.set(JAVA_INT_UNALIGNED, 0, 0x0004FFFF);
                    buf.set(JAVA_INT_UNALIGNED, 8, psn++);
                    link.commit(datagram, dst, port, 0);
                }
                link.flush();
            } while (System.nanoTime() < end);
        }

        @Override
        public long sent() {
            return link.counters().txPackets();
        }

        @Override
        public long calls() {
            return link.counters().txCalls();
        }

        @Override
        public void close() {
            link.close();
        }
    }

    /** CRC-32 over the datagram, stored in its last 4 bytes: what an ICRC costs, without RoCE knowledge. */
    private static DatagramSealer crcSealer() {
        CRC32 crc = new CRC32();
        return (buf, off, len, s, d, sp, dp, id) -> {
            crc.reset();
            crc.update(buf.asSlice(off, len - 4).asByteBuffer());
            buf.set(JAVA_INT_UNALIGNED, off + len - 4, (int) crc.getValue());
        };
    }

    private static final class RawSender implements Sender {
        private final DatagramChannel channel;
        private final ByteBuffer buffer;
        private final InetSocketAddress target;
        private long sent;

        RawSender(Options o, int port) throws IOException {
            channel = DatagramChannel.open(StandardProtocolFamily.INET);
            channel.bind(new InetSocketAddress(o.sender(), 0));
            buffer = ByteBuffer.allocateDirect(o.datagram());
            target = new InetSocketAddress(o.receiver(), port);
        }

        @Override
        public void sendFor(long nanos) throws IOException {
            long end = System.nanoTime() + nanos;
            do {
                for (int i = 0; i < 64; i++) {
                    buffer.clear();
                    channel.send(buffer, target);
                    sent++;
                }
            } while (System.nanoTime() < end);
        }

        @Override
        public long sent() {
            return sent;
        }

        @Override
        public long calls() {
            return sent;
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    // ------------------------------------------------------------------ receiver (child process)

    /** Child: {@code --receive PATH ADDRESS BATCH DATAGRAM}; counts between START and STOP on stdin. */
    private static void receive(String path, String address, int batch, int datagram) throws IOException {
        // packets, bytes, calls: written by the receive loop, read by the stdin thread
        AtomicLongArray count = new AtomicLongArray(3);
        Runnable loop;
        int port;
        if (path.equals(RAW)) {
            DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, dev.jrxe.Configuration.linkReceiveBuffer());
            ch.bind(new InetSocketAddress(address, 0));
            port = ((InetSocketAddress) ch.getLocalAddress()).getPort();
            ByteBuffer buf = ByteBuffer.allocateDirect(datagram + 1);
            loop = () -> {
                try {
                    while (true) {
                        buf.clear();
                        ch.receive(buf);
                        count.setOpaque(0, count.getPlain(0) + 1);
                        count.setOpaque(1, count.getPlain(1) + buf.position());
                        count.setOpaque(2, count.getPlain(2) + 1);
                    }
                } catch (IOException e) {
                    // closed at exit
                }
            };
        } else {
            Link link = Links.open(LinkConfig.builder(address).port(0).mode(LinkMode.valueOf(path)).batch(batch)
                    .maxDatagram(Math.max(datagram, 64)).build(), DatagramSealer.NONE);
            port = link.localPort();
            DatagramHandler touch = (b, off, len, s, sp, d) -> b.get(JAVA_INT_UNALIGNED, off + 8) == 42 ? 0 : -1;
            loop = () -> {
                while (true) {
                    if (link.poll(touch, batch) == 0) {
                        link.awaitReadable(100_000_000L);
                    }
                    LinkCounters c = link.counters();
                    count.setOpaque(0, c.rxPackets());
                    count.setOpaque(1, c.rxBytes());
                    count.setOpaque(2, c.rxCalls());
                }
            };
        }
        Thread.ofPlatform().daemon().name("receiver").start(loop);
        System.out.println("READY " + port);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long t0 = 0;
        long b0 = 0;
        long c0 = 0;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("START")) {
                t0 = System.nanoTime();
                b0 = count.getOpaque(1);
                c0 = count.getOpaque(2);
            } else if (line.equals("STOP")) {
                long t = System.nanoTime() - t0;
                // all datagrams have one size: counting them by bytes keeps packets and bytes consistent
                long bytes = count.getOpaque(1) - b0;
                System.out.println("RESULT " + bytes / datagram + " " + bytes / datagram * datagram + " " + t
                        + " " + (count.getOpaque(2) - c0));
                System.out.flush();
                break;
            }
        }
        System.exit(0);
    }

    /**
     * {@code LinkBench [--paths RAW,CHANNEL,MMSG,GSO] [--payload 4096] [--seconds 3] [--warmup-ms 1000]
     * [--batch 64] [--repeat 1] [--crc]}; the child mode {@code --receive ...} is internal.
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--receive")) {
            receive(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            return;
        }
        Options o = Options.defaults();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            o = switch (a) {
                case "--paths" -> o.withPaths(List.of(args[++i].split(",")));
                case "--payload" -> o.withPayload(Integer.parseInt(args[++i]));
                case "--seconds" -> o.withDuration(Duration.ofMillis((long) (Double.parseDouble(args[++i]) * 1000)));
                case "--warmup-ms" -> o.withWarmup(Duration.ofMillis(Long.parseLong(args[++i])));
                case "--batch" -> o.withBatch(Integer.parseInt(args[++i]));
                case "--repeat" -> o.withRepeat(Integer.parseInt(args[++i]));
                case "--crc" -> o.withCrc(true);
                default -> throw new IllegalArgumentException("unknown option " + a);
            };
        }
        run(o, System.out);
    }
}
