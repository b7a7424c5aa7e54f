package dev.jrxe.net;

import dev.jrxe.sys.Sockets;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Opens {@link Link}s, and converts between IPv4 address forms. */
public final class Links {
    private Links() {
    }

    /**
     * Opens a link bound to {@code config.address()}:{@code config.port()}.
     * {@link LinkMode#AUTO} picks GSO when the kernel takes UDP_SEGMENT and UDP_GRO, else MMSG
     * when FFM works here (Linux, native access enabled), else CHANNEL.
     *
     * @param sealer called for every datagram just before it goes to the kernel (ICRC)
     * @throws java.net.BindException when the address or port cannot be bound
     * @throws IOException            when the socket cannot be set up (or the pcap file opened)
     */
    public static Link open(LinkConfig config, DatagramSealer sealer) throws IOException {
        LinkMode mode = resolve(config.mode());
        if (mode == LinkMode.CHANNEL) {
            return new ChannelLink(config, sealer);
        }
        if (mode == LinkMode.GSO && !NativeLink.gsoSupported()) {
            throw new IOException("UDP GSO/GRO not supported here");
        }
        if (!Sockets.available()) {
            throw new IOException(mode + " needs Linux and --enable-native-access");
        }
        return new NativeLink(config, mode, sealer);
    }

    /**
     * Opens the {@code config.engines()} links of a device of several engines: sockets bound to
     * one address and port with SO_REUSEPORT, the kernel steering each datagram to the link of
     * index {@code DestQP % engines} ({@link QpSteering}). The address and port are first bound by
     * a socket alone and released, so that a port some other socket holds fails with
     * BindException as it does for one engine, and port 0 becomes one free port for the group.
     * Needs a native link (MMSG or GSO).
     *
     * @param sealers one sealer per link (called on that link's sending thread)
     * @throws java.net.BindException when the address or port cannot be bound
     * @throws IOException            when a socket cannot be set up, or the mode is CHANNEL
     */
    public static Link[] openGroup(LinkConfig config, java.util.function.Supplier<DatagramSealer> sealers)
            throws IOException {
        // one group at a time in this process: two groups opening at once could both pass the
        // probe and end up as one (another process of the same user still could: the kernel
        // admits any socket of the same user to a reuseport group)
        synchronized (GROUPS) {
            return openGroupAlone(config, sealers);
        }
    }

    private static final Object GROUPS = new Object();

    private static Link[] openGroupAlone(LinkConfig config, java.util.function.Supplier<DatagramSealer> sealers)
            throws IOException {
        int k = config.engines();
        if (k == 1) {
            return new Link[] {open(config, sealers.get())};
        }
        LinkMode mode = resolve(config.mode());
        if (mode == LinkMode.CHANNEL) {
            throw new IOException("several engines need a native link (MMSG or GSO), not " + mode);
        }
        if (config.pcap() != null) {
            throw new IOException("a capture file needs a device of one engine");
        }
        int port;
        try (java.nio.channels.DatagramChannel probe = java.nio.channels.DatagramChannel.open(
                java.net.StandardProtocolFamily.INET)) {
            probe.bind(new java.net.InetSocketAddress(config.address(), config.port()));
            port = ((java.net.InetSocketAddress) probe.getLocalAddress()).getPort();
        }
        LinkConfig member = config.with(port, k);
        Link[] links = new Link[k];
        try {
            for (int i = 0; i < k; i++) {
                links[i] = open(member, sealers.get());
            }
        } catch (IOException | RuntimeException e) {
            for (Link l : links) {
                if (l != null) {
                    l.close();
                }
            }
            throw e;
        }
        return links;
    }

    /**
     * A link bound to nothing: the address, port and datagram size of {@code config}, every
     * datagram sent dropped, nothing ever received. For a device opened only to be queried.
     */
    public static Link detached(LinkConfig config) {
        return new DetachedLink(config);
    }

    /** The mode {@link #open} would use for {@code requested}. */
    public static LinkMode resolve(LinkMode requested) {
        if (requested != LinkMode.AUTO) {
            return requested;
        }
        if (NativeLink.gsoSupported()) {
            return LinkMode.GSO;
        }
        return Sockets.available() ? LinkMode.MMSG : LinkMode.CHANNEL;
    }

    /** True when {@code mode} can be opened here. */
    public static boolean supported(LinkMode mode) {
        return switch (mode) {
            case AUTO, CHANNEL -> true;
            case MMSG -> Sockets.available();
            case GSO -> NativeLink.gsoSupported();
        };
    }

    /** Big-endian int of an IPv4 address ("127.0.0.2" gives 0x7F000002). */
    public static int toInt(InetAddress address) {
        if (!(address instanceof Inet4Address)) {
            throw new IllegalArgumentException("not IPv4: " + address);
        }
        return LinkConfig.toInt((Inet4Address) address);
    }

    /** Big-endian int of a dotted-quad IPv4 address. */
    public static int toInt(String address) {
        return LinkConfig.toInt(LinkConfig.parseAddress(address));
    }

    /** The address of a big-endian int. */
    public static Inet4Address toInetAddress(int address) {
        byte[] b = {(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address};
        try {
            return (Inet4Address) InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** Dotted-quad form of a big-endian int address. */
    public static String formatAddress(int address) {
        return (address >>> 24) + "." + ((address >>> 16) & 0xFF) + "." + ((address >>> 8) & 0xFF) + "." + (address & 0xFF);
    }
}
