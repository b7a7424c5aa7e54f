package dev.jrxe.tools;

import dev.jrxe.internal.Internals;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.net.DropReason;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.transport.TransportCounters;
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
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe demo}: two devices in one JVM (127.0.0.2 and 127.0.0.3) joined by RC; a SEND
 * ping-pong with every byte checked, then RDMA WRITE, READ and both atomics, then both devices'
 * counters.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Two jrxe devices on 127.0.0.2 and 127.0.0.3: RC ping-pong, RDMA WRITE/READ, atomics.")
public final class DemoCommand implements Callable<Integer> {
    @Option(converter = Converters.Positive.class,
        names = {"-n", "--iters"}, description = "ping-pong round trips (default ${DEFAULT-VALUE})",
        defaultValue = "1000")
    int iters;

    @Option(converter = Converters.Positive.class,
        names = {"-s", "--size"}, description = "message size in bytes (default ${DEFAULT-VALUE})",
        defaultValue = "4096")
    int size;

    @Option(converter = Converters.Port.class,
        names = "--udp-port", description = "UDP port of both devices (default ${DEFAULT-VALUE})",
        defaultValue = "4791")
    int udpPort;

    @Option(converter = Converters.OutputFile.class,
        names = "--pcap", description = "write both devices' packets to FILE-a.pcapng / FILE-b.pcapng")
    Path pcap;

    @Option(converter = Converters.Probability.class,
        names = "--loss", description = "inject this drop probability (and half as much duplication and "
        + "reordering) on both links, e.g. 0.05", defaultValue = "0")
    double loss;

    @Option(converter = Converters.LinkModeName.class,
        names = "--link-mode", description = "link mode: AUTO, CHANNEL, MMSG or GSO (default ${DEFAULT-VALUE})",
        defaultValue = "AUTO")
    String linkMode;

    @Option(names = "--no-gso",
        description = "never send UDP GSO trains: every packet alone, as a capture on lo or veth shows it (docs/CAPTURE.md)")
    boolean noGso;

    @CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private PrintWriter out;

    @Override
    public Integer call() throws Exception {
        try (JfrOption.Session recording = jfr.start(spec.commandLine().getErr())) {
            return execute();
        }
    }

    private Integer execute() throws Exception {
        out = spec.commandLine().getOut();
        DeviceConfig ca = DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udpPort).noGso(noGso);
        DeviceConfig cb = DeviceConfig.of("jrxe1", "127.0.0.3").udpPort(udpPort).noGso(noGso);
        ca.linkMode(linkMode);
        cb.linkMode(linkMode);
        if (pcap != null) {
            ca.pcap(Path.of(pcap + "-a.pcapng"));
            cb.pcap(Path.of(pcap + "-b.pcapng"));
        }
        if (loss > 0) {
            ca.faults(loss, loss / 2, loss / 2, 11);
            cb.faults(loss, loss / 2, loss / 2, 13);
        }
        try (Device a = Device.open(ca); Device b = Device.open(cb); Arena arena = Arena.ofShared()) {
            out.printf("jrxe demo: %s and %s, RoCEv2 over UDP port %d%n", a, b, a.udpPort());
            boolean ok = run(a, b, arena);
            printCounters(a);
            printCounters(b);
            out.println(ok ? "demo: all checks passed" : "demo: FAILED");
            return ok ? 0 : 1;
        }
    }

    private boolean run(Device a, Device b, Arena arena) {
        int access = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
        ProtectionDomain pda = a.allocPd();
        ProtectionDomain pdb = b.allocPd();
        MemorySegment bufA = arena.allocate(size * 2L, 4096);
        MemorySegment bufB = arena.allocate(size * 2L, 4096);
        MemoryRegion mra = pda.registerMemory(bufA, access);
        MemoryRegion mrb = pdb.registerMemory(bufB, access);
        CompletionQueue cqa = a.createCq(64);
        CompletionQueue cqb = b.createCq(64);
        QueuePair qa = pda.createQp(new QpInitAttr(QpType.RC, cqa, cqa, new QpCap(16, 16, 1, 1, 0)));
        QueuePair qb = pdb.createQp(new QpInitAttr(QpType.RC, cqb, cqb, new QpCap(16, 16, 1, 1, 0)));
        new RcConnect().pair(qa, 0x1234 % 0xFFFFFF, qb, 0xABCDE);
        out.printf("RC connected: %s QPN 0x%06x <-> %s QPN 0x%06x, path MTU %d%n", a.name(), qa.qpNum(), b.name(),
            qb.qpNum(), qa.query().pathMtu == 0 ? 0 : 128 << qa.query().pathMtu);

        // 1. SEND ping-pong, data checked both ways
        WorkCompletion[] wc = {new WorkCompletion()};
        SendWr send = new SendWr(1);
        RecvWr recv = new RecvWr(1);
        long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            recv.sge(bufB.address() + size, size, mrb.lkey());
            qb.postRecv(recv);
            fill(bufA, 0, size, i);
            send.opcode = WrOpcode.SEND;
            send.sendFlags = SendFlags.SIGNALED;
            send.sge(bufA.address(), size, mra.lkey());
            qa.postSend(send);
            if (!expect(cqb, wc, WcOpcode.RECV) || !expect(cqa, wc, WcOpcode.SEND) || !check(bufB, size, size, i)) {
                return false;
            }
            recv.sge(bufA.address() + size, size, mra.lkey());
            qa.postRecv(recv);
            fill(bufB, 0, size, ~i);
            send.sge(bufB.address(), size, mrb.lkey());
            qb.postSend(send);
            if (!expect(cqa, wc, WcOpcode.RECV) || !expect(cqb, wc, WcOpcode.SEND) || !check(bufA, size, size, ~i)) {
                return false;
            }
        }
        double us = (System.nanoTime() - t0) / 1e3 / iters;
        out.printf("SEND ping-pong: %d round trips of %d bytes, every byte checked: %.2f usec/round trip%n", iters,
            size, us);

        // 2. RDMA WRITE a -> b, checked at b
        fill(bufA, 0, size, 77);
        send.opcode = WrOpcode.RDMA_WRITE;
        send.sge(bufA.address(), size, mra.lkey()).rdma(bufB.address(), mrb.rkey());
        qa.postSend(send);
        if (!expect(cqa, wc, WcOpcode.RDMA_WRITE) || !check(bufB, 0, size, 77)) {
            return false;
        }
        out.printf("RDMA WRITE: %d bytes into %s's memory, checked%n", size, b.name());

        // 3. RDMA READ b -> a
        fill(bufB, size, size, 99);
        send.opcode = WrOpcode.RDMA_READ;
        send.sge(bufA.address(), size, mra.lkey()).rdma(bufB.address() + size, mrb.rkey());
        qa.postSend(send);
        if (!expect(cqa, wc, WcOpcode.RDMA_READ) || !check(bufA, 0, size, 99)) {
            return false;
        }
        out.printf("RDMA READ: %d bytes from %s's memory, checked%n", size, b.name());

        // 4. atomics on an 8-byte word of b
        bufB.set(ValueLayout.JAVA_LONG, 0, 40);
        send.opcode = WrOpcode.ATOMIC_FETCH_AND_ADD;
        send.compareAdd = 2;
        send.sge(bufA.address(), 8, mra.lkey()).rdma(bufB.address(), mrb.rkey());
        qa.postSend(send);
        if (!expect(cqa, wc, WcOpcode.FETCH_ADD)) {
            return false;
        }
        long fetched = bufA.get(ValueLayout.JAVA_LONG, 0);
        long now = bufB.get(ValueLayout.JAVA_LONG, 0);
        send.opcode = WrOpcode.ATOMIC_CMP_AND_SWP;
        send.compareAdd = 42;
        send.swap = 4242;
        qa.postSend(send);
        if (!expect(cqa, wc, WcOpcode.COMP_SWAP)) {
            return false;
        }
        long swappedFrom = bufA.get(ValueLayout.JAVA_LONG, 0);
        long after = bufB.get(ValueLayout.JAVA_LONG, 0);
        boolean atomicsOk = fetched == 40 && now == 42 && swappedFrom == 42 && after == 4242;
        out.printf("ATOMIC FETCH_ADD 40+2: returned %d, memory %d; CMP_SWP 42->4242: returned %d, memory %d: %s%n",
            fetched, now, swappedFrom, after, atomicsOk ? "ok" : "WRONG");
        qa.close();
        qb.close();
        cqa.close();
        cqb.close();
        mra.close();
        mrb.close();
        return atomicsOk;
    }

    private static void fill(MemorySegment s, long off, int n, int seed) {
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, off + i, (byte) (seed * 31 + i * 7));
        }
    }

    private boolean check(MemorySegment s, long off, int n, int seed) {
        for (int i = 0; i < n; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, off + i) != (byte) (seed * 31 + i * 7)) {
                out.printf("data mismatch at byte %d%n", i);
                return false;
            }
        }
        return true;
    }

    private boolean expect(CompletionQueue cq, WorkCompletion[] wc, int opcode) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() > deadline) {
                out.println("timed out waiting for a completion");
                return false;
            }
        }
        if (wc[0].status != WcStatus.SUCCESS || wc[0].opcode != opcode) {
            out.printf("unexpected completion %s%n", wc[0]);
            return false;
        }
        return true;
    }

    private void printCounters(Device d) {
        TransportCounters c = Internals.transportCounters(d);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < TransportCounters.count(); i++) {
            sb.append(String.format("  %-24s %d%n", TransportCounters.name(i), c.get(i)));
        }
        LinkCounters l = Internals.link(d).counters();
        out.printf("counters of %s:%n%s", d.name(), sb);
        out.printf("  link: tx %d pkts / %d bytes, rx %d pkts / %d bytes", l.txPackets(), l.txBytes(),
            l.rxPackets(), l.rxBytes());
        for (DropReason r : DropReason.values()) {
            if (l.drops(r) > 0) {
                out.printf(", dropped %s %d", r, l.drops(r));
            }
        }
        out.println();
    }
}
