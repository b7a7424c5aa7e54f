package dev.jrxe.net;

import java.lang.foreign.MemorySegment;

/**
 * Finishes a datagram once the link knows the exact IPv4/UDP header it will travel under.
 *
 * <p>The RoCEv2 ICRC covers the IPv4 Identification field, which only the link knows (0 for a
 * plain DF datagram, the segment index for a UDP GSO train). The link therefore calls the sealer
 * for every datagram just before it goes to the kernel. The wire layer implements it (ICRC); the
 * link itself knows nothing about RoCE.
 */
@FunctionalInterface
public interface DatagramSealer {
    /**
     * @param buf     memory holding the UDP payload (BTH .. ICRC)
     * @param offset  offset of the UDP payload in {@code buf}
     * @param length  UDP payload length, including the 4 trailing ICRC bytes
     * @param srcAddr IPv4 source address, big-endian int (as {@code Inet4Address.getAddress()} packs)
     * @param dstAddr IPv4 destination address
     * @param srcPort UDP source port
     * @param dstPort UDP destination port
     * @param ipId    IPv4 Identification the kernel will put on this datagram
     */
    void seal(MemorySegment buf, long offset, int length,
              int srcAddr, int dstAddr, int srcPort, int dstPort, int ipId);

    /** Whether {@link #sealParts} works: a link may then send payloads from where they lie. */
    default boolean sealsInParts() {
        return false;
    }

    /**
     * Seals a datagram that travels from two places ({@link Link#commitByReference}): the bytes
     * before the payload in {@code head} from offset 0, the payload in {@code body}, then the
     * rest (what follows the payload, the 4 trailing ICRC bytes last) in {@code head} at
     * {@code headLength}. The other parameters are {@link #seal}'s.
     *
     * @throws UnsupportedOperationException when {@link #sealsInParts} is false
     */
    default void sealParts(MemorySegment head, int headLength, MemorySegment body, long bodyOffset, int bodyLength,
                           int tailLength, int srcAddr, int dstAddr, int srcPort, int dstPort, int ipId) {
        throw new UnsupportedOperationException("this sealer seals whole datagrams only");
    }

    /** A sealer that leaves the datagram as it is. */
    DatagramSealer NONE = (b, o, l, s, d, sp, dp, id) -> { };
}
