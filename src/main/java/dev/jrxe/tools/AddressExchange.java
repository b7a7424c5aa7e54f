package dev.jrxe.tools;

import dev.jrxe.tools.PingpongCommand.Dest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The ibv_*_pingpong tools' TCP exchange of addresses, with their error messages: the client
 * sends its messages, reads the server's and says "done"; the server reads the client's, connects
 * its QPs to them, answers with its own and waits for "done". rc, uc and ud_pingpong send one
 * message each way; srq_pingpong always sends {@link #SRQ_MESSAGES}, one per QP and all-zero ones
 * after its QPs, and numbers the message in its errors.
 */
final class AddressExchange {
    /** srq_pingpong's MAX_QP: the number of messages it sends and reads, whatever its -q. */
    static final int SRQ_MESSAGES = 256;
    private static final int CONNECT_ATTEMPTS = 50;
    private static final long CONNECT_RETRY_MILLIS = 100;
    private static final byte[] DONE = "done\0".getBytes(StandardCharsets.US_ASCII);

    /** What the server does with the client's addresses before it answers; false after reporting why not. */
    interface Connect {
        boolean to(Dest[] remote);
    }

    private final PrintWriter err;
    private final int count;

    private AddressExchange(PrintWriter err, int count) {
        this.err = err;
        this.count = count;
    }

    /** rc_pingpong's, uc_pingpong's and ud_pingpong's exchange: one message each way. */
    static AddressExchange single(PrintWriter err) {
        return new AddressExchange(err, 1);
    }

    /** srq_pingpong's exchange: {@link #SRQ_MESSAGES} messages each way. */
    static AddressExchange srq(PrintWriter err) {
        return new AddressExchange(err, SRQ_MESSAGES);
    }

    private boolean numbered() {
        return count > 1;
    }

    /** The messages to send: {@code mine}, then all-zero ones up to the count. */
    private byte[] encode(List<Dest> mine) {
        byte[] wire = new byte[count * PingpongCommand.MSG_SIZE];
        for (int i = 0; i < count; i++) {
            Dest d = i < mine.size() ? mine.get(i) : Dest.NONE;
            System.arraycopy(d.encode(), 0, wire, i * PingpongCommand.MSG_SIZE, PingpongCommand.MSG_SIZE);
        }
        return wire;
    }

    /**
     * pp_client_exch_dest: connects to {@code host:port} (retrying while the server starts), sends
     * {@code mine}, reads the server's addresses and sends "done". Null after printing why not.
     */
    Dest[] client(String host, int port, List<Dest> mine) throws InterruptedException {
        Socket s = connectWithRetry(host, port);
        if (s == null) {
            err.printf("Couldn't connect to %s:%d%n", host, port);
            return null;
        }
        try (s) {
            OutputStream o = s.getOutputStream();
            try {
                o.write(encode(mine));
                o.flush();
            } catch (IOException e) {
                err.println("Couldn't send local address");
                return null;
            }
            return numbered() ? readNumbered(s.getInputStream(), o) : readOne(s.getInputStream(), o);
        } catch (IOException e) {
            return null; // close failed after the exchange; nothing to add
        }
    }

    /** rc_pingpong's client: the read and the "done" are reported together. */
    private Dest[] readOne(InputStream in, OutputStream o) {
        byte[] msg = new byte[PingpongCommand.MSG_SIZE];
        try {
            if (in.readNBytes(msg, 0, msg.length) != msg.length) {
                throw new IOException("connection closed by the server");
            }
            o.write(DONE);
            o.flush();
        } catch (IOException e) {
            err.println("client read/write: " + e.getMessage());
            err.println("Couldn't read/write remote address");
            return null;
        }
        Dest rem = Dest.decode(msg);
        if (rem == null) {
            err.println("Couldn't read/write remote address");
            return null;
        }
        return new Dest[] {rem};
    }

    /** srq_pingpong's client: each message reported by number; a failed "done" is only reported. */
    private Dest[] readNumbered(InputStream in, OutputStream o) {
        Dest[] rem = new Dest[count];
        byte[] msg = new byte[PingpongCommand.MSG_SIZE];
        for (int i = 0; i < count; i++) {
            int n = 0;
            try {
                n = in.readNBytes(msg, 0, msg.length);
            } catch (IOException e) {
                err.println("client read: " + e.getMessage());
            }
            rem[i] = n == msg.length ? Dest.decode(msg) : null;
            if (rem[i] == null) {
                err.printf("%d/%d: Couldn't read remote address [%d]%n", n, msg.length, i);
                return null;
            }
        }
        try {
            o.write(DONE);
            o.flush();
        } catch (IOException e) {
            // srq_pingpong goes on with the addresses it read
            err.println("client write: " + e.getMessage());
        }
        return rem;
    }

    private static Socket connectWithRetry(String host, int port) throws InterruptedException {
        for (int i = 0; i < CONNECT_ATTEMPTS; i++) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(host, port), 2000);
                return s;
            } catch (IOException e) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // nothing was open
                }
                Thread.sleep(CONNECT_RETRY_MILLIS);
            }
        }
        return null;
    }

    /**
     * pp_server_exch_dest: accepts one client on TCP {@code port} (all addresses), reads its
     * addresses, runs {@code connect}, answers with {@code mine} and reads "done". Null after
     * printing why not.
     */
    Dest[] server(int port, List<Dest> mine, Connect connect) {
        Socket s;
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(port), 1);
            s = ss.accept();
        } catch (IOException e) {
            err.printf("Couldn't listen to port %d%n", port);
            return null;
        }
        try (s) {
            InputStream in = s.getInputStream();
            byte[] msg = new byte[PingpongCommand.MSG_SIZE];
            Dest[] rem = new Dest[count];
            for (int i = 0; i < count; i++) {
                int n = in.readNBytes(msg, 0, msg.length);
                rem[i] = n == msg.length ? Dest.decode(msg) : null;
                if (rem[i] == null) {
                    err.printf(numbered() ? "%d/%d: Couldn't read remote address [%d]%n"
                        : "%d/%d: Couldn't read remote address%n", n, msg.length, i);
                    return null;
                }
            }
            if (!connect.to(rem)) {
                err.println("Couldn't connect to remote QP");
                return null;
            }
            OutputStream o = s.getOutputStream();
            o.write(encode(mine));
            o.flush();
            if (in.readNBytes(msg, 0, PingpongCommand.DONE_SIZE) != PingpongCommand.DONE_SIZE) {
                // srq_pingpong's perror names the wrong call; its words are kept
                err.println(numbered() ? "client write: no \"done\" from the client" : "Couldn't send/recv local address");
                return null;
            }
            return rem;
        } catch (IOException e) {
            err.println(numbered() ? "Couldn't send local address" : "Couldn't send/recv local address");
            return null;
        }
    }
}
