package dev.jrxe.net;

import dev.jrxe.Configuration;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * Settings of one {@link Link}. Build with {@link #builder(Inet4Address)}; everything but the
 * address defaults to {@link Configuration}.
 *
 * @param address            IPv4 address to bind (required; a device's own address)
 * @param port               UDP port to bind, 4791 unless a test says otherwise (0: any free port)
 * @param mode               how datagrams move through the kernel
 * @param batch              committed datagrams before {@link Link#claim()} flushes, and datagrams per receive call
 * @param maxDatagram        largest UDP payload sent or accepted; longer inbound ones are dropped as OVERSIZED
 * @param sendBufferBytes    SO_SNDBUF
 * @param receiveBufferBytes SO_RCVBUF (forced beyond {@code net.core.rmem_max} when the process may)
 * @param pcap               pcapng file of every datagram sent and received, or null
 * @param txFaults           fault injection on send
 * @param rxFaults           fault injection on receive
 * @param engines            1: the socket binds its address and port alone; K &gt; 1: it is one of
 *                           the K sockets of a SO_REUSEPORT group steered by {@link QpSteering}
 *                           (open them with {@link Links#openGroup})
 */
public record LinkConfig(Inet4Address address, int port, LinkMode mode, int batch, int maxDatagram,
                         int sendBufferBytes, int receiveBufferBytes, Path pcap,
                         FaultConfig txFaults, FaultConfig rxFaults, int engines) {
    /** Largest UDP payload of an IPv4 datagram. */
    public static final int MAX_UDP_PAYLOAD = 65507;

    public LinkConfig {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(txFaults, "txFaults");
        Objects.requireNonNull(rxFaults, "rxFaults");
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (batch < 1 || batch > 1024) {
            throw new IllegalArgumentException("batch must be in [1, 1024]: " + batch);
        }
        if (maxDatagram < 1 || maxDatagram > MAX_UDP_PAYLOAD) {
            throw new IllegalArgumentException("maxDatagram must be in [1, " + MAX_UDP_PAYLOAD + "]: " + maxDatagram);
        }
        if (sendBufferBytes < 0 || receiveBufferBytes < 0) {
            throw new IllegalArgumentException("socket buffer sizes must be >= 0");
        }
        if (engines < 1 || engines > QpSteering.MAX_ENGINES) {
            throw new IllegalArgumentException("engines must be in [1, " + QpSteering.MAX_ENGINES + "]: " + engines);
        }
    }

    /** This configuration on port {@code p} as one of {@code k} sockets (a group's members bind the port the probe got). */
    LinkConfig with(int p, int k) {
        return new LinkConfig(address, p, mode, batch, maxDatagram, sendBufferBytes, receiveBufferBytes, pcap,
                txFaults, rxFaults, k);
    }

    /** A builder with every setting from {@link Configuration}. */
    public static Builder builder(Inet4Address address) {
        return new Builder(address);
    }

    /** A builder for a dotted-quad address such as "127.0.0.2". */
    public static Builder builder(String address) {
        return new Builder(parseAddress(address));
    }

    /** The address as a big-endian int. */
    public int addressInt() {
        return toInt(address);
    }

    static int toInt(Inet4Address a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    static Inet4Address parseAddress(String address) {
        try {
            InetAddress a = InetAddress.getByName(Objects.requireNonNull(address, "address"));
            if (a instanceof Inet4Address v4) {
                return v4;
            }
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IPv4 address: " + address, e);
        }
        throw new IllegalArgumentException("not an IPv4 address: " + address);
    }

    /** Builds a {@link LinkConfig}. */
    public static final class Builder {
        private final Inet4Address address;
        private int port = Configuration.port();
        private LinkMode mode = LinkMode.valueOf(Configuration.linkMode().toUpperCase(Locale.ROOT));
        private int batch = Configuration.linkBatch();
        private int maxDatagram = Configuration.linkMaxDatagram();
        private int sendBufferBytes = Configuration.linkSendBuffer();
        private int receiveBufferBytes = Configuration.linkReceiveBuffer();
        private Path pcap = Configuration.linkPcap() == null ? null : Path.of(Configuration.linkPcap());
        private FaultConfig txFaults = FaultConfig.parse(Configuration.linkTxFaults());
        private FaultConfig rxFaults = FaultConfig.parse(Configuration.linkRxFaults());
        private int engines = 1;

        private Builder(Inet4Address address) {
            this.address = Objects.requireNonNull(address, "address");
        }

        public Builder port(int v) {
            port = v;
            return this;
        }

        public Builder mode(LinkMode v) {
            mode = v;
            return this;
        }

        public Builder batch(int v) {
            batch = v;
            return this;
        }

        public Builder maxDatagram(int v) {
            maxDatagram = v;
            return this;
        }

        public Builder sendBufferBytes(int v) {
            sendBufferBytes = v;
            return this;
        }

        public Builder receiveBufferBytes(int v) {
            receiveBufferBytes = v;
            return this;
        }

        /** pcapng output file, or null for none. */
        public Builder pcap(Path v) {
            pcap = v;
            return this;
        }

        public Builder txFaults(FaultConfig v) {
            txFaults = v;
            return this;
        }

        public Builder rxFaults(FaultConfig v) {
            rxFaults = v;
            return this;
        }

        /** Sockets of the SO_REUSEPORT group, one per engine (1: a socket of its own). */
        public Builder engines(int v) {
            engines = v;
            return this;
        }

        public LinkConfig build() {
            return new LinkConfig(address, port, mode, batch, maxDatagram, sendBufferBytes, receiveBufferBytes,
                    pcap, txFaults, rxFaults, engines);
        }
    }
}
