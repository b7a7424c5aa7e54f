package dev.jrxe.bench;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.internal.Internals;
import dev.jrxe.net.DatagramHandler;
import dev.jrxe.net.Link;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.net.LinkMode;
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
import dev.jrxe.wire.IcrcSealer;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Quick measurement, not a test: the Java work of an RC SEND ping-pong as ibv_rc_pingpong runs
 * it (each side's next send waits for its last one's completion), between two devices in one
 * thread, with manual progress, over an in-memory link that seals every datagram with the real
 * ICRC and copies it to the peer (no system calls, nothing allocated per datagram). Prints ns per
 * round trip (both sides' work) each second. What the same code costs between system calls is
 * about twice as much (docs/BENCHMARKS.md). Run after {@code mvn test-compile}:
 * {@code java --enable-native-access=ALL-UNNAMED -cp target/classes:target/test-classes
 * dev.jrxe.bench.TurnaroundHarness SIZE MTU [SECONDS]} ({@code -Dharness.syscall=true} adds a
 * system call where the real link makes one; {@code ... TurnaroundHarness getppid} prints what one
 * costs alone); profile with
 * {@code -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer} and
 * {@code perf record -g -p PID}.
 */
public final class TurnaroundHarness {
    private TurnaroundHarness() {
    }

    /**
     * {@code -Dharness.syscall=true}: a {@code getppid} system call wherever the real link makes
     * one (each poll, each flush that sends), so the Java work runs between system calls as in the
     * real loop (on a kernel with page-table isolation and no PCID, each one empties the TLB).
     */
    static final boolean SYSCALL = Boolean.getBoolean("harness.syscall");
    /** System calls made since the last report (one thread). */
    private static long syscalls;
    private static final MethodHandle GETPPID = Linker.nativeLinker().downcallHandle(
        Linker.nativeLinker().defaultLookup().find("getppid").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT));

    private static void getppid() {
        try {
            int unused = (int) GETPPID.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void syscall() {
        if (SYSCALL) {
            syscalls++;
            getppid();
        }
    }

    /** One side's link: a ring of datagrams from the peer. Single-threaded, like every link. */
    static final class RingLink implements Link {
        private static final int SLOTS = 256;
        private static final int MAX = 4096 + 128;
        private final int addr;
        private final int port;
        private RingLink peer;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment tx = arena.allocate(MAX, 64);
        private final MemorySegment[] ring = new MemorySegment[SLOTS];
        private final int[] lens = new int[SLOTS];
        private final int[] srcPorts = new int[SLOTS];
        private int head;
        private int tail;
        private int committed;
        private final IcrcSealer sealer = new IcrcSealer();
        private final LinkCounters counters = new LinkCounters();

        RingLink(int addr, int port) {
            this.addr = addr;
            this.port = port;
            for (int i = 0; i < SLOTS; i++) {
                ring[i] = arena.allocate(MAX, 64);
            }
        }

        @Override
        public int localAddress() {
            return addr;
        }

        @Override
        public int localPort() {
            return port;
        }

        @Override
        public int maxDatagram() {
            return MAX;
        }

        @Override
        public MemorySegment claim() {
            return tx;
        }

        @Override
        public void commit(int length, int dstAddr, int dstPort, int srcPort) {
            sealer.seal(tx, 0, length, addr, dstAddr, srcPort, dstPort, 0);
            if (peer.tail - peer.head >= SLOTS) {
                throw new IllegalStateException("ring full");
            }
            int s = peer.tail++ & (SLOTS - 1);
            MemorySegment.copy(tx, 0, peer.ring[s], 0, length);
            peer.lens[s] = length;
            peer.srcPorts[s] = srcPort;
            counters.sent(length);
            committed++;
        }

        @Override
        public int flush() {
            int n = committed;
            if (n > 0) {
                syscall();
            }
            committed = 0;
            return n;
        }

        @Override
        public int poll(DatagramHandler handler, int limit) {
            int n = 0;
            syscall();
            while (n < limit && head != tail) {
                int s = head++ & (SLOTS - 1);
                counters.received(lens[s]);
                handler.onDatagram(ring[s], 0, lens[s], peer.addr, srcPorts[s], addr);
                n++;
            }
            return n;
        }

        @Override
        public boolean lastPollFull() {
            return false;
        }

        @Override
        public boolean awaitReadable(long timeoutNanos) {
            return head != tail;
        }

        @Override
        public void wakeup() {
        }

        @Override
        public LinkMode mode() {
            return LinkMode.CHANNEL;
        }

        @Override
        public LinkCounters counters() {
            return counters;
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    /** One side: a device, an RC QP, a buffer (sends from its start, receives into its second half). */
    static final class Side {
        final Device dev;
        final QueuePair qp;
        private final MemorySegment buf;
        private final MemoryRegion mr;
        private final CompletionQueue cq;
        private final RecvWr rwr = new RecvWr(1);
        private final SendWr swr = new SendWr(1);
        private final WorkCompletion[] wc = new WorkCompletion[16];
        int sends;

        Side(String name, String ip, RingLink link) {
            dev = Device.open(Internals.withLink(DeviceConfig.of(name, ip).manualProgress(), link));
            ProtectionDomain pd = dev.allocPd();
            buf = Arena.ofShared().allocate(8192, 4096);
            mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
            cq = dev.createCq(256);
            qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(64, 64, 1, 1, 0)));
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            swr.opcode = WrOpcode.SEND;
        }

        void postRecv() {
            rwr.wrId = 1;
            rwr.sge(buf.address() + 4096, 4096, mr.lkey());
            qp.postRecv(rwr);
        }

        void send(int size) {
            swr.wrId = 2;
            swr.sendFlags = SendFlags.SIGNALED;
            swr.sge(buf.address(), size, mr.lkey());
            qp.postSend(swr);
            sends++;
        }

        /** Polls the CQ once; true when a receive completed. */
        boolean poll() {
            int n = cq.poll(wc);
            boolean received = false;
            for (int i = 0; i < n; i++) {
                if (wc[i].status != WcStatus.SUCCESS) {
                    throw new IllegalStateException("completion " + WcStatus.str(wc[i].status));
                }
                if (wc[i].opcode == WcOpcode.SEND) {
                    sends--;
                } else {
                    received = true;
                }
            }
            return received;
        }
    }

    /**
     * {@code from} sends once its last send completed, {@code to} takes the message and posts a
     * receive in its place. Both devices progress in every wait, as two processes would, so that
     * each side's held ACK goes with its answer or when its hold expires.
     */
    private static void oneWay(Side from, Side to, int size) {
        while (from.sends > 0) {
            from.dev.progress();
            to.dev.progress();
            from.poll();
        }
        from.send(size);
        while (!to.poll()) {
            to.dev.progress();
            from.dev.progress();
        }
        to.postRecv();
    }

    public static void main(String[] args) {
        if (args[0].equals("getppid")) {
            // what one such system call costs alone, to subtract
            for (int r = 0; r < 5; r++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < 1_000_000; i++) {
                    getppid();
                }
                System.out.printf("getppid %.0f ns%n", (System.nanoTime() - t0) / 1e6);
            }
            return;
        }
        int size = Integer.parseInt(args[0]);
        int mtu = Integer.parseInt(args[1]);
        long seconds = args.length > 2 ? Long.parseLong(args[2]) : 10;
        RingLink la = new RingLink(0x7f000002, 4791);
        RingLink lb = new RingLink(0x7f000003, 4791);
        la.peer = lb;
        lb.peer = la;
        Side a = new Side("turnaround-a", "127.0.0.2", la);
        Side b = new Side("turnaround-b", "127.0.0.3", lb);
        RcConnect rc = new RcConnect().pathMtu(Mtu.fromBytes(mtu));
        rc.toInit(a.qp);
        rc.toInit(b.qp);
        for (int i = 0; i < 32; i++) {
            a.postRecv();
            b.postRecv();
        }
        rc.toRts(a.qp, 1, b.dev.queryGid(1, 1), b.qp.qpNum(), 2);
        rc.toRts(b.qp, 2, a.dev.queryGid(1, 1), a.qp.qpNum(), 1);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long mark = System.nanoTime();
        long n = 0;
        long atMark = 0;
        while (true) {
            oneWay(a, b, size);
            oneWay(b, a, size);
            if ((++n & 0xFFF) == 0) {
                long t = System.nanoTime();
                if (t - mark > 1_000_000_000L) {
                    System.out.printf("%.0f ns/rt, %.1f syscalls/rt%n", (t - mark) / (double) (n - atMark),
                        syscalls / (double) (n - atMark));
                    syscalls = 0;
                    mark = t;
                    atMark = n;
                }
                if (t > end) {
                    break;
                }
            }
        }
        a.dev.close();
        b.dev.close();
    }
}
