package dev.jrxe.wire;

import dev.jrxe.Configuration;
import dev.jrxe.net.DatagramHandler;
import dev.jrxe.net.DropReason;
import dev.jrxe.net.Link;
import dev.jrxe.net.LinkCounters;
import java.lang.foreign.MemorySegment;

/**
 * The receive side of the wire layer: turns the link's datagrams into verified {@link RocePacket}s
 * for a {@link PacketSink}, and counts every other datagram as a drop by reason.
 *
 * <p>Order of checks: shorter than BTH + ICRC ({@link DropReason#TRUNCATED}); ICRC matches no
 * IPv4 Identification ({@link DropReason#BAD_ICRC}, see {@link Icrc#solveIpId}); then
 * {@link RocePacket#validate}. The ICRC comes before the structural checks so that a corrupted
 * datagram counts as corrupted and not as, say, a bad version; a datagram that passes the ICRC
 * but fails validation is a peer bug and is counted by its structural reason.
 *
 * <p>Never throws: a runtime exception (which only a bug, e.g. in the sink, can cause) is caught
 * and counted as {@link DropReason#OTHER}. Every offered datagram is either accepted or counted
 * as exactly one drop. Single-threaded, like the link that calls it; no allocation per datagram.
 */
public final class RxDecoder implements DatagramHandler {
    private final LinkCounters counters;
    private final int localPort;
    private final int maxPayload;
    private final PacketSink sink;
    private final Icrc icrc = new Icrc();
    private final RocePacket packet = new RocePacket();
    private long offered;
    private long accepted;

    /**
     * @param counters   where drops are counted
     * @param localPort  the link's UDP port: the destination port the ICRC covers
     * @param maxPayload largest payload accepted (device MTU)
     * @param sink       receives accepted packets
     */
    public RxDecoder(LinkCounters counters, int localPort, int maxPayload, PacketSink sink) {
        this.counters = counters;
        this.localPort = localPort;
        this.maxPayload = maxPayload;
        this.sink = sink;
    }

    /** Decoder for a link: its counters and port, {@link Configuration#wireMaxPayload()}. */
    public RxDecoder(Link link, PacketSink sink) {
        this(link.counters(), link.localPort(), Configuration.wireMaxPayload(), sink);
    }

    /**
     * @return the IPv4 Identification the ICRC was solved for, or -1 when the datagram was too
     *     short or its ICRC matches no ID (it is still returned for datagrams dropped afterwards)
     */
    @Override
    public int onDatagram(MemorySegment buf, long offset, int length, int srcAddr, int srcPort, int dstAddr) {
        offered++;
        try {
            if (length < OpcodeTable.BTH_LENGTH + OpcodeTable.ICRC_LENGTH) {
                counters.drop(DropReason.TRUNCATED);
                return -1;
            }
            int ipId = icrc.solveIpId(buf, offset, length, srcAddr, dstAddr, srcPort, localPort);
            if (ipId < 0) {
                counters.drop(DropReason.BAD_ICRC);
                return -1;
            }
            DropReason invalid = packet.wrap(buf, offset, length).validate(maxPayload);
            if (invalid != null) {
                counters.drop(invalid);
                return ipId;
            }
            sink.onPacket(packet, srcAddr, srcPort, dstAddr, ipId);
            accepted++;
            return ipId;
        } catch (RuntimeException e) {
            counters.drop(DropReason.OTHER);
            return -1;
        }
    }

    /** Datagrams handed to {@link #onDatagram} so far. */
    public long offered() {
        return offered;
    }

    /** Datagrams delivered to the sink (and returned from it normally) so far. */
    public long accepted() {
        return accepted;
    }
}
