package dev.jrxe.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * The baseline: plain Java UDP between two processes, both sides busy-polling a non-blocking
 * {@link DatagramChannel}. The initiator sends, spins on receive until the echo is back, records the
 * round trip; the responder spins on receive and sends each datagram straight back.
 */
final class RawUdpPingpong {
    static final String MODE = "raw";
    /** Give up when the peer has been silent this long (a lost datagram would otherwise hang the run). */
    private static final long SILENCE_NANOS = 10_000_000_000L;

    private RawUdpPingpong() {
    }

    private static DatagramChannel open(InetSocketAddress local, InetSocketAddress peer, int bufSize)
        throws IOException {
        DatagramChannel ch = DatagramChannel.open();
        ch.setOption(StandardSocketOptions.SO_RCVBUF, Math.max(bufSize * 8, 1 << 20));
        ch.setOption(StandardSocketOptions.SO_SNDBUF, Math.max(bufSize * 8, 1 << 20));
        ch.bind(local);
        ch.connect(peer);
        ch.configureBlocking(false);
        return ch;
    }

    /** Echoes {@code plan.totalRoundTrips()} datagrams; says READY on {@code out} once bound. */
    static void respond(InetSocketAddress local, InetSocketAddress peer, PingpongPlan plan, PrintStream out)
        throws IOException {
        try (DatagramChannel ch = open(local, peer, plan.maxSize())) {
            ByteBuffer buf = ByteBuffer.allocateDirect(plan.maxSize());
            out.println(BenchPingpongCommand.READY);
            out.flush();
            for (long n = 0; n < plan.totalRoundTrips(); n++) {
                echo(ch, buf);
            }
        }
    }

    /** Runs the plan and prints one {@link LatencyResult} line per size on {@code out}. */
    static void initiate(InetSocketAddress local, InetSocketAddress peer, PingpongPlan plan, PrintStream out)
        throws IOException {
        try (DatagramChannel ch = open(local, peer, plan.maxSize())) {
            ByteBuffer tx = ByteBuffer.allocateDirect(plan.maxSize());
            ByteBuffer rx = ByteBuffer.allocateDirect(plan.maxSize());
            for (int i = 0; i < plan.maxSize(); i++) {
                tx.put(i, (byte) i);
            }
            for (int size : plan.sizes()) {
                RoundTripRecorder h = new RoundTripRecorder(plan.warmup(), plan.iters());
                for (int i = 0; i < plan.warmup() + plan.iters(); i++) {
                    h.record(i, roundTrip(ch, tx, rx, size));
                }
                out.println(LatencyResult.of(MODE, size, h.measured()).line());
                out.flush();
            }
        }
    }

    /**
     * One measured round trip, in nanoseconds. A method of its own, as {@link #echo}: the JIT
     * compiles it from its calls during the warm-up, whereas a loop entered once per size is only
     * compiled on the stack after 60,000 iterations, so that the first size's round trips ran
     * interpreted and the next size's met the compilation (as jrxe's, {@code RcSendPingpong}).
     */
    private static long roundTrip(DatagramChannel ch, ByteBuffer tx, ByteBuffer rx, int size) throws IOException {
        tx.clear().limit(size);
        rx.clear();
        long t0 = System.nanoTime();
        ch.write(tx);
        int got = receive(ch, rx);
        long rtt = System.nanoTime() - t0;
        if (got != size) {
            throw new IOException("echo of " + got + " bytes for " + size);
        }
        return rtt;
    }

    /** Receives one datagram and sends it back: the responder's round trip ({@link #roundTrip}'s reason). */
    private static void echo(DatagramChannel ch, ByteBuffer buf) throws IOException {
        buf.clear();
        receive(ch, buf);
        buf.flip();
        ch.write(buf);
    }

    private static int receive(DatagramChannel ch, ByteBuffer buf) throws IOException {
        int n;
        long since = System.nanoTime();
        int spins = 0;
        while ((n = ch.read(buf)) == 0) {
            if ((++spins & 0xFFFF) == 0 && System.nanoTime() - since > SILENCE_NANOS) {
                throw new IOException("peer silent for " + SILENCE_NANOS / 1_000_000_000 + " s");
            }
        }
        return n;
    }
}
