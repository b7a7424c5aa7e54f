package dev.jrxe.net;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * A collector that, like the wire layer will, finds the IPv4 ID a datagram carried by trying IDs
 * until the ICRC matches, and returns it (so the link's pcap records the real ID).
 */
final class SolvingCollector {
    private SolvingCollector() {
    }

    static Collector create(int dstPort) {
        return new Collector() {
            @Override
            public int onDatagram(MemorySegment buf, long offset, int length, int srcAddr, int srcPort, int dstAddr) {
                super.onDatagram(buf, offset, length, srcAddr, srcPort, dstAddr);
                int wire = buf.get(JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), offset + length - TestRoce.ICRC);
                for (int id = 0; id < 256; id++) {
                    if (TestRoce.icrc(buf, offset, length, srcAddr, dstAddr, srcPort, dstPort, id) == wire) {
                        return id;
                    }
                }
                return -1;
            }
        };
    }
}
