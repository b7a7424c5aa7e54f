package dev.jrxe.tools;

import dev.jrxe.ib.MkeySendOps;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.SendOps;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.IndirectMemoryKey;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.MkeyEx;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpEx;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.Sge;
import dev.jrxe.verbs.WorkCompletion;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe bench mkey}: RDMA WRITE and SEND bandwidth into an interleaved indirect key and
 * into a list indirect key, against the same bytes into a plain region, in one run: two devices
 * in this JVM, rounds alternating between the three targets, the median of each reported with
 * its ratio to the plain region's.
 */
@Command(name = "mkey", mixinStandardHelpOptions = true,
    description = "WRITE and SEND bandwidth through an interleaved and a list indirect key (UMR) against a plain MR, "
        + "as ratios measured in the same run (two devices in this JVM on 127.0.0.2/3).")
public final class BenchMkeyCommand implements Callable<Integer> {
    private static final String[] TARGETS = {"plain MR", "interleaved key", "list key"};

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(converter = Converters.PositiveSize.class,
        names = {"-s", "--size"}, description = "message size in bytes, a multiple of 16 KiB (default ${DEFAULT-VALUE})",
        defaultValue = "65536")
    int size;

    @Option(converter = Converters.Positive.class,
        names = "--messages", description = "messages per round and target (default ${DEFAULT-VALUE})",
        defaultValue = "8000")
    int messages;

    @Option(converter = Converters.Positive.class,
        names = "--rounds", description = "rounds; medians are reported (default ${DEFAULT-VALUE})",
        defaultValue = "7")
    int rounds;

    @Option(names = "--depth", description = "messages in flight (default ${DEFAULT-VALUE})", defaultValue = "16")
    int depth;

    @Option(converter = Converters.Port.class,
        names = "--udp-port", description = "UDP port of both devices (default ${DEFAULT-VALUE})",
        defaultValue = "4791")
    int udpPort;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Converters.require(spec, size % (16 * 1024) == 0, "--size must be a multiple of 16384: " + size);
        Converters.require(spec, depth >= 1 && depth <= 64, "--depth must be 1..64: " + depth);
        try (Device a = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udpPort));
             Device b = Device.open(DeviceConfig.of("jrxe1", "127.0.0.3").udpPort(udpPort));
             Arena arena = Arena.ofShared()) {
            return run(a, b, arena, out);
        } finally {
            out.flush();
        }
    }

    private int run(Device a, Device b, Arena arena, PrintWriter out) {
        ProtectionDomain pda = a.allocPd();
        ProtectionDomain pdb = b.allocPd();
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE;
        MemorySegment src = arena.allocate(size, 4096);
        src.fill((byte) 0x42);
        MemoryRegion srcMr = pda.registerMemory(src, Access.LOCAL_WRITE);
        // the target: twice the message, so that the layouts can leave gaps
        MemorySegment dst = arena.allocate(2L * size, 4096);
        MemoryRegion dstMr = pdb.registerMemory(dst, access);
        CompletionQueue cqa = a.createCq(256);
        CompletionQueue cqb = b.createCq(256);
        QueuePair qa = pda.createQp(new QpInitAttr(QpType.RC, cqa, cqa, new QpCap(64, 64, 1, 1, 0)));
        QpInitAttr ib = new QpInitAttr(QpType.RC, cqb, cqb, new QpCap(8, 64, 1, 1, 512));
        ib.sendOpsFlags = SendOps.SEND;
        ib.mkeySendOpsFlags = MkeySendOps.ALL;
        QueuePair qb = pdb.createQp(ib);
        new RcConnect().pathMtu(dev.jrxe.ib.Mtu.MTU_4096).pair(qa, 1, qb, 2);

        // interleaved: two 2 KiB pieces every 8 KiB (stride 4 KiB), repeated; list: four quarters
        // of the message, each 16 KiB apart from the last
        IndirectMemoryKey inter = pdb.createIndirectKey(IndirectMemoryKey.INDIRECT, 4);
        IndirectMemoryKey list = pdb.createIndirectKey(IndirectMemoryKey.INDIRECT, 4);
        long base = dst.address();
        int quarter = size / 4;
        QpEx x = qb.ex();
        x.start();
        x.wrFlags = SendFlags.SIGNALED | SendFlags.INLINE;
        MkeyEx mx = MkeyEx.from(x);
        mx.mrInterleaved(inter, access, size / 4096, new MkeyEx.Interleaved(base, 2048, 6144, dstMr.lkey()),
            new MkeyEx.Interleaved(base + 4096, 2048, 6144, dstMr.lkey()));
        mx.mrList(list, access, new Sge(base, quarter, dstMr.lkey()), new Sge(base + 2L * quarter, quarter, dstMr.lkey()),
            new Sge(base + 4L * quarter, quarter, dstMr.lkey()), new Sge(base + 6L * quarter, quarter, dstMr.lkey()));
        x.complete();
        WorkCompletion[] wc = new WorkCompletion[64];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        drain(cqb, wc, 2);

        int[] keys = {dstMr.lkey(), inter.lkey(), list.lkey()};
        long[] remote = {base, 0, 0};
        double[][] writeGbs = new double[3][rounds];
        double[][] sendGbs = new double[3][rounds];
        out.printf("bench mkey: %d B messages, %d per round, %d in flight, %d rounds, target through:%n", size, messages,
            depth, rounds);
        out.printf("  plain MR; interleaved key (2 x 2 KiB every 8 KiB, x%d); list key (4 x %d KiB, gaps between)%n",
            size / 4096, quarter / 1024);
        // warm-up: each target, unmeasured, until the JIT has settled
        for (int k = 0; k < 3; k++) {
            for (int t = 0; t < 3; t++) {
                writes(qa, cqa, wc, src, srcMr, remote[t], keys[t], Math.min(messages, 2000));
                sends(qa, qb, cqa, cqb, wc, src, srcMr, remote[t], keys[t], Math.min(messages, 2000));
            }
        }
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < 3; i++) {
                int t = (r + i) % 3; // each target leads a round in turn
                writeGbs[t][r] = writes(qa, cqa, wc, src, srcMr, remote[t], keys[t], messages);
                sendGbs[t][r] = sends(qa, qb, cqa, cqb, wc, src, srcMr, remote[t], keys[t], messages);
            }
        }
        out.printf("  %-16s %12s %8s %12s %8s%n", "target", "WRITE GB/s", "ratio", "SEND GB/s", "ratio");
        double w0 = median(writeGbs[0]);
        double s0 = median(sendGbs[0]);
        for (int t = 0; t < 3; t++) {
            double w = median(writeGbs[t]);
            double s = median(sendGbs[t]);
            out.printf("  %-16s %12.2f %7.0f%% %12.2f %7.0f%%%n", TARGETS[t], w, 100 * w / w0, s, 100 * s / s0);
        }
        qa.close();
        qb.close();
        return 0;
    }

    /** WRITEs of the message to {@code remote} under {@code rkey}, {@code depth} in flight; GB/s. */
    private double writes(QueuePair qa, CompletionQueue cqa, WorkCompletion[] wc, MemorySegment src, MemoryRegion srcMr,
                          long remote, int rkey, int n) {
        SendWr w = new SendWr(1).sge(src.address(), size, srcMr.lkey()).rdma(remote, rkey);
        w.opcode = WrOpcode.RDMA_WRITE;
        w.sendFlags = SendFlags.SIGNALED;
        long t0 = System.nanoTime();
        int posted = 0;
        int done = 0;
        while (done < n) {
            while (posted < n && posted - done < depth) {
                qa.postSend(w);
                posted++;
            }
            done += drainSome(cqa, wc);
        }
        return (double) size * n / (System.nanoTime() - t0);
    }

    /** SENDs of the message into receives scattered through {@code lkey} at {@code addr}; GB/s. */
    private double sends(QueuePair qa, QueuePair qb, CompletionQueue cqa, CompletionQueue cqb, WorkCompletion[] wc,
                         MemorySegment src, MemoryRegion srcMr, long addr, int lkey, int n) {
        RecvWr r = new RecvWr(1).sge(addr, size, lkey);
        SendWr s = new SendWr(1).sge(src.address(), size, srcMr.lkey());
        s.sendFlags = SendFlags.SIGNALED;
        for (int i = 0; i < depth; i++) {
            qb.postRecv(r);
        }
        long t0 = System.nanoTime();
        int posted = 0;
        int sent = 0;
        int received = 0;
        while (received < n || sent < n) {
            while (posted < n && posted - received < depth && posted - sent < depth) {
                qa.postSend(s);
                posted++;
            }
            sent += drainSome(cqa, wc);
            int got = drainSome(cqb, wc);
            for (int i = 0; i < got; i++) {
                if (received + i + depth < n) {
                    qb.postRecv(r);
                }
            }
            received += got;
        }
        return (double) size * n / (System.nanoTime() - t0);
    }

    private static int drainSome(CompletionQueue cq, WorkCompletion[] wc) {
        int got = cq.poll(wc);
        for (int i = 0; i < got; i++) {
            if (wc[i].status != WcStatus.SUCCESS) {
                throw new IllegalStateException("bench mkey: completion " + WcStatus.str(wc[i].status));
            }
        }
        return got;
    }

    private static void drain(CompletionQueue cq, WorkCompletion[] wc, int n) {
        int done = 0;
        while (done < n) {
            done += drainSome(cq, wc);
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
