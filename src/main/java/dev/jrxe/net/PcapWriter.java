package dev.jrxe.net;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes UDP datagrams as a pcapng file (link type Ethernet, microsecond timestamps) with
 * synthesized Ethernet, IPv4 and UDP headers, so Wireshark and roce_check.py decode the RoCE
 * packets inside: fake MACs 02:00:a.b.c.d from the IPv4 addresses, IPv4 with DF, TTL 64, the
 * real addresses and Identification and a correct header checksum, UDP with the real ports and
 * checksum 0.
 *
 * <p>Links that open the same path share one writer; each link is an interface of its own in the
 * file, and each record says whether it was sent or received. Output is buffered and written out
 * when the buffer fills, on {@link #flush()} and when the last user closes it. Writes are
 * synchronized (capture is a debugging aid, not a hot path). An I/O error stops the capture; the
 * error is thrown by {@link #close()}.
 */
public final class PcapWriter implements Closeable {
    private static final int BUFFER_BYTES = 1 << 20;
    private static final int ETH_LEN = 14;
    private static final int IP_LEN = 20;
    private static final int UDP_LEN = 8;
    private static final int HEADERS = ETH_LEN + IP_LEN + UDP_LEN;
    /** Enhanced packet block without data: 28 fixed bytes, epb_flags option (8), end of options (4), trailing length (4). */
    private static final int EPB_OVERHEAD = 28 + 8 + 4 + 4;
    private static final int EPB_FLAGS_INBOUND = 1;
    private static final int EPB_FLAGS_OUTBOUND = 2;

    private static final Map<Path, PcapWriter> OPEN = new HashMap<>();

    private final Path path;
    private final FileChannel file;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment bufferSegment = MemorySegment.ofBuffer(buffer);
    private final long baseMicros;
    private final long baseNanos;
    private int users;
    private int interfaces;
    private long packets;
    private IOException failure;

    private PcapWriter(Path path) throws IOException {
        this.path = path;
        this.file = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        Instant now = Instant.now();
        this.baseMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
        this.baseNanos = System.nanoTime();
        writeSectionHeader();
    }

    /** Opens (or joins, when another link already writes it) the pcapng file at {@code path}. */
    public static PcapWriter open(Path path) throws IOException {
        Path key = path.toAbsolutePath().normalize();
        synchronized (OPEN) {
            PcapWriter w = OPEN.get(key);
            if (w == null) {
                w = new PcapWriter(key);
                OPEN.put(key, w);
            }
            synchronized (w) {
                w.users++;
            }
            return w;
        }
    }

    public Path path() {
        return path;
    }

    /** Adds an Ethernet interface named {@code name}; returns its id for {@link #write}. */
    public synchronized int addInterface(String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        int optLen = 4 + pad4(n.length) + 4 + 4 + 4;
        int total = 20 + optLen;
        ensure(total);
        buffer.putInt(1).putInt(total)
                .putShort((short) 1)        // LINKTYPE_ETHERNET
                .putShort((short) 0)
                .putInt(0);                 // snaplen: no limit
        buffer.putShort((short) 2).putShort((short) n.length).put(n); // if_name
        padTo4(n.length);
        buffer.putShort((short) 9).putShort((short) 1).put((byte) 6).put((byte) 0).putShort((short) 0); // if_tsresol: 10^-6
        buffer.putInt(0);                   // opt_endofopt
        buffer.putInt(total);
        return interfaces++;
    }

    /**
     * Records one datagram.
     *
     * @param iface    interface from {@link #addInterface}
     * @param outbound true for a datagram sent, false for one received
     * @param ipId     the IPv4 Identification it carried (tx: the one the sealer was given)
     */
    public synchronized void write(int iface, boolean outbound, int srcAddr, int dstAddr, int srcPort, int dstPort,
                                   int ipId, MemorySegment payload, long offset, int length) {
        if (failure != null || !file.isOpen()) {
            return;
        }
        int frame = HEADERS + length;
        int total = EPB_OVERHEAD + pad4(frame);
        ensure(total);
        if (failure != null) {
            return;
        }
        long ts = baseMicros + (System.nanoTime() - baseNanos) / 1000;
        buffer.putInt(6).putInt(total).putInt(iface)
                .putInt((int) (ts >>> 32)).putInt((int) ts)
                .putInt(frame).putInt(frame);
        ByteBuffer b = buffer.order(ByteOrder.BIG_ENDIAN);
        // Ethernet
        b.putShort((short) 0x0200).putInt(dstAddr).putShort((short) 0x0200).putInt(srcAddr).putShort((short) 0x0800);
        // IPv4
        int ipStart = b.position();
        b.putShort((short) 0x4500).putShort((short) (IP_LEN + UDP_LEN + length)).putShort((short) ipId)
                .putShort((short) 0x4000).putShort((short) 0x4011).putShort((short) 0)
                .putInt(srcAddr).putInt(dstAddr);
        b.putShort(ipStart + 10, ipChecksum(b, ipStart));
        // UDP
        b.putShort((short) srcPort).putShort((short) dstPort).putShort((short) (UDP_LEN + length)).putShort((short) 0);
        b.order(ByteOrder.LITTLE_ENDIAN);
        MemorySegment.copy(payload, offset, bufferSegment, buffer.position(), length);
        buffer.position(buffer.position() + length);
        padTo4(frame);
        buffer.putShort((short) 2).putShort((short) 4).putInt(outbound ? EPB_FLAGS_OUTBOUND : EPB_FLAGS_INBOUND);
        buffer.putInt(0);
        buffer.putInt(total);
        packets++;
    }

    /** Records written so far. */
    public synchronized long packets() {
        return packets;
    }

    /** Writes buffered records to the file. */
    public synchronized void flush() {
        drain();
    }

    /** Leaves the writer; the last user flushes and closes the file, and throws any I/O error it met. */
    @Override
    public void close() {
        synchronized (OPEN) {
            synchronized (this) {
                if (users == 0 || --users > 0) {
                    return;
                }
                OPEN.remove(path);
                drain();
                try {
                    file.close();
                } catch (IOException e) {
                    if (failure == null) {
                        failure = e;
                    }
                }
                if (failure != null) {
                    throw new UncheckedIOException("pcap " + path, failure);
                }
            }
        }
    }

    private void writeSectionHeader() {
        buffer.putInt(0x0A0D0D0A).putInt(28).putInt(0x1A2B3C4D)
                .putShort((short) 1).putShort((short) 0)
                .putLong(-1L)
                .putInt(28);
    }

    private void ensure(int bytes) {
        if (buffer.remaining() < bytes) {
            drain();
        }
    }

    private void drain() {
        if (failure != null || !file.isOpen()) {
            return;
        }
        buffer.flip();
        try {
            while (buffer.hasRemaining()) {
                file.write(buffer);
            }
        } catch (IOException e) {
            failure = e;
        }
        buffer.clear();
    }

    private void padTo4(int len) {
        for (int i = len; (i & 3) != 0; i++) {
            buffer.put((byte) 0);
        }
    }

    private static int pad4(int len) {
        return (len + 3) & ~3;
    }

    /** Internet checksum of the 20-byte IPv4 header at {@code start} (checksum field zero). */
    static short ipChecksum(ByteBuffer b, int start) {
        int sum = 0;
        for (int i = 0; i < IP_LEN; i += 2) {
            sum += b.getShort(start + i) & 0xFFFF;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (short) ~sum;
    }
}
