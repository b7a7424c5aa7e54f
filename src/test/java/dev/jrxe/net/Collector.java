package dev.jrxe.net;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/** A handler that keeps a copy of every datagram it is given, for assertions. */
class Collector implements DatagramHandler {
    record Datagram(byte[] data, int srcAddr, int srcPort, int dstAddr) {
        int psn() {
            return TestRoce.psn(MemorySegment.ofArray(data), 0);
        }
    }

    final List<Datagram> datagrams = new ArrayList<>();
    /** The IP ID onDatagram returns (what the pcap record shows). */
    int reportIpId = -1;

    @Override
    public int onDatagram(MemorySegment buf, long offset, int length, int srcAddr, int srcPort, int dstAddr) {
        datagrams.add(new Datagram(buf.asSlice(offset, length).toArray(JAVA_BYTE), srcAddr, srcPort, dstAddr));
        return reportIpId;
    }

    int size() {
        return datagrams.size();
    }

    /**
     * Polls until {@code expected} datagrams arrived or nothing arrives for a while (ten waits of
     * 200 ms; the count is what the test checks, never the time).
     */
    Collector receive(Link link, int expected) {
        int idle = 0;
        while (datagrams.size() < expected && idle < 10) {
            if (link.poll(this, 64) == 0 && !link.awaitReadable(200_000_000L)) {
                idle++;
            }
        }
        return this;
    }

    /** Polls until the socket is empty and stays so for a moment. */
    Collector drainQuick(Link link) {
        while (link.poll(this, 64) > 0 || link.awaitReadable(2_000_000L)) {
            // keep going
        }
        return this;
    }

    /** Polls until the socket is empty (a few short waits find late arrivals). */
    Collector drain(Link link) {
        int idle = 0;
        while (idle < 3) {
            if (link.poll(this, 64) == 0 && !link.awaitReadable(50_000_000L)) {
                idle++;
            }
        }
        return this;
    }
}
