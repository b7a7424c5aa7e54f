package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A test's stand-in for perftest 4.5 (linux-rdma/perftest v4.5-0.17) on the other end of jrxe's
 * TCP exchange: each message written as perftest writes it and each read whole, with exactly the
 * size perftest reads and checked, in the order the test's script (perftest's main) has them; and
 * a device of its own whose {@link PerftestRun} connects and moves the traffic. A jrxe that sends
 * one message more or less, or another one, makes a read here find other bytes or wait in vain,
 * and its end must be perftest's: the closing handshake, "done" each way, then the connection
 * closed. Its side of the exchange is written here from perftest's source, not with jrxe's
 * {@link PerftestOob}, so that it does not share jrxe's mistakes; only the record's text form is
 * {@link PerftestRecord}'s (tested against a capture of perftest's).
 */
final class PerftestPeer implements AutoCloseable {
    /** How long a read waits for jrxe's next message. */
    static final int READ_TIMEOUT_MILLIS = 30_000;
    /** What ctx_close_connection writes after its handshake: {@code write(sockfd, "done", sizeof "done")}. */
    private static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final boolean client;
    private Device dev;
    private PerftestRun run;

    private PerftestPeer(Socket socket, boolean client) throws IOException {
        this.socket = socket;
        this.client = client;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** perftest's server: accepts jrxe's client on {@code listener}. */
    static PerftestPeer accept(ServerSocket listener) throws IOException {
        listener.setSoTimeout(READ_TIMEOUT_MILLIS);
        return new PerftestPeer(listener.accept(), false);
    }

    /** perftest's client: connects to jrxe's server, waiting for it to listen. */
    static PerftestPeer connect(InetSocketAddress server) throws IOException, InterruptedException {
        for (int attempt = 0; ; attempt++) {
            Socket s = new Socket();
            try {
                s.connect(server, READ_TIMEOUT_MILLIS);
                return new PerftestPeer(s, true);
            } catch (java.net.ConnectException e) {
                s.close();
                if (attempt > 300) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /** One lock-step message: the client writes then reads, the server reads then writes (ctx_xchg_data_ethernet). */
    byte[] exchange(byte[] mine) throws IOException {
        byte[] theirs = new byte[mine.length];
        if (client) {
            out.write(mine);
            out.flush();
            in.readFully(theirs);
        } else {
            in.readFully(theirs);
            out.write(mine);
            out.flush();
        }
        return theirs;
    }

    /**
     * exchange_versions, check_sys_data and check_mtu: the versions (16 bytes, "6.06"), cycle
     * buffer and cache line (big-endian ints), MTU enum as text and NUL; checks jrxe's and returns
     * the MTU both take, the smaller one.
     */
    int versions(int mtu) throws IOException {
        byte[] v = new byte[16];
        System.arraycopy("6.06".getBytes(StandardCharsets.US_ASCII), 0, v, 0, 4);
        assertThat(cString(exchange(v))).as("jrxe's version").isEqualTo("6.06");
        assertThat(ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(4096).array())).getInt()).as("cycle buffer")
            .isEqualTo(4096);
        assertThat(ByteBuffer.wrap(exchange(ByteBuffer.allocate(4).putInt(64).array())).getInt()).as("cache line")
            .isEqualTo(64);
        int theirs = Integer.parseInt(cString(exchange((mtu + "\0").getBytes(StandardCharsets.US_ASCII))));
        assertThat(theirs).as("jrxe's MTU enum").isBetween(1, 5);
        return Math.min(mtu, theirs);
    }

    /** Opens this side's device on {@code ip} and its run of {@code p}: its QPs, their records and buffer. */
    PerftestRun open(String ip, int udpPort, PerftestRun.Params p) {
        dev = Device.open(DeviceConfig.of("jrxe0", ip).udpPort(udpPort));
        run = new PerftestRun(dev, p, false);
        return run;
    }

    /** One record exchange (ctx_hand_shake) of QP 0's record: jrxe's must be a record of perftest's text form. */
    PerftestRecord handshake() throws IOException {
        return handshake(0);
    }

    /** One record exchange of QP {@code i}'s record. */
    PerftestRecord handshake(int i) throws IOException {
        return PerftestRecord.decode(exchange(run.mine[i].encode()));
    }

    /**
     * The record exchange perftest has before a run. As the server (who reads first) it also
     * checks that no packet of jrxe's came between the start of the exchange and jrxe's record: a
     * jrxe that ran before this exchange would have sent its run by then.
     */
    PerftestRecord handshakeBeforeRun() throws IOException {
        if (client) {
            return handshake();
        }
        long received = dev.counters().get("rcvd_pkts");
        byte[] theirs = new byte[run.mine[0].encode().length];
        in.readFully(theirs);
        assertThat(dev.counters().get("rcvd_pkts")).as("packets from jrxe before its record: it ran before the exchange")
            .isEqualTo(received);
        out.write(run.mine[0].encode());
        out.flush();
        return PerftestRecord.decode(theirs);
    }

    /** One record exchange per QP; the peer's records. */
    PerftestRecord[] handshakeAll() throws IOException {
        PerftestRecord[] r = new PerftestRecord[run.mine.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = handshake(i);
        }
        return r;
    }

    /** xchg_bw_reports: size and iterations (u64), peak, average, message rate (doubles), each its own exchange. */
    PerftestOob.Report reports(PerftestOob.Report mine) throws IOException {
        long size = ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putLong(mine.size()).array())).getLong();
        long iters = ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putLong(mine.iters()).array())).getLong();
        double peak = ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putDouble(mine.bwPeak()).array())).getDouble();
        double avg = ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putDouble(mine.bwAvg()).array())).getDouble();
        double rate = ByteBuffer.wrap(exchange(ByteBuffer.allocate(8).putDouble(mine.msgRate()).array())).getDouble();
        return new PerftestOob.Report(size, iters, peak, avg, rate);
    }

    /**
     * ctx_close_connection: a record exchange, then "done" and its NUL; then jrxe's "done", and
     * nothing after it but the end of the connection.
     */
    void closeConnection() throws IOException {
        handshake();
        out.write(DONE);
        out.flush();
        byte[] done = new byte[5];
        in.readFully(done);
        assertThat(done).as("jrxe's \"done\" after the closing handshake").isEqualTo(DONE);
        assertThat(in.read()).as("nothing after \"done\"").isEqualTo(-1);
    }

    /** write_lat's end: no more messages, the connection closed. */
    void expectEnd() throws IOException {
        assertThat(in.read()).as("nothing after the records").isEqualTo(-1);
    }

    private static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        socket.close();
        if (run != null) {
            run.close();
        }
        if (dev != null) {
            dev.close();
        }
    }
}
