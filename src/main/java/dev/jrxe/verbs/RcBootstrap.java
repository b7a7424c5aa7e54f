package dev.jrxe.verbs;

import dev.jrxe.ib.Errno;
import dev.jrxe.ib.QpState;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Connects an RC or UC QP to a peer the way ibv_rc_pingpong does: over a TCP socket each side
 * sends its {@link RcPeer} (52 bytes), the server moves its QP to RTS before it answers, the
 * client moves to RTS after reading the answer and sends "done". Either side can be the C tool.
 *
 * <pre>{@code
 * // server                                          // client
 * RcPeer c = RcBootstrap.accept(qp,                  RcPeer s = RcBootstrap.connect(qp,
 *     new InetSocketAddress("127.0.0.2", 18515),         new InetSocketAddress("127.0.0.2", 18515),
 *     Duration.ofSeconds(10));                           Duration.ofSeconds(10));
 * }</pre>
 *
 * <p>The QP may be in RESET (it is moved to INIT first) or INIT; its first PSN is random. Both
 * devices must use the same UDP port (a jrxe device sends to the port it listens on). On a
 * failure the QP is left where it got to (INIT, or RTR when only the move to RTS failed).
 *
 * <p>Thread safety: static methods with no shared state; they block, and may run on any threads
 * at once for different QPs (one exchange per QP at a time).
 */
public final class RcBootstrap {
    private static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private RcBootstrap() {
    }

    /**
     * Server side: accepts one client on {@code listen}, reads its address, moves {@code qp} to
     * RTS toward it (RcConnect's defaults), answers with this side's and waits for "done". The
     * listening socket (with {@code SO_REUSEADDR}) is closed on return.
     *
     * @param qp      an RC or UC QP in RESET or INIT
     * @param listen  the local TCP address to listen on (ibv_rc_pingpong's port is 18515)
     * @param timeout how long to wait for a client, and for each read from it; at least 1 ms
     * @return the client's address message
     * @throws IOException              on a socket error, a malformed message, or when no client
     *                                  completes the exchange within {@code timeout}
     *                                  ({@link java.net.SocketTimeoutException})
     * @throws VerbsException           EINVAL when the QP is not in RESET or INIT or the peer's UDP
     *                                  port differs from this device's; what {@link RcConnect} throws
     * @throws IllegalArgumentException when {@code timeout} is under 1 ms
     */
    public static RcPeer accept(QueuePair qp, InetSocketAddress listen, Duration timeout) throws IOException {
        return accept(qp, listen, timeout, new RcConnect());
    }

    /**
     * {@link #accept(QueuePair, InetSocketAddress, Duration)} with these QP attributes.
     *
     * @param qp      an RC or UC QP in RESET or INIT
     * @param listen  the local TCP address to listen on
     * @param timeout how long to wait for a client, and for each read from it; at least 1 ms
     * @param how     the attributes of the INIT, RTR and RTS transitions
     * @return the client's address message
     * @throws IOException              on a socket error, a malformed message, or when no client
     *                                  completes the exchange within {@code timeout}
     * @throws VerbsException           EINVAL when the QP is not in RESET or INIT or the peer's UDP
     *                                  port differs from this device's; what {@code how} throws
     * @throws IllegalArgumentException when {@code timeout} is under 1 ms
     */
    public static RcPeer accept(QueuePair qp, InetSocketAddress listen, Duration timeout, RcConnect how)
        throws IOException {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(listen);
            return accept(qp, ss, timeout, how);
        }
    }

    /**
     * Server side on a socket that is already listening, for a server of many clients: one
     * listening socket, one call (and one QP) per client, so a client that connects while another
     * is being served waits in the backlog instead of being refused. The socket stays open, with
     * the {@code SO_TIMEOUT} it had. One call serves one client: when the exchange fails after the
     * peer's address was read, the QP may be left in RTS toward it (reset it before another try).
     *
     * @param qp        an RC or UC QP in RESET or INIT
     * @param listening a bound, listening server socket
     * @param timeout   how long to wait for a client, and for each read from it; at least 1 ms
     * @param how       the attributes of the INIT, RTR and RTS transitions
     * @return the client's address message
     * @throws IOException              on a socket error, a malformed message, or when no client
     *                                  completes the exchange within {@code timeout}
     * @throws VerbsException           EINVAL when the QP is not in RESET or INIT or the peer's UDP
     *                                  port differs from this device's; what {@code how} throws
     * @throws IllegalArgumentException when {@code timeout} is under 1 ms
     */
    public static RcPeer accept(QueuePair qp, ServerSocket listening, Duration timeout, RcConnect how)
        throws IOException {
        RcPeer me = prepare(qp, how);
        int millis = millis(timeout);
        int callersTimeout = listening.getSoTimeout();
        try {
            listening.setSoTimeout(millis);
            try (Socket s = listening.accept()) {
                s.setSoTimeout(millis);
                DataInputStream in = new DataInputStream(s.getInputStream());
                RcPeer peer = read(in);
                toRts(qp, me, peer, how);
                s.getOutputStream().write(me.encode());
                in.readFully(new byte[DONE.length]);
                return peer;
            }
        } catch (SocketTimeoutException e) {
            throw new SocketTimeoutException("no client completed the exchange on "
                + listening.getLocalSocketAddress() + " within " + timeout);
        } finally {
            if (!listening.isClosed()) {
                listening.setSoTimeout(callersTimeout); // the socket is the caller's: as it was
            }
        }
    }

    /**
     * Client side: connects to {@code server} (retrying every 100 ms while it is not listening
     * yet, up to {@code timeout}), sends this side's address, reads the server's, moves {@code qp}
     * to RTS and says "done". Uses RcConnect's defaults.
     *
     * @param qp      an RC or UC QP in RESET or INIT
     * @param server  the server's TCP address
     * @param timeout how long to keep trying to connect, and the limit of each connect and read;
     *                at least 1 ms
     * @return the server's address message
     * @throws IOException              when the server cannot be reached or answer within
     *                                  {@code timeout}, on a socket error or a malformed message
     *                                  ({@link java.io.InterruptedIOException} when interrupted
     *                                  between attempts)
     * @throws VerbsException           EINVAL when the QP is not in RESET or INIT or the peer's UDP
     *                                  port differs from this device's; what {@link RcConnect} throws
     * @throws IllegalArgumentException when {@code timeout} is under 1 ms
     */
    public static RcPeer connect(QueuePair qp, InetSocketAddress server, Duration timeout) throws IOException {
        return connect(qp, server, timeout, new RcConnect());
    }

    /**
     * {@link #connect(QueuePair, InetSocketAddress, Duration)} with these QP attributes.
     *
     * @param qp      an RC or UC QP in RESET or INIT
     * @param server  the server's TCP address
     * @param timeout how long to keep trying to connect, and the limit of each connect and read;
     *                at least 1 ms
     * @param how     the attributes of the INIT, RTR and RTS transitions
     * @return the server's address message
     * @throws IOException              when the server cannot be reached or answer within
     *                                  {@code timeout}, on a socket error or a malformed message
     * @throws VerbsException           EINVAL when the QP is not in RESET or INIT or the peer's UDP
     *                                  port differs from this device's; what {@code how} throws
     * @throws IllegalArgumentException when {@code timeout} is under 1 ms
     */
    public static RcPeer connect(QueuePair qp, InetSocketAddress server, Duration timeout, RcConnect how)
        throws IOException {
        RcPeer me = prepare(qp, how);
        int millis = millis(timeout);
        long deadline = System.nanoTime() + timeout.toNanos();
        IOException last = null;
        while (true) {
            Socket s = new Socket();
            try (s) {
                s.connect(server, millis);
                s.setSoTimeout(millis);
                s.getOutputStream().write(me.encode());
                RcPeer peer = read(new DataInputStream(s.getInputStream()));
                toRts(qp, me, peer, how);
                s.getOutputStream().write(DONE);
                return peer;
            } catch (java.net.ConnectException e) {
                last = e; // not listening yet
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IOException("cannot reach " + server + " within " + timeout + " (" + last.getMessage() + ")");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while connecting to " + server);
            }
        }
    }

    private static int millis(Duration timeout) {
        long ms = timeout.toMillis();
        if (ms <= 0) {
            throw new IllegalArgumentException("timeout " + timeout);
        }
        return (int) Math.min(Integer.MAX_VALUE, ms);
    }

    private static RcPeer prepare(QueuePair qp, RcConnect how) {
        if (qp.state() == QpState.RESET) {
            how.toInit(qp);
        }
        if (qp.state() != QpState.INIT) {
            throw new VerbsException(Errno.EINVAL, "QP 0x" + Integer.toHexString(qp.qpNum()) + " is in "
                + QpState.name(qp.state()) + "; a bootstrap starts from RESET or INIT");
        }
        return RcPeer.of(qp, ThreadLocalRandom.current().nextInt(1 << 24));
    }

    private static RcPeer read(DataInputStream in) throws IOException {
        byte[] msg = new byte[RcPeer.BYTES];
        in.readFully(msg);
        try {
            return RcPeer.decode(msg);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static void toRts(QueuePair qp, RcPeer me, RcPeer peer, RcConnect how) {
        if (peer.udpPort() != me.udpPort()) {
            throw new VerbsException(Errno.EINVAL, "the peer's device uses UDP port " + peer.udpPort() + ", this one "
                + me.udpPort() + ": both must use the same (a jrxe device sends to the port it listens on)");
        }
        how.toRts(qp, me.psn(), peer.gid(), peer.qpn(), peer.psn());
    }
}
