package dev.jrxe.net;

import jdk.net.ExtendedSocketOptions;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.Consumer;

/**
 * The portable link: a non-blocking, unconnected {@link DatagramChannel} with
 * {@link ExtendedSocketOptions#IP_DONTFRAGMENT} (so Linux sends IPv4 ID 0), one system call per
 * datagram, a {@link Selector} to wait. Allocation-free per packet: direct buffers made once,
 * destination addresses cached, the channel's cached sender address compared by identity.
 */
final class ChannelLink extends AbstractLink {
    private static final int SEND_RETRIES = 8;
    private static final int CACHE = 64;

    private final DatagramChannel channel;
    private final Selector selector;
    private final ByteBuffer[] txBuffer;
    private final ByteBuffer rxBuffer;
    private final MemorySegment rxSegment;
    /** Send-only channels of other source ports, opened on first use (index: port). */
    private DatagramChannel[] portChannel;
    private final long[] destKey = new long[CACHE];
    private final InetSocketAddress[] destAddr = new InetSocketAddress[CACHE];
    private SocketAddress lastSender;
    private int lastSenderAddr;
    private int lastSenderPort;
    private boolean selected;
    private final Consumer<SelectionKey> onSelected = k -> selected = true;

    ChannelLink(LinkConfig config, DatagramSealer sealer) throws IOException {
        super(config, LinkMode.CHANNEL, sealer);
        DatagramChannel ch = null;
        Selector sel = null;
        try {
            ch = openChannel(config.address(), config.port(), config.receiveBufferBytes());
            sel = Selector.open();
            ch.register(sel, SelectionKey.OP_READ);
            this.localPort = ((InetSocketAddress) ch.getLocalAddress()).getPort();
        } catch (IOException | RuntimeException e) {
            if (ch != null) {
                ch.close();
            }
            if (sel != null) {
                sel.close();
            }
            closeCommon();
            throw e;
        }
        this.channel = ch;
        this.selector = sel;
        txBuffer = new ByteBuffer[slotCount];
        for (int i = 0; i < slotCount; i++) {
            txBuffer[i] = txSlot[i].asByteBuffer();
        }
        // One byte more than the largest datagram, to see that a longer one was cut.
        rxBuffer = ByteBuffer.allocateDirect(maxDatagram + 1);
        rxSegment = MemorySegment.ofBuffer(rxBuffer);
        for (int i = 0; i < CACHE; i++) {
            destKey[i] = -1;
        }
    }

    private DatagramChannel openChannel(Inet4Address address, int port, int receiveBuffer) throws IOException {
        DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, false);
            ch.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
            java.net.NetworkInterface nif = MulticastSockets.interfaceOf(Links.toInt(address));
            if (nif != null) {
                ch.setOption(StandardSocketOptions.IP_MULTICAST_IF, nif); // group sends leave from the device's interface
            }
            if (config.sendBufferBytes() > 0) {
                ch.setOption(StandardSocketOptions.SO_SNDBUF, config.sendBufferBytes());
            }
            if (receiveBuffer > 0) {
                ch.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
            }
            ch.configureBlocking(false);
            ch.bind(new InetSocketAddress(address, port));
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    void closeSourcePort(int port) {
        if (portChannel != null && portChannel[port] != null && portChannel[port] != channel) {
            try {
                portChannel[port].close();
            } catch (IOException e) {
                // closing a send-only socket cannot fail in a way to act on
            }
            portChannel[port] = null;
        }
    }

    private DatagramChannel channelFor(int port) {
        if (port == localPort) {
            return channel;
        }
        if (portChannel == null) {
            portChannel = new DatagramChannel[65536];
        }
        DatagramChannel ch = portChannel[port];
        if (ch == null) {
            try {
                ch = openChannel(config.address(), port, 1);
            } catch (IOException e) {
                ch = channel;
            }
            portChannel[port] = ch;
        }
        return ch;
    }

    private InetSocketAddress destination(int addr, int port) {
        long key = (addr & 0xFFFFFFFFL) << 16 | port;
        int i = (int) ((key * 0x9E3779B97F4A7C15L) >>> 58);
        if (destKey[i] != key) {
            destAddr[i] = new InetSocketAddress(Links.toInetAddress(addr), port);
            destKey[i] = key;
        }
        return destAddr[i];
    }

    @Override
    int transmit(int[] slots, int count) {
        int sent = 0;
        for (int k = 0; k < count; k++) {
            int s = slots[k];
            DatagramChannel ch = channelFor(txSrcPort[s]);
            if (ch == channel) {
                txSrcPort[s] = localPort;
            }
            if (!seal(s, 0)) {
                continue;
            }
            ByteBuffer b = txBuffer[s];
            b.limit(txLen[s]).position(0);
            InetSocketAddress dest = destination(txDstAddr[s], txDstPort[s]);
            boolean ok = false;
            for (int attempt = 0; attempt <= SEND_RETRIES; attempt++) {
                try {
                    counters.sendCall();
                    if (ch.send(b, dest) > 0 || txLen[s] == 0) {
                        ok = true;
                        break;
                    }
                } catch (IOException e) {
                    break;
                }
                Thread.yield();
            }
            if (ok) {
                sent(s);
                sent++;
            } else {
                sendFailed(s);
            }
        }
        return sent;
    }

    @Override
    public int poll(DatagramHandler handler, int limit) {
        ensureOpen();
        int calls = 0;
        int taken = 0;
        for (; taken < limit; taken++) {
            rxBuffer.clear();
            SocketAddress from;
            try {
                counters.receiveCall();
                from = channel.receive(rxBuffer);
            } catch (IOException e) {
                break;
            }
            if (from == null) {
                break;
            }
            if (from != lastSender) {
                InetSocketAddress isa = (InetSocketAddress) from;
                lastSenderAddr = Links.toInt(isa.getAddress());
                lastSenderPort = isa.getPort();
                lastSender = from;
            }
            int len = rxBuffer.position();
            if (len > maxDatagram) {
                counters.received(len);
                counters.drop(DropReason.OVERSIZED);
                continue;
            }
            calls += deliver(handler, rxSegment, 0, len, lastSenderAddr, lastSenderPort);
        }
        lastPollFull = taken >= limit;
        calls += pollMulticast(handler, limit);
        rethrowCallbackFailure();
        return calls;
    }

    @Override
    java.nio.channels.Selector selectorForMulticast() {
        return selector;
    }

    @Override
    public boolean awaitReadable(long timeoutNanos) {
        ensureOpen();
        selected = false;
        try {
            if (timeoutNanos <= 0) {
                selector.selectNow(onSelected);
            } else {
                long millis = Math.max(1, (timeoutNanos + 999_999) / 1_000_000);
                selector.select(onSelected, millis);
            }
        } catch (IOException e) {
            return false;
        }
        return selected;
    }

    @Override
    public void wakeup() {
        if (!closed) {
            try {
                selector.wakeup();
            } catch (java.nio.channels.ClosedSelectorException e) {
                // closed meanwhile: nothing to wake
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            selector.close();
            channel.close();
            if (portChannel != null) {
                for (DatagramChannel c : portChannel) {
                    if (c != null && c != channel) {
                        c.close();
                    }
                }
            }
        } catch (IOException e) {
            // closing sockets cannot fail in a way the caller could act on
        } finally {
            closeCommon();
        }
    }
}
