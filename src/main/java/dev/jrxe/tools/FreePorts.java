package dev.jrxe.tools;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Ports nobody uses right now, so that benchmark and test runs do not clash with each other or with
 * the defaults.
 */
final class FreePorts {
    private FreePorts() {
    }

    /** A TCP port free on every address. */
    static int tcp() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A UDP port free on all the given loopback addresses. */
    static int udp(String... addresses) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (DatagramSocket first = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(addresses[0]), 0))) {
                port = first.getLocalPort();
            }
            if (allFree(port, addresses)) {
                return port;
            }
        }
        throw new IOException("no UDP port free on all of " + String.join(", ", addresses));
    }

    private static boolean allFree(int port, String... addresses) {
        for (String a : addresses) {
            try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(a), port))) {
                s.getLocalPort();
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
