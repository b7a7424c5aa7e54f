package dev.jrxe.tools;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * perftest's out-of-band channel: one TCP connection (port 18515), or with -R or -z an rdma_cm
 * connection to that port ({@link PerftestCmChannel}), on which both sides exchange messages of
 * equal size in lock step, the client writing first and the server reading first
 * (../shared/reference/cm-and-perftest.md §4.1-4.6): the versions, cycle buffer, cache line and
 * MTU, then the QP records ("handshakes": text over TCP, perftest's struct over rdma_cm), the
 * bandwidth report, and the closing handshake with its "done".
 */
final class PerftestOob implements Closeable {
    /** What carries the messages: each written whole, each read whole. */
    interface Channel extends Closeable {
        void write(byte[] message) throws IOException;

        /** Reads the peer's next message, which must be {@code into.length} bytes. */
        void readFully(byte[] into) throws IOException;

        /** Whether the peer's next message has come (and waits to be read). */
        boolean available() throws IOException;

        /** Lets a read wait {@code millis} in all. */
        void readTimeout(long millis) throws IOException;
    }

    /** perftest's TCP connection. */
    private static final class Tcp implements Channel {
        private final Socket socket;
        private final DataInputStream in;
        private final OutputStream out;

        Tcp(Socket socket) throws IOException {
            this.socket = socket;
            socket.setTcpNoDelay(true);
            this.in = new DataInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        }

        @Override
        public void write(byte[] message) throws IOException {
            out.write(message);
            out.flush();
        }

        @Override
        public void readFully(byte[] into) throws IOException {
            in.readFully(into);
        }

        @Override
        public boolean available() throws IOException {
            return in.available() > 0;
        }

        @Override
        public void readTimeout(long millis) throws IOException {
            socket.setSoTimeout(Math.toIntExact(millis));
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /**
     * The version jrxe says it is: in perftest's [5.70, 6.28), so that a real perftest accepts it and
     * neither side starts the 6.28 parameter negotiation (whose binary layout is unverified).
     */
    static final String VERSION = "6.06";
    static final int VERSION_BYTES = 16;
    static final int STEP_TIMEOUT_MILLIS = 60_000;

    /** How long a client does its {@link Meanwhile} work at most before it just waits for the peer. */
    static final long MEANWHILE_NANOS = 10_000_000_000L;
    /** What each side writes after the closing handshake over TCP, and nobody reads (perftest's ctx_close_connection). */
    static final byte[] DONE = "done\0".getBytes(StandardCharsets.US_ASCII);

    private final Channel channel;
    private final boolean client;
    /** The GID index an rdma_cm record carries; -1: the records travel as text, over TCP. */
    private final int cmGidIndex;

    private PerftestOob(Channel channel, boolean client, int cmGidIndex) throws IOException {
        this.channel = channel;
        this.client = client;
        this.cmGidIndex = cmGidIndex;
        channel.readTimeout(STEP_TIMEOUT_MILLIS);
    }

    /**
     * The exchange over perftest's rdma_cm control connection (-R, -z), whose records are the binary
     * struct carrying {@code gidIndex}.
     */
    static PerftestOob overRdmaCm(PerftestCmChannel channel, boolean client, int gidIndex) throws IOException {
        return new PerftestOob(channel, client, gidIndex);
    }

    /** Server: listens on {@code bind}, accepts one client, closes the listener (as perftest). */
    static PerftestOob accept(InetSocketAddress bind, int timeoutMillis) throws IOException {
        return accept(bind, timeoutMillis, () -> { });
    }

    /** As {@link #accept(InetSocketAddress, int)}, running {@code whileListening} between listen and accept. */
    static PerftestOob accept(InetSocketAddress bind, int timeoutMillis, Runnable whileListening) throws IOException {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(bind, 1);
            whileListening.run();
            ss.setSoTimeout(timeoutMillis);
            try {
                return new PerftestOob(new Tcp(ss.accept()), false, -1);
            } catch (java.net.SocketTimeoutException e) {
                throw new IOException("no client connected to " + bind + " within " + timeoutMillis / 1000 + " s");
            }
        }
    }

    /** Client: connects, retrying every 100 ms for {@code timeoutMillis} while the server is not listening yet. */
    static PerftestOob connect(InetSocketAddress server, int timeoutMillis) throws IOException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(server, timeoutMillis);
                return new PerftestOob(new Tcp(s), true, -1);
            } catch (java.net.ConnectException e) {
                s.close();
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("Couldn't connect to " + server.getHostString() + ":" + server.getPort());
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException();
            }
        }
    }

    /**
     * Lets each exchange wait {@code runMillis} longer than {@link #STEP_TIMEOUT_MILLIS}: with -D
     * one side waits in an exchange while the other runs for the duration.
     */
    void allowRun(long runMillis) throws IOException {
        channel.readTimeout(STEP_TIMEOUT_MILLIS + runMillis);
    }

    /** One lock-step exchange: the client writes then reads, the server reads then writes. */
    byte[] exchange(byte[] mine) throws IOException {
        return exchange(mine, null);
    }

    private byte[] exchange(byte[] mine, Meanwhile meanwhile) throws IOException {
        byte[] theirs = new byte[mine.length];
        if (client) {
            channel.write(mine);
            // bounded: a TCP peer that is gone is never "available"; its EOF shows in the read
            long until = System.nanoTime() + MEANWHILE_NANOS;
            while (meanwhile != null && !channel.available() && System.nanoTime() - until < 0) {
                meanwhile.step();
            }
            channel.readFully(theirs);
        } else {
            channel.readFully(theirs);
            channel.write(mine);
        }
        return theirs;
    }

    /** What the two sides settle on before the QP records. */
    record Settled(String peerVersion, int cycleBuffer, int cacheLine, int mtu) {
    }

    /**
     * Versions (16 bytes), cycle buffer and cache line (big-endian ints: the larger wins) and the
     * MTU enum as decimal text + NUL (the smaller wins), as perftest's exchange_versions,
     * check_sys_data and check_mtu.
     */
    Settled settle(int cycleBuffer, int cacheLine, int mtu) throws IOException {
        byte[] v = new byte[VERSION_BYTES];
        byte[] mine = VERSION.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(mine, 0, v, 0, mine.length);
        String peer = cString(exchange(v));
        double pv;
        try {
            pv = Double.parseDouble(peer);
        } catch (NumberFormatException e) {
            throw new IOException("the peer's version '" + peer + "' is not perftest's");
        }
        if (pv < 5.70) {
            throw new IOException("the peer's perftest " + peer + " is older than 5.70");
        }
        int peerCycle = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(cycleBuffer).array())).getInt();
        int peerLine = ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(cacheLine).array())).getInt();
        // what real machines send (a page, a cache line); anything else would size our buffers for the peer
        if (Integer.bitCount(peerCycle) != 1 || peerCycle < 4096 || peerCycle > 1 << 16) {
            throw new IOException("the peer's cycle buffer " + peerCycle + " is not a page size (4 KiB .. 64 KiB)");
        }
        if (Integer.bitCount(peerLine) != 1 || peerLine < 32 || peerLine > 256) {
            throw new IOException("the peer's cache line " + peerLine + " is not one (32 .. 256 bytes)");
        }
        int cycle = Math.max(cycleBuffer, peerCycle);
        int line = Math.max(cacheLine, peerLine);
        byte[] m = (mtu + "\0").getBytes(StandardCharsets.US_ASCII);
        String theirs = cString(exchange(m));
        int settled = mtu;
        try {
            int t = Integer.parseInt(theirs);
            if (t >= 1 && t <= 5) {
                settled = Math.min(mtu, t);
            }
        } catch (NumberFormatException e) {
            throw new IOException("the peer's MTU '" + theirs + "' is not an MTU enum");
        }
        return new Settled(peer, cycle, line, settled);
    }

    /** One handshake: this side's record for the peer's. */
    PerftestRecord handshake(PerftestRecord mine) throws IOException {
        return handshake(mine, null);
    }

    /**
     * One handshake; a client runs {@code meanwhile} (if not null) after writing its record until
     * the peer's has come: what it must keep doing until the peer has stopped (see
     * {@link PerftestRun#receiveMeanwhile}).
     */
    PerftestRecord handshake(PerftestRecord mine, Meanwhile meanwhile) throws IOException {
        return cmGidIndex < 0 ? PerftestRecord.decode(exchange(mine.encode(), meanwhile))
            : PerftestRecord.decodeCm(exchange(mine.encodeCm(cmGidIndex), meanwhile));
    }

    /**
     * perftest's ctx_close_connection: one more handshake, then over TCP "done" and its NUL, which
     * the peer does not read (over rdma_cm, the handshake alone).
     */
    void closeConnection(PerftestRecord mine) throws IOException {
        closeConnection(mine, null);
    }

    /** {@link #closeConnection}, a client running {@code meanwhile} while it waits for the peer's record. */
    void closeConnection(PerftestRecord mine, Meanwhile meanwhile) throws IOException {
        handshake(mine, meanwhile);
        if (cmGidIndex < 0) {
            channel.write(DONE);
        }
    }

    /** Work a client does while it waits for the peer's half of an exchange. */
    @FunctionalInterface
    interface Meanwhile {
        /** One step of the work (it returns soon: the channel is asked again after each). */
        void step() throws IOException;
    }

    /** The bandwidth report: size, iterations (u64), peak, average and message rate (doubles), big-endian, one at a time. */
    record Report(long size, long iters, double bwPeak, double bwAvg, double msgRate) {
        /** What a side that measured nothing sends: a non-duplex WRITE, READ or atomic server (its client ignores it). */
        static final Report NONE = new Report(0, 0, 0, 0, 0);

        /** This side's report with the peer's rates added: what perftest prints for -b (print_full_bw_report). */
        Report plus(Report peer) {
            return new Report(size, iters, bwPeak + peer.bwPeak, bwAvg + peer.bwAvg, msgRate + peer.msgRate);
        }
    }

    Report reports(Report mine) throws IOException {
        long size = ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putLong(mine.size()).array())).getLong();
        long iters = ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putLong(mine.iters()).array())).getLong();
        double peak = ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putDouble(mine.bwPeak()).array())).getDouble();
        double avg = ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putDouble(mine.bwAvg()).array())).getDouble();
        double rate = ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putDouble(mine.msgRate()).array())).getDouble();
        return new Report(size, iters, peak, avg, rate);
    }

    private static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII).trim();
    }

    /** Whether the peer has sent something this side has not read yet (its next exchange waits). */
    boolean peerWaiting() throws IOException {
        return channel.available();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
