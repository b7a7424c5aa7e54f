package dev.jrxe.tools;

import dev.jrxe.tools.PingpongCommand.Dest;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * ibv_rc_pingpong's TCP exchange of QP numbers, PSNs and GIDs, without its error reporting (that
 * lives in {@link AddressExchange}, which follows the C tools message for message): the server
 * listens, moves its QP to RTS with the client's address and answers; the client sends, reads the
 * answer, moves to RTS and says "done".
 */
final class PingpongExchange {
    /** What moves the local QP to RTS once the peer's address is known. */
    interface ToRts {
        void connect(Dest remote) throws IOException;
    }

    /** A peer that connected has this long for each step of the exchange. */
    static final int STEP_TIMEOUT_MILLIS = 30_000;

    private PingpongExchange() {
    }

    /** The 52 bytes as an address, or an IOException saying they are not one. */
    private static Dest decode(byte[] msg) throws IOException {
        Dest rem = Dest.decode(msg);
        if (rem == null) {
            throw new IOException("the peer's 52 bytes are not an address message");
        }
        return rem;
    }

    /** Server side: accepts one client on {@code bind}; {@code listening} runs once it listens. */
    static Dest serve(InetSocketAddress bind, Dest me, ToRts toRts, Runnable listening) throws IOException {
        byte[] msg = new byte[PingpongCommand.MSG_SIZE];
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(bind);
            listening.run();
            try (Socket s = ss.accept()) {
                s.setSoTimeout(STEP_TIMEOUT_MILLIS);
                DataInputStream in = new DataInputStream(s.getInputStream());
                in.readFully(msg);
                Dest rem = decode(msg);
                toRts.connect(rem);
                s.getOutputStream().write(me.encode());
                in.readFully(msg, 0, PingpongCommand.DONE_SIZE);
                return rem;
            }
        }
    }

    /** Client side: tries {@code attempts} times, 100 ms apart, while the server is not listening yet. */
    static Dest join(String host, int port, Dest me, ToRts toRts, int attempts) throws IOException {
        byte[] msg = new byte[PingpongCommand.MSG_SIZE];
        IOException last = null;
        for (int attempt = 0; attempt < attempts; attempt++) {
            if (attempt > 0) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            Socket s;
            try {
                s = new Socket(host, port);
            } catch (IOException e) {
                last = e;
                continue;
            }
            try (s) {
                s.setSoTimeout(STEP_TIMEOUT_MILLIS);
                s.getOutputStream().write(me.encode());
                new DataInputStream(s.getInputStream()).readFully(msg);
                Dest rem = decode(msg);
                toRts.connect(rem);
                s.getOutputStream().write(new byte[] {'d', 'o', 'n', 'e', 0});
                return rem;
            }
        }
        throw new IOException("cannot reach " + host + ":" + port
            + (last != null ? " (" + last.getMessage() + ")" : ""));
    }
}
