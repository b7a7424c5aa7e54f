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

    /** When a server without a client says it is still waiting for one: 5 s. */
    private static final int ACCEPT_NOTICE_MILLIS = 5000;

    private final PrintWriter err;
    private final int count;
    private final String tool;
    private final int readTimeoutMillis;

    private AddressExchange(PrintWriter err, int count, String tool, int idleSeconds) {
        this.err = err;
        this.count = count;
        this.tool = tool;
        this.readTimeoutMillis = idleSeconds * 1000;
    }

    /**
     * rc_pingpong's, uc_pingpong's and ud_pingpong's exchange: one message each way; a peer that
     * stops answering mid-exchange is given up after {@code idleSeconds} (0: never).
     */
    static AddressExchange single(PrintWriter err, String tool, int idleSeconds) {
        return new AddressExchange(err, 1, tool, idleSeconds);
    }

    /** srq_pingpong's exchange: {@link #SRQ_MESSAGES} messages each way. */
    static AddressExchange srq(PrintWriter err, String tool, int idleSeconds) {
        return new AddressExchange(err, SRQ_MESSAGES, tool, idleSeconds);
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
            InputStream in = input(s);
            return numbered() ? readNumbered(in, o) : readOne(in, o);
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

    /** Connects to {@code host} (each of its addresses: "localhost" may be ::1 and 127.0.0.1). */
    private static Socket connectWithRetry(String host, int port) throws InterruptedException {
        java.net.InetAddress[] addresses;
        try {
            addresses = java.net.InetAddress.getAllByName(host);
        } catch (java.net.UnknownHostException e) {
            return null;
        }
        for (int i = 0; i < CONNECT_ATTEMPTS; i++) {
            for (java.net.InetAddress a : addresses) {
                Socket s = new Socket();
                try {
                    s.connect(new InetSocketAddress(a, port), 2000);
                    return s;
                } catch (IOException e) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // nothing was open
                    }
                }
            }
            Thread.sleep(CONNECT_RETRY_MILLIS);
        }
        return null;
    }

    /**
     * pp_server_exch_dest: accepts one client on TCP {@code address:port} (the device's address,
     * where the C tools listen on all: two servers on two addresses can then share the port),
     * reads its addresses, runs {@code connect}, answers with {@code mine} and reads "done". Null
     * after printing why not. It waits for its client as long as it takes, as the C tools do, and
     * says once after 5 s that it is waiting.
     */
    Dest[] server(String address, int port, List<Dest> mine, Connect connect) {
        return server(address, port, mine, () -> { }, connect);
    }

    /**
     * {@link #server(String, int, List, Connect)}, running {@code whileListening} once the port
     * listens and before it accepts: a client that connects meanwhile waits in the backlog.
     */
    Dest[] server(String address, int port, List<Dest> mine, Runnable whileListening, Connect connect) {
        Socket s;
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(java.net.InetAddress.getByName(address), port), 1);
            whileListening.run();
            ss.setSoTimeout(ACCEPT_NOTICE_MILLIS);
            s = acceptNoticing(ss, address, port);
        } catch (IOException e) {
            err.printf("Couldn't listen to port %d%n", port);
            return null;
        }
        try (s) {
            InputStream in = input(s);
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
            if (e instanceof java.net.SocketTimeoutException) {
                err.printf("%s: %s%n", tool, e.getMessage());
            }
            err.println(numbered() ? "Couldn't send local address" : "Couldn't send/recv local address");
            return null;
        }
    }

    private Socket acceptNoticing(ServerSocket ss, String address, int port) throws IOException {
        try {
            return ss.accept();
        } catch (java.net.SocketTimeoutException e) {
            err.printf("%s: waiting for a client on TCP %s:%d (Ctrl-C to stop)%n", tool, address, port);
            err.flush();
        }
        ss.setSoTimeout(0);
        return ss.accept();
    }

    /**
     * The socket's input under one deadline for the whole exchange: SO_TIMEOUT counts per read,
     * so a peer trickling a byte at a time would otherwise hold the tool (and its one accept) for
     * as long as it likes. Without an idle timeout, the plain input.
     */
    private InputStream input(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        if (readTimeoutMillis == 0) {
            return in;
        }
        long deadline = System.nanoTime() + readTimeoutMillis * 1_000_000L;
        return new java.io.FilterInputStream(in) {
            private java.net.SocketTimeoutException late() {
                return new java.net.SocketTimeoutException("the peer did not finish the exchange within "
                    + readTimeoutMillis / 1000 + " s");
            }

            private void arm() throws IOException {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    throw late();
                }
                s.setSoTimeout((int) left);
            }

            @Override
            public int read() throws IOException {
                arm();
                try {
                    return super.read();
                } catch (java.net.SocketTimeoutException e) {
                    throw late();
                }
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                arm();
                try {
                    return super.read(b, off, len);
                } catch (java.net.SocketTimeoutException e) {
                    throw late();
                }
            }
        };
    }
}
