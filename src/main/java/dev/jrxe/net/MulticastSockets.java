package dev.jrxe.net;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Selector;
import java.util.Arrays;

/**
 * The IPv4 multicast groups a link receives (rxe joins the group on its netdev when a QP attaches
 * to a multicast GID). A socket bound to the device's unicast address never sees a datagram sent
 * to a group, so each joined group gets a socket of its own, bound to group:port (SO_REUSEADDR, so
 * several devices of one host can join the same group) and joined on the interface that has the
 * device's address. The socket lives in the network namespace of the thread that joins. Used by
 * the link's poll only; join and leave are rare and copy the array the poll reads.
 */
final class MulticastSockets {
    private record Member(int group, DatagramChannel channel) {
    }

    private final int localAddr;
    private final int port;
    private final ByteBuffer rx;
    private final MemorySegment rxSegment;
    private volatile Member[] members = new Member[0];

    MulticastSockets(int localAddr, int port, int maxDatagram) {
        this.localAddr = localAddr;
        this.port = port;
        this.rx = ByteBuffer.allocateDirect(maxDatagram + 1);
        this.rxSegment = MemorySegment.ofBuffer(rx);
    }

    /** True when at least one group is joined. */
    boolean any() {
        return members.length > 0;
    }

    /** Joins {@code group} (big-endian IPv4); 0, or -errno (EINVAL not multicast, EADDRINUSE, ENODEV). */
    synchronized int join(int group, Selector selector) {
        if ((group >>> 28) != 0xE) {
            return -dev.jrxe.ib.Errno.EINVAL;
        }
        for (Member m : members) {
            if (m.group == group) {
                return 0;
            }
        }
        DatagramChannel ch = null;
        try {
            InetAddress g = address(group);
            NetworkInterface nif = interfaceOf(localAddr);
            if (nif == null) {
                return -dev.jrxe.ib.Errno.ENODEV;
            }
            ch = DatagramChannel.open(StandardProtocolFamily.INET);
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.bind(new InetSocketAddress(g, port));
            ch.join(g, nif);
            ch.configureBlocking(false);
            if (selector != null) {
                ch.register(selector, java.nio.channels.SelectionKey.OP_READ);
            }
            Member[] ms = Arrays.copyOf(members, members.length + 1);
            ms[members.length] = new Member(group, ch);
            members = ms;
            return 0;
        } catch (BindException e) {
            close(ch);
            return -dev.jrxe.ib.Errno.EADDRINUSE;
        } catch (IOException | RuntimeException e) {
            close(ch);
            return -dev.jrxe.ib.Errno.ENODEV;
        }
    }

    /** Leaves {@code group}; 0, or -EINVAL when it was not joined. */
    synchronized int leave(int group) {
        Member[] ms = members;
        for (int i = 0; i < ms.length; i++) {
            if (ms[i].group == group) {
                Member[] left = new Member[ms.length - 1];
                System.arraycopy(ms, 0, left, 0, i);
                System.arraycopy(ms, i + 1, left, i, ms.length - i - 1);
                members = left;
                close(ms[i].channel);
                return 0;
            }
        }
        return -dev.jrxe.ib.Errno.EINVAL;
    }

    /** Receives up to {@code limit} datagrams from the joined groups; returns handler calls. */
    int poll(AbstractLink link, DatagramHandler h, int limit) {
        int calls = 0;
        int taken = 0;
        for (Member m : members) {
            while (taken < limit) {
                rx.clear();
                SocketAddress from;
                try {
                    from = m.channel.receive(rx);
                } catch (IOException e) {
                    break; // left meanwhile, or closed
                }
                if (from == null) {
                    break;
                }
                taken++;
                InetSocketAddress isa = (InetSocketAddress) from;
                int len = rx.position();
                calls += link.deliver(h, rxSegment, 0, len, Links.toInt(isa.getAddress()), isa.getPort(), m.group);
            }
        }
        return calls;
    }

    synchronized void close() {
        for (Member m : members) {
            close(m.channel);
        }
        members = new Member[0];
    }

    private static void close(DatagramChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing to do about it
            }
        }
    }

    /**
     * The interface that has {@code addr}, or whose IPv4 subnet contains it (127.0.0.2 is lo's
     * without being listed on it: lo carries 127.0.0.0/8), or null.
     */
    static NetworkInterface interfaceOf(int addr) throws IOException {
        NetworkInterface exact = NetworkInterface.getByInetAddress(address(addr));
        if (exact != null) {
            return exact;
        }
        for (NetworkInterface nif : java.util.Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (java.net.InterfaceAddress ia : nif.getInterfaceAddresses()) {
                if (ia.getAddress() instanceof Inet4Address a4 && ia.getNetworkPrefixLength() > 0) {
                    int prefix = ia.getNetworkPrefixLength();
                    int mask = prefix >= 32 ? -1 : ~(-1 >>> prefix);
                    if ((Links.toInt(a4) & mask) == (addr & mask)) {
                        return nif;
                    }
                }
            }
        }
        return null;
    }

    private static Inet4Address address(int a) throws UnknownHostException {
        return (Inet4Address) InetAddress.getByAddress(new byte[] {(byte) (a >>> 24), (byte) (a >>> 16),
            (byte) (a >>> 8), (byte) a});
    }
}
