package dev.jrxe.net;

import java.lang.foreign.MemorySegment;

/**
 * A collector that, as the wire layer does ({@link dev.jrxe.wire.Icrc#solveIpId}), finds the IPv4
 * ID a datagram carried from its ICRC and returns it (so the link's pcap records the real ID: a
 * connected source port's IDs start anywhere in 0..65535).
 */
final class SolvingCollector {
    private SolvingCollector() {
    }

    static Collector create(int dstPort) {
        return new Collector() {
            private final dev.jrxe.wire.Icrc icrc = new dev.jrxe.wire.Icrc();

            @Override
            public int onDatagram(MemorySegment buf, long offset, int length, int srcAddr, int srcPort, int dstAddr) {
                super.onDatagram(buf, offset, length, srcAddr, srcPort, dstAddr);
                return icrc.solveIpId(buf, offset, length, srcAddr, dstAddr, srcPort, dstPort);
            }
        };
    }
}
