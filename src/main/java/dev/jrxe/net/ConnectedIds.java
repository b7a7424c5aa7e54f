package dev.jrxe.net;

import dev.jrxe.sys.SocketStructs;
import dev.jrxe.sys.Sockets;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Connects a send-only socket to a destination and learns the IPv4 Identification the kernel will
 * give its next datagram, which the ICRC covers.
 *
 * <p>Why connect: an unconnected send looks its route up on every call (0.23-0.25 µs here, see
 * docs/BENCHMARKS.md); a connected socket keeps the route. Why learn: Linux numbers a connected
 * socket's IPv4 IDs from a random start that {@code connect} draws, one per message sent through
 * it, whatever the message's destination (the name given to {@code sendmmsg} or the connected
 * one) and however many GSO segments it has (the segments of a message take its ID, ID + 1, ...,
 * and the next message takes ID + 1 again). An unconnected socket with DF sends ID 0 instead.
 *
 * <p>How: with software transmit time stamps on, one empty datagram goes to the socket's own
 * address and port (the loopback device carries it, no socket takes it); the stamp comes back on
 * the socket's error queue with a copy of the packet from its link-layer header on, whose IPv4
 * header holds the ID. The next message takes that ID + 1. Once per connection, off the hot path.
 * If anything fails (no stamp, no loopback), the socket is disconnected again and sends ID 0.
 */
final class ConnectedIds {
    /** Longest wait for the stamp: lo stamps in the sending call, so it is there at once. */
    private static final long STAMP_WAIT_NANOS = 2_000_000;
    private static final int COPY_BYTES = 128;
    private static final int IPV4_NO_OPTIONS = 0x45;
    private static final int UDP = 17;

    private ConnectedIds() {
    }

    /**
     * Connects {@code fd}, bound to {@code localAddr:localPort}, to {@code peerAddr:peerPort} and
     * returns the IPv4 ID of its next datagram (0..65535), or -1 with the socket left unconnected.
     * {@code st} is the calling thread's call state.
     */
    static int connect(MemorySegment st, int fd, int localAddr, int localPort, int peerAddr, int peerPort) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment peer = a.allocate(SocketStructs.SOCKADDR_IN_SIZE, 8);
            SocketStructs.sockaddrIn(peer, 0, peerAddr, peerPort);
            if (Sockets.connect(st, fd, peer, SocketStructs.SOCKADDR_IN_SIZE) < 0) {
                return -1;
            }
            int id = probe(st, a, fd, localAddr, localPort);
            if (id < 0) {
                disconnect(st, fd);
                return -1;
            }
            return (id + 1) & 0xFFFF;
        }
    }

    /** Dissolves {@code fd}'s association: it sends with ID 0 again. Returns 0 or -errno. */
    static int disconnect(MemorySegment st, int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment none = a.allocate(SocketStructs.SOCKADDR_IN_SIZE, 8);
            none.set(java.lang.foreign.ValueLayout.JAVA_SHORT, 0, (short) Sockets.AF_UNSPEC);
            return Sockets.connect(st, fd, none, SocketStructs.SOCKADDR_IN_SIZE);
        }
    }

    /**
     * Learns again, on a connected socket, the ID of its next datagram (after a send failed in a
     * way that leaves unknown whether the kernel numbered it); -1 when it cannot.
     */
    static int relearn(MemorySegment st, int fd, int localAddr, int localPort) {
        try (Arena a = Arena.ofConfined()) {
            int id = probe(st, a, fd, localAddr, localPort);
            return id < 0 ? -1 : (id + 1) & 0xFFFF;
        }
    }

    /** Sends the stamped probe and returns the ID it carried, or -1. */
    private static int probe(MemorySegment st, Arena a, int fd, int localAddr, int localPort) {
        MemorySegment scratch = a.allocate(8, 8);
        MemorySegment self = a.allocate(SocketStructs.SOCKADDR_IN_SIZE, 8);
        SocketStructs.sockaddrIn(self, 0, localAddr, localPort);
        MemorySegment copy = a.allocate(COPY_BYTES, 8);
        MemorySegment iov = a.allocate(SocketStructs.IOVEC_SIZE, 8);
        SocketStructs.iovec(iov, 0, copy, COPY_BYTES);
        MemorySegment control = a.allocate(256, 8);
        MemorySegment msg = a.allocate(SocketStructs.MMSGHDR_SIZE, 8);
        if (Sockets.setsockopt(st, fd, Sockets.SOL_SOCKET, Sockets.SO_TIMESTAMPING,
                Sockets.SOF_TIMESTAMPING_TX_SOFTWARE | Sockets.SOF_TIMESTAMPING_SOFTWARE, scratch) < 0) {
            return -1;
        }
        try {
            drain(fd, msg, iov, control);
            // the probe: no payload, to this socket's own address and port
            SocketStructs.msghdr(msg, 0, self, SocketStructs.SOCKADDR_IN_SIZE, MemorySegment.NULL, 0,
                MemorySegment.NULL, 0);
            if (Sockets.sendmmsg(st, fd, msg, 1, 0) != 1) {
                return -1;
            }
            long deadline = System.nanoTime() + STAMP_WAIT_NANOS;
            do {
                SocketStructs.msghdr(msg, 0, MemorySegment.NULL, 0, iov, 1, control, control.byteSize());
                if (Sockets.recvmmsg(fd, msg, 1, Sockets.MSG_ERRQUEUE | Sockets.MSG_DONTWAIT) == 1) {
                    int id = idOf(copy, msg.get(JAVA_INT, SocketStructs.MMSG_LEN), localAddr, localPort);
                    if (id >= 0) {
                        return id;
                    }
                    continue; // another stamp: look at the next
                }
                LockSupport.parkNanos(20_000);
            } while (System.nanoTime() - deadline < 0);
            return -1;
        } finally {
            Sockets.setsockopt(st, fd, Sockets.SOL_SOCKET, Sockets.SO_TIMESTAMPING, 0, scratch);
            drain(fd, msg, iov, control);
        }
    }

    /** Reads whatever waits on the error queue. */
    private static void drain(int fd, MemorySegment msg, MemorySegment iov, MemorySegment control) {
        for (int i = 0; i < 64; i++) {
            SocketStructs.msghdr(msg, 0, MemorySegment.NULL, 0, iov, 1, control, control.byteSize());
            if (Sockets.recvmmsg(fd, msg, 1, Sockets.MSG_ERRQUEUE | Sockets.MSG_DONTWAIT) != 1) {
                return;
            }
        }
    }

    /**
     * The IPv4 ID of the probe in a stamp's copy of {@code length} bytes: the copy starts at the
     * link-layer header (14 bytes on lo, other lengths elsewhere), so the IPv4 header is found by
     * what the probe's must hold (no options, UDP, from and to this address, both ports this one,
     * no payload); -1 if it is not there.
     */
    static int idOf(MemorySegment copy, int length, int localAddr, int localPort) {
        int n = Math.min(length, COPY_BYTES);
        for (int o = 0; o + 28 <= n; o++) {
            if ((copy.get(JAVA_BYTE, o) & 0xFF) == IPV4_NO_OPTIONS
                    && u16(copy, o + 2) == 28
                    && (copy.get(JAVA_BYTE, o + 9) & 0xFF) == UDP
                    && i32(copy, o + 12) == localAddr && i32(copy, o + 16) == localAddr
                    && u16(copy, o + 20) == localPort && u16(copy, o + 22) == localPort) {
                return u16(copy, o + 4);
            }
        }
        return -1;
    }

    private static int u16(MemorySegment s, int o) {
        return ((s.get(JAVA_BYTE, o) & 0xFF) << 8) | (s.get(JAVA_BYTE, o + 1) & 0xFF);
    }

    private static int i32(MemorySegment s, int o) {
        return (u16(s, o) << 16) | u16(s, o + 2);
    }
}
