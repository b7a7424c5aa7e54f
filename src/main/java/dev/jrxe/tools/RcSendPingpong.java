package dev.jrxe.tools;

import dev.jrxe.internal.Internals;
import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.NativeMemory;
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
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.security.SecureRandom;

/**
 * jrxe's side of the benchmark: an RC QP per process, connected with ibv_rc_pingpong's TCP exchange
 * on 127.0.0.1. The initiator posts a SEND and busy-polls its CQ until the echo's RECV completes; the
 * responder busy-polls, and for each RECV reposts the buffer and SENDs the same number of bytes back.
 * Receives are pre-posted in a ring so that posting one never waits; every SEND is signaled.
 */
final class RcSendPingpong {
    static final String MODE = "rc";
    /** Buffers from jrxe's allocator: the transport copies directly. */
    static final String MEMORY_NATIVE = "native";
    /** Buffers from a shared {@link Arena}: what most applications have (registered by segment, copied directly). */
    static final String MEMORY_ARENA = "arena";
    private static final int RECV_RING = 64;
    private static final int MAX_SEND = 64;
    private static final long SILENCE_NANOS = 10_000_000_000L;
    private static final long LINGER_NANOS = 500_000_000L;

    private final Device dev;
    private final Arena arena = Arena.ofShared();
    private final ProtectionDomain pd;
    private final MemoryRegion mr;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemorySegment buf;
    private final boolean nativeMemory;
    private final MemorySegment sendBuf;
    private final long recvBase;
    private final int slot;
    private final RecvWr rwr = new RecvWr(1);
    private final SendWr swr = new SendWr(1);
    private final WorkCompletion[] wc = new WorkCompletion[16];
    private int sendsOutstanding;
    /** Sends that may be in flight before the next one waits: 1 is ibv_rc_pingpong's way (ACK-bound). */
    private int sendWindow = MAX_SEND;

    private RcSendPingpong(String name, String ip, int udpPort, int maxSize, String memory) {
        dev = Device.open(DeviceConfig.of(name, ip).udpPort(udpPort));
        pd = dev.allocPd();
        slot = (maxSize + 63) & ~63;
        long bytes = (long) slot * (RECV_RING + 1);
        buf = switch (memory) {
            case MEMORY_NATIVE -> NativeMemory.map(bytes);
            case MEMORY_ARENA -> arena.allocate(bytes, 4096);
            default -> throw new IllegalArgumentException("memory " + memory + ": native or arena");
        };
        nativeMemory = memory.equals(MEMORY_NATIVE);
        sendBuf = buf.asSlice(0, slot);
        recvBase = buf.address() + slot;
        mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
        cq = dev.createCq(RECV_RING + MAX_SEND + 1);
        qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(MAX_SEND, RECV_RING, 1, 1, 0)));
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        swr.opcode = WrOpcode.SEND;
    }

    private void postRecv(long index) {
        int i = (int) (index % RECV_RING);
        rwr.wrId = i;
        rwr.sge(recvBase + (long) i * slot, slot, mr.lkey());
        qp.postRecv(rwr);
    }

    private void send(int size) {
        swr.wrId = size;
        swr.sendFlags = SendFlags.SIGNALED | (size <= qp.cap().maxInlineData ? SendFlags.INLINE : 0);
        swr.sge(sendBuf.address(), size, mr.lkey());
        qp.postSend(swr);
        sendsOutstanding++;
    }

    /** Connects to the peer over TCP as ibv_rc_pingpong does; {@code server} listens. */
    private void connect(int tcpPort, boolean server, int mtu, PrintStream out) throws IOException {
        RcConnect rc = new RcConnect().pathMtu(Mtu.fromBytes(mtu));
        rc.toInit(qp);
        for (long i = 0; i < RECV_RING; i++) {
            postRecv(i);
        }
        PingpongCommand.Dest me = new PingpongCommand.Dest(0, qp.qpNum(), new SecureRandom().nextInt() & 0xFFFFFF,
            dev.queryGid(1, 1));
        PingpongExchange.ToRts toRts = rem -> rc.toRts(qp, me.psn(), rem.gid(), rem.qpn(), rem.psn());
        if (server) {
            PingpongExchange.serve(new InetSocketAddress("127.0.0.1", tcpPort), me, toRts, () -> {
                out.println(BenchPingpongCommand.READY);
                out.flush();
            });
        } else {
            PingpongExchange.join("127.0.0.1", tcpPort, me, toRts, 1);
        }
    }

    /** Polls once; returns the byte count of a RECV completion seen, or -1. Counts SEND completions. */
    private int pollOnce() throws IOException {
        int n = cq.poll(wc);
        int received = -1;
        for (int i = 0; i < n; i++) {
            WorkCompletion w = wc[i];
            if (w.status != WcStatus.SUCCESS) {
                throw new IOException("completion " + WcStatus.str(w.status) + " for wr_id " + w.wrId);
            }
            if (w.opcode == WcOpcode.SEND) {
                sendsOutstanding--;
            } else {
                if (received >= 0) {
                    throw new IOException("two receives in one poll: the peer is not ping-ponging");
                }
                received = w.byteLen;
            }
        }
        return received;
    }

    private int awaitRecv() throws IOException {
        long since = System.nanoTime();
        int spins = 0;
        int got;
        while ((got = pollOnce()) < 0) {
            if ((++spins & 0xFFFF) == 0 && System.nanoTime() - since > SILENCE_NANOS) {
                throw new IOException("peer silent for " + SILENCE_NANOS / 1_000_000_000 + " s");
            }
        }
        return got;
    }

    private void awaitSendSlot() throws IOException {
        while (sendsOutstanding >= sendWindow) {
            if (pollOnce() >= 0) {
                throw new IOException("unexpected receive");
            }
        }
    }

    /**
     * One measured round trip, in nanoseconds; {@code recv} counts the receives taken so far. A
     * method of its own, as {@link #echo}: the JIT compiles it from its calls during the warm-up,
     * whereas a loop entered once per size is only compiled on the stack after 60,000 iterations:
     * the first size's round trips ran interpreted, and the next size's measured ones met the
     * loop's own compilations (-Xlog:jit+compilation).
     */
    private long roundTrip(int size, long recv) throws IOException {
        awaitSendSlot();
        long t0 = System.nanoTime();
        send(size);
        int got = awaitRecv();
        long rtt = System.nanoTime() - t0;
        postRecv(recv + RECV_RING);
        if (got != size) {
            throw new IOException("echo of " + got + " bytes for " + size);
        }
        return rtt;
    }

    /** The responder's round trip {@code n}: takes a SEND, reposts its buffer, SENDs as many bytes back. */
    private void echo(long n) throws IOException {
        int size = awaitRecv();
        postRecv(n + RECV_RING);
        awaitSendSlot();
        send(size);
    }

    /** Lets the last ACKs flow before the device goes away. */
    private void linger() throws IOException {
        long end = System.nanoTime() + LINGER_NANOS;
        while (sendsOutstanding > 0 && System.nanoTime() < end) {
            pollOnce();
        }
    }

    private void close(PrintStream out, String side) {
        TransportCounters c = Internals.transportCounters(dev);
        StringBuilder sb = new StringBuilder("INFO " + side + " counters:");
        for (int i = 0; i < TransportCounters.count(); i++) {
            if (c.get(i) != 0) {
                sb.append(' ').append(TransportCounters.name(i)).append('=').append(c.get(i));
            }
        }
        LinkCounters l = Internals.link(dev).counters();
        sb.append(String.format("; link tx %d pkts in %d calls, rx %d pkts in %d calls", l.txPackets(), l.txCalls(),
            l.rxPackets(), l.rxCalls()));
        sb.append("; thread CPU ms:");
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            long ns = mx.getThreadCpuTime(t.threadId());
            if (ns > 50_000_000L) {
                sb.append(' ').append(t.getName()).append('=').append(ns / 1_000_000);
            }
        }
        out.println(sb);
        out.flush();
        dev.close();
        if (nativeMemory) {
            NativeMemory.unmap(buf);
        }
        arena.close();
    }

    static void respond(String ip, int udpPort, int tcpPort, int mtu, String memory, int sendWindow,
                        PingpongPlan plan, PrintStream out) throws IOException {
        RcSendPingpong side = new RcSendPingpong("bench1", ip, udpPort, plan.maxSize(), memory);
        side.sendWindow = sendWindow;
        try {
            side.connect(tcpPort, true, mtu, out);
            for (long n = 0; n < plan.totalRoundTrips(); n++) {
                side.echo(n);
            }
            side.linger();
        } finally {
            side.close(out, "responder");
        }
    }

    static void initiate(String ip, int udpPort, int tcpPort, int mtu, String memory, int sendWindow,
                         PingpongPlan plan, PrintStream out) throws IOException {
        RcSendPingpong side = new RcSendPingpong("bench0", ip, udpPort, plan.maxSize(), memory);
        side.sendWindow = sendWindow;
        try {
            side.connect(tcpPort, false, mtu, out);
            long recvs = 0;
            for (int size : plan.sizes()) {
                RoundTripRecorder h = new RoundTripRecorder(plan.warmup(), plan.iters());
                for (int i = 0; i < plan.warmup() + plan.iters(); i++) {
                    h.record(i, side.roundTrip(size, recvs++));
                }
                out.println(LatencyResult.of(MODE, size, h.measured()).line());
                out.flush();
            }
            side.linger();
        } finally {
            side.close(out, "initiator");
        }
    }
}
