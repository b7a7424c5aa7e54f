package dev.jrxe.tools;

import dev.jrxe.internal.Internals;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.transport.TransportCounters;
import dev.jrxe.verbs.AddressHandle;
import dev.jrxe.verbs.AhAttr;
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
import dev.jrxe.verbs.SrdDv;
import dev.jrxe.verbs.UdSetup;
import dev.jrxe.verbs.WorkCompletion;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe bench srd}: the same one-way SEND traffic over RC and over SRD, on a clean link and
 * on a link that drops and reorders, side by side in one run: message latency (post to the
 * receiver's completion, one clock: both devices are in this JVM) at p50 / p99 / p99.9 and the
 * message rate, each with its ratio to RC's on the same link. What the SRD paper claims is lower
 * tail latency than an ordered transport when packets are lost or reordered; this measures
 * whether jrxe shows it.
 */
@Command(name = "srd", mixinStandardHelpOptions = true,
    description = {"SRD against RC on the same traffic, clean and under fault injection, in one run "
        + "(two devices in this JVM on 127.0.0.2/3): message latency p50/p99/p99.9 and rate, as ratios to RC's."})
public final class BenchSrdCommand implements Callable<Integer> {
    private static final int QKEY = 0x5AD;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(converter = Converters.PositiveSize.class, names = {"-s", "--size"},
        description = "message size, at most the MTU 1024 (default ${DEFAULT-VALUE})", defaultValue = "1024")
    int size;

    @Option(converter = Converters.Positive.class, names = "--messages",
        description = "messages per transport and link (default ${DEFAULT-VALUE})", defaultValue = "20000")
    int messages;

    @Option(converter = Converters.Positive.class, names = "--window",
        description = "messages in flight (default ${DEFAULT-VALUE})", defaultValue = "16")
    int window;

    @Option(converter = Converters.Probability.class, names = "--drop",
        description = "probability that the faulty link drops a datagram, each way (default ${DEFAULT-VALUE})",
        defaultValue = "0.05")
    double drop;

    @Option(converter = Converters.Probability.class, names = "--reorder",
        description = "probability that it holds one back behind the next ones (default ${DEFAULT-VALUE})",
        defaultValue = "0.05")
    double reorder;

    @Option(converter = Converters.NonNegative.class, names = "--warmup",
        description = "untimed messages per transport on the clean link first, so that neither is measured "
            + "while the JIT compiles it (default ${DEFAULT-VALUE})", defaultValue = "5000")
    int warmup;

    @Option(names = "--seed", description = "fault injection seed (default ${DEFAULT-VALUE})", defaultValue = "1")
    long seed;

    @Option(converter = Converters.PortOrZero.class, names = "--udp-port",
        description = "UDP port of the devices; 0 picks a free one (default ${DEFAULT-VALUE})", defaultValue = "0")
    int udpPort;

    /** One transport's figures on one link. */
    record Figures(String transport, String link, long p50, long p99, long p999, double rate, long retransmitted) {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Converters.require(spec, size <= 1024, "--size must be at most the MTU 1024: " + size);
        Converters.require(spec, window <= 128, "--window must be 1..128: " + window);
        out.printf("bench srd: %d messages of %d bytes, %d in flight; faulty link: drop %.3f, reorder %.3f each way%n",
            messages, size, window, drop, reorder);
        out.printf("%-4s %-7s %10s %10s %10s %12s %9s %9s %11s%n", "", "link", "p50 us", "p99 us", "p99.9 us",
            "msgs/s", "p99/RC", "rate/RC", "pkts again");
        if (warmup > 0) {
            run(false, false, warmup);
            run(true, false, warmup);
        }
        for (boolean faulty : new boolean[] {false, true}) {
            Figures rc = run(false, faulty, messages);
            Figures srd = run(true, faulty, messages);
            print(out, rc, rc);
            print(out, srd, rc);
        }
        out.flush();
        return 0;
    }

    private static void print(PrintWriter out, Figures f, Figures rc) {
        out.printf("%-4s %-7s %10.1f %10.1f %10.1f %12.0f %9.2f %9.2f %11d%n", f.transport, f.link, f.p50 / 1e3,
            f.p99 / 1e3, f.p999 / 1e3, f.rate, (double) f.p99 / rc.p99, f.rate / rc.rate, f.retransmitted);
    }

    private Figures run(boolean srd, boolean faulty, int messages) throws Exception {
        int port = udpPort != 0 ? udpPort : FreePorts.udp("127.0.0.2", "127.0.0.3");
        DeviceConfig ca = DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(port);
        DeviceConfig cb = DeviceConfig.of("jrxe1", "127.0.0.3").udpPort(port);
        if (faulty) {
            ca.faults(drop, 0, reorder, seed);
            cb.faults(drop, 0, reorder, seed + 1);
        }
        try (Device a = Device.open(ca); Device b = Device.open(cb); Arena arena = Arena.ofShared()) {
            ProtectionDomain pda = a.allocPd();
            ProtectionDomain pdb = b.allocPd();
            MemorySegment src = arena.allocate(size + 4L, 4096);
            MemorySegment dst = arena.allocate((long) window * 2 * (size + 4), 4096);
            MemoryRegion srcMr = pda.registerMemory(src, Access.LOCAL_WRITE);
            MemoryRegion dstMr = pdb.registerMemory(dst, Access.LOCAL_WRITE);
            CompletionQueue cqa = a.createCq(1024);
            CompletionQueue cqb = b.createCq(1024);

            QueuePair qa;
            QueuePair qb;
            AddressHandle ah = null;
            if (srd) {
                qa = SrdDv.createQp(pda, new QpInitAttr(QpType.DRIVER, cqa, cqa, new QpCap(256, 256, 1, 1, 0)), 0);
                qb = SrdDv.createQp(pdb, new QpInitAttr(QpType.DRIVER, cqb, cqb, new QpCap(256, 256, 1, 1, 0)), 0);
                UdSetup.toRts(qa, QKEY, 1);
                UdSetup.toRts(qb, QKEY, 2);
                ah = pda.createAh(new AhAttr(b.queryGid(1, 1), 1));
            } else {
                qa = pda.createQp(new QpInitAttr(QpType.RC, cqa, cqa, new QpCap(256, 256, 1, 1, 0)));
                qb = pdb.createQp(new QpInitAttr(QpType.RC, cqb, cqb, new QpCap(256, 256, 1, 1, 0)));
                new RcConnect().pair(qa, 1, qb, 2); // the tools' defaults: timeout 14, retry 7
            }
            int slots = window * 2;
            int stride = size + 4;
            for (int i = 0; i < slots; i++) {
                RecvWr r = new RecvWr().sge(dst.address() + (long) i * stride, stride, dstMr.lkey());
                r.wrId = i;
                qb.postRecv(r);
            }
            SendWr w = new SendWr().sge(src.address(), Math.max(4, size), srcMr.lkey());
            w.sendFlags = SendFlags.SIGNALED;
            w.ah = ah;
            w.remoteQpn = qb.qpNum();
            w.remoteQkey = QKEY;
            long[] postedAt = new long[messages];
            Histogram h = new Histogram(3_600_000_000_000L, 3);
            WorkCompletion[] wc = new WorkCompletion[16];
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            int posted = 0;
            int sent = 0;
            int received = 0;
            long start = System.nanoTime();
            while (received < messages || sent < messages) {
                while (posted < messages && posted - received < window) {
                    src.set(ValueLayout.JAVA_INT_UNALIGNED, 0, posted);
                    postedAt[posted] = System.nanoTime();
                    qa.postSend(w);
                    posted++;
                }
                int n = cqa.poll(wc);
                for (int i = 0; i < n; i++) {
                    check(wc[i]);
                }
                sent += n;
                n = cqb.poll(wc);
                long now = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    check(wc[i]);
                    long at = wc[i].wrId * stride;
                    int id = dst.get(ValueLayout.JAVA_INT_UNALIGNED, at);
                    h.recordValue(now - postedAt[id]);
                    RecvWr r = new RecvWr().sge(dst.address() + at, stride, dstMr.lkey());
                    r.wrId = wc[i].wrId;
                    qb.postRecv(r);
                }
                received += n;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long again = srd ? Internals.transportCounters(a).get(TransportCounters.SRD_RETRANSMITS)
                : Internals.transportCounters(a).get(TransportCounters.SENT_PKTS) - messages;
            Figures f = new Figures(srd ? "SRD" : "RC", faulty ? "faulty" : "clean", h.getValueAtPercentile(50),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), messages / seconds, again);
            qa.close();
            qb.close();
            if (ah != null) {
                ah.close();
            }
            return f;
        }
    }

    private static void check(WorkCompletion c) {
        if (c.status != WcStatus.SUCCESS) {
            throw new IllegalStateException("a completion failed: " + WcStatus.str(c.status));
        }
    }
}
