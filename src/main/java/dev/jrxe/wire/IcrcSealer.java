package dev.jrxe.wire;

import dev.jrxe.net.DatagramSealer;
import java.lang.foreign.MemorySegment;

/**
 * The link's last step before a datagram leaves: writes the ICRC for the exact IPv4/UDP header the
 * kernel will use. One instance per link (not thread-safe, like the link).
 */
public final class IcrcSealer implements DatagramSealer {
    private final Icrc icrc = new Icrc();

    @Override
    public void seal(MemorySegment buf, long offset, int length,
                     int srcAddr, int dstAddr, int srcPort, int dstPort, int ipId) {
        icrc.seal(buf, offset, length, srcAddr, dstAddr, srcPort, dstPort, ipId);
    }

    @Override
    public boolean sealsInParts() {
        return true;
    }

    @Override
    public void sealParts(MemorySegment head, int headLength, MemorySegment body, long bodyOffset, int bodyLength,
                          int tailLength, int srcAddr, int dstAddr, int srcPort, int dstPort, int ipId) {
        icrc.sealParts(head, headLength, body, bodyOffset, bodyLength, tailLength, srcAddr, dstAddr, srcPort, dstPort, ipId);
    }
}
