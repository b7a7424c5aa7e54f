package dev.jrxe.tools;

import dev.jrxe.internal.Internals;
import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.net.DropReason;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.WorkCompletion;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jrxe rc-stream}: a stream of numbered RC SENDs whose receiver checks each one, for runs
 * under loss, duplication, reordering and corruption made outside jrxe (scripts/netns-chaos.sh).
 * The sender keeps a window of SENDs in flight; every message carries its sequence number and a
 * pattern that depends on it. The receiver counts what came in order, what was lost, duplicated,
 * out of order or corrupted (all must be 0), and gives up after {@code --idle-timeout} without a
 * message. A sender whose peer vanishes reports the error its QP ends in, how long after the last
 * progress, and what the timeout and retry_cnt promise. Connected with ibv_rc_pingpong's TCP
 * exchange.
 */
@Command(name = "rc-stream", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"A stream of numbered RC SENDs, every one checked by the receiver (order, duplicates, loss, "
        + "data).", "Without SERVER it receives and checks; with SERVER it sends to it."})
public final class RcStreamCommand implements Callable<Integer> {
    private static final int RECV_RING = 512;

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "receiver to send to (sender mode)")
    String server;

    @Option(converter = Converters.DeviceAddress.class,
        names = "--ip", description = "IPv4 address of the local jrxe device (default ${DEFAULT-VALUE})",
        defaultValue = "127.0.0.1")
    String ip;

    @Option(converter = Converters.Port.class,
        names = {"-p", "--port"}, description = "TCP port of the exchange (default ${DEFAULT-VALUE})",
        defaultValue = "18516")
    int port;

    @Option(names = "--no-gso",
        description = "never send UDP GSO trains: every packet alone, as a capture on lo or veth shows it (docs/CAPTURE.md)")
    boolean noGso;

    @Option(converter = Converters.Port.class,
        names = "--udp-port", description = "UDP port of both devices (default ${DEFAULT-VALUE})",
        defaultValue = "4791")
    int udpPort;

    @Option(converter = Converters.Positive.class,
        names = {"-n", "--messages"}, description = "messages in the stream (default ${DEFAULT-VALUE})",
        defaultValue = "100000")
    int messages;

    @Option(converter = Converters.PositiveSize.class,
        names = {"-s", "--size"}, description = "message size, 8 .. 65536 (default ${DEFAULT-VALUE})",
        defaultValue = "1024")
    int size;

    @Option(names = {"-w", "--window"}, description = "SENDs in flight at most (default ${DEFAULT-VALUE})",
        defaultValue = "64")
    int window;

    @Option(converter = Converters.MtuBytes.class,
        names = {"-m", "--mtu"}, description = "path MTU (default ${DEFAULT-VALUE})", defaultValue = "1024")
    int mtu;

    @Option(names = "--timeout", description = "local ACK timeout exponent: 4.096 us x 2^T (default ${DEFAULT-VALUE})",
        defaultValue = "14")
    int timeout;

    @Option(names = "--retry-cnt", description = "retransmissions before RETRY_EXC_ERR (default ${DEFAULT-VALUE})",
        defaultValue = "7")
    int retryCnt;

    @Option(converter = Converters.Positive.class,
        names = "--idle-timeout", description = "receiver: seconds without a message before it gives up "
        + "(default ${DEFAULT-VALUE})", defaultValue = "30")
    int idleSeconds;

    @CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private PrintWriter out;
    private PrintWriter err;

    @Override
    public Integer call() throws Exception {
        try (JfrOption.Session recording = jfr.start(spec.commandLine().getErr())) {
            return execute();
        }
    }

    private Integer execute() throws Exception {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        CommandLine cl = spec.commandLine();
        Converters.require(spec, size >= 8 && size <= 65536, "--size must be 8 .. 65536: " + size);
        Converters.require(spec, window >= 1 && window <= 1024, "--window must be 1 .. 1024: " + window);
        Converters.require(spec, timeout >= 1 && timeout <= 31, "--timeout must be 1 .. 31: " + timeout);
        Converters.require(spec, retryCnt >= 0 && retryCnt <= 7, "--retry-cnt must be 0 .. 7: " + retryCnt);
        DeviceConfig config;
        try {
            config = DeviceConfig.of("jrxe0", ip).udpPort(udpPort).noGso(noGso);
        } catch (RuntimeException e) {
            throw new CommandLine.ParameterException(cl, "--ip " + ip + ": " + e.getMessage());
        }
        try (Device dev = Device.open(config); Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = dev.allocPd();
            long slot = (size + 63) & ~63L;
            MemorySegment buf = arena.allocate(slot * (Math.max(RECV_RING, window) + 1), 4096);
            MemoryRegion mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
            CompletionQueue cq = dev.createCq(RECV_RING + window + 16);
            QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(window, RECV_RING, 1, 1, 0)));
            RcConnect rc = new RcConnect().pathMtu(Mtu.fromBytes(mtu)).timeout(timeout).retries(retryCnt, 7);
            rc.toInit(qp);
            RecvWr rwr = new RecvWr(1);
            if (server == null) {
                for (int i = 0; i < RECV_RING; i++) {
                    rwr.wrId = i;
                    rwr.sge(buf.address() + i * slot, size, mr.lkey());
                    qp.postRecv(rwr);
                }
            }
            int psn = new SecureRandom().nextInt() & 0xFFFFFF;
            PingpongCommand.Dest me = new PingpongCommand.Dest(0, qp.qpNum(), psn, dev.queryGid(1, 1));
            exchange(me, rc, qp);
            int rc2 = server == null ? receive(dev, qp, cq, buf, slot, mr, rwr) : send(dev, qp, cq, buf, slot, mr);
            qp.close();
            return rc2;
        }
    }

    /** ibv_rc_pingpong's exchange: the receiver listens, moves to RTS first and answers. */
    private PingpongCommand.Dest exchange(PingpongCommand.Dest me, RcConnect rc, QueuePair qp) throws IOException {
        PingpongExchange.ToRts toRts = rem -> rc.toRts(qp, me.psn(), rem.gid(), rem.qpn(), rem.psn());
        if (server == null) {
            return PingpongExchange.serve(new InetSocketAddress(ip, port), me, toRts, () -> {
                out.println("rc-stream: receiving on " + ip + ", waiting for the sender on TCP port " + port);
                out.flush();
            });
        }
        try {
            return PingpongExchange.join(server, port, me, toRts, 100);
        } catch (IOException e) {
            throw new IOException("cannot reach the receiver: " + e.getMessage(), e);
        }
    }

    private static byte patternByte(long seq, int i) {
        return (byte) (seq * 0x9E37 + i * 29 + (i >>> 7));
    }

    private int send(Device dev, QueuePair qp, CompletionQueue cq, MemorySegment buf, long slot, MemoryRegion mr) {
        SendWr wr = new SendWr(1);
        wr.sendFlags = SendFlags.SIGNALED;
        WorkCompletion[] wc = new WorkCompletion[32];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        long t0 = System.nanoTime();
        long lastProgress = t0;
        long sent = 0;
        long done = 0;
        while (done < messages) {
            while (sent < messages && sent - done < window) {
                long at = (sent % window) * slot;
                buf.set(ValueLayout.JAVA_LONG_UNALIGNED, at, sent);
                for (int i = 8; i < size; i++) {
                    buf.set(ValueLayout.JAVA_BYTE, at + i, patternByte(sent, i));
                }
                wr.wrId = sent;
                wr.sge(buf.address() + at, size, mr.lkey());
                qp.postSend(wr);
                sent++;
            }
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (wc[i].status != WcStatus.SUCCESS) {
                    long ms = (System.nanoTime() - lastProgress) / 1_000_000;
                    long promise = (4096L << timeout) * (retryCnt + 1) / 1_000_000; // 4.096 us x 2^T per try
                    long failed = wc[i].wrId;
                    int status = wc[i].status;
                    int flushed = 0;
                    for (int k = i + 1; k < n; k++) {
                        flushed += wc[k].status == WcStatus.WR_FLUSH_ERR ? 1 : 0;
                    }
                    flushed += drainFlushed(cq, wc, sent - done - 1 - flushed);
                    err.printf("rc-stream: message %d failed: %s (%s), %d ms after the last progress (timeout %d and "
                        + "retry_cnt %d promise %d ms); %d posted, %d acknowledged, %d more flushed%n", failed,
                        WcStatus.str(status), WcStatus.name(status), ms, timeout, retryCnt, promise, sent, done,
                        flushed);
                    err.flush();
                    return 1;
                }
                done++;
                lastProgress = System.nanoTime();
            }
        }
        double s = (System.nanoTime() - t0) / 1e9;
        out.printf("%d messages of %d bytes in %.2f seconds = %.0f messages/s, %.1f MB/s%n", messages, size, s,
            messages / s, messages * (double) size / s / 1e6);
        counters(dev);
        return 0;
    }

    /** After an error completion: the flushed rest (up to {@code expected} more), counted. */
    private static int drainFlushed(CompletionQueue cq, WorkCompletion[] wc, long expected) {
        int flushed = 0;
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (flushed < expected && System.nanoTime() < deadline) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (wc[i].status == WcStatus.WR_FLUSH_ERR) {
                    flushed++;
                }
            }
        }
        return flushed;
    }

    private int receive(Device dev, QueuePair qp, CompletionQueue cq, MemorySegment buf, long slot, MemoryRegion mr,
                        RecvWr rwr) {
        WorkCompletion[] wc = new WorkCompletion[32];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        long expected = 0;
        long duplicated = 0;
        long outOfOrder = 0;
        long corrupted = 0;
        long received = 0;
        long t0 = 0;
        long last = System.nanoTime();
        while (expected < messages) {
            int n = cq.poll(wc);
            if (n == 0) {
                if (System.nanoTime() - last > idleSeconds * 1_000_000_000L) {
                    err.printf("rc-stream: no message for %d s after %d of %d; the sender stopped%n", idleSeconds,
                        expected, messages);
                    err.flush();
                    return 1;
                }
                continue;
            }
            last = System.nanoTime();
            if (t0 == 0) {
                t0 = last;
            }
            for (int i = 0; i < n && expected < messages; i++) { // a longer stream's rest is not ours
                WorkCompletion w = wc[i];
                if (w.status != WcStatus.SUCCESS || w.opcode != WcOpcode.RECV) {
                    err.printf("rc-stream: receive failed: %s%n", WcStatus.str(w.status));
                    err.flush();
                    return 1;
                }
                received++;
                long at = w.wrId * slot;
                long seq = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
                if (seq < expected) {
                    duplicated++;
                } else if (seq > expected) {
                    outOfOrder++;
                    expected = seq + 1;
                } else {
                    expected++;
                }
                if (w.byteLen != size) {
                    corrupted++;
                } else {
                    for (int k = 8; k < size; k++) {
                        if (buf.get(ValueLayout.JAVA_BYTE, at + k) != patternByte(seq, k)) {
                            corrupted++;
                            break;
                        }
                    }
                }
                rwr.wrId = w.wrId;
                rwr.sge(buf.address() + at, size, mr.lkey());
                qp.postRecv(rwr);
            }
        }
        double s = (System.nanoTime() - t0) / 1e9;
        long lost = messages - received + duplicated;
        out.printf("%d messages: %d received, %d lost, %d duplicated, %d out of order, %d corrupted; %.2f seconds%n",
            messages, received, lost, duplicated, outOfOrder, corrupted, s);
        counters(dev);
        boolean ok = received == messages && duplicated == 0 && outOfOrder == 0 && corrupted == 0;
        return ok ? 0 : 1;
    }

    private void counters(Device dev) {
        StringBuilder b = new StringBuilder("counters:");
        for (String c : new String[] {"sent_pkts", "rcvd_pkts", "completer_retry_err", "rcvd_seq_err",
            "duplicate_request", "out_of_seq_request", "rcvd_rnr_err"}) {
            b.append(' ').append(c).append('=').append(dev.counters().get(c));
        }
        LinkCounters l = Internals.link(dev).counters();
        for (DropReason r : DropReason.values()) {
            if (l.drops(r) > 0) {
                b.append(" drop_").append(r.name().toLowerCase(java.util.Locale.ROOT)).append('=').append(l.drops(r));
            }
        }
        out.println(b);
        out.flush();
    }
}
