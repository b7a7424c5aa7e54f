package dev.jrxe.net;

import java.lang.foreign.MemorySegment;

/**
 * Receives datagrams from a {@link Link}. Called on the thread that polls the link; the
 * memory is only valid during the call.
 */
@FunctionalInterface
public interface DatagramHandler {
    /**
     * @param buf     memory holding the UDP payload
     * @param offset  offset of the payload in {@code buf}
     * @param length  payload length
     * @param srcAddr IPv4 source address (big-endian int)
     * @param srcPort UDP source port
     * @param dstAddr IPv4 destination address (the link's own)
     * @return the IPv4 Identification the handler found the datagram to carry (the ICRC check
     *         solves for it), or -1 when unknown; the link uses it for the pcap record only
     */
    int onDatagram(MemorySegment buf, long offset, int length, int srcAddr, int srcPort, int dstAddr);
}
