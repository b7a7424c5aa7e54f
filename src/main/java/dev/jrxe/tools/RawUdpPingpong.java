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
                buf.clear();
                receive(ch, buf);
                buf.flip();
                ch.write(buf);
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
                    tx.clear().limit(size);
                    rx.clear();
                    long t0 = System.nanoTime();
                    ch.write(tx);
                    int got = receive(ch, rx);
                    long rtt = System.nanoTime() - t0;
                    if (got != size) {
                        throw new IOException("echo of " + got + " bytes for " + size);
                    }
                    h.record(i, rtt);
                }
                out.println(LatencyResult.of(MODE, size, h.measured()).line());
                out.flush();
            }
        }
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
