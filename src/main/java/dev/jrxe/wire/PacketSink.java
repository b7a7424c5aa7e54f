package dev.jrxe.wire;

/** Receives the packets {@link RxDecoder} accepted: validated and ICRC verified. */
@FunctionalInterface
public interface PacketSink {
    /**
     * @param packet  the decoded packet; the view and its memory are valid only during the call
     * @param srcAddr IPv4 source address, big-endian int
     * @param srcPort UDP source port
     */
    void onPacket(RocePacket packet, int srcAddr, int srcPort);

    /**
     * What {@link RxDecoder} calls: also the IPv4 destination the datagram was sent to (a
     * multicast group, or the device's own address) and the IPv4 Identification its ICRC was
     * solved for (what a UD receiver's GRH area shows). By default the three-argument form.
     *
     * @param dstAddr IPv4 destination address, big-endian int
     * @param ipId    IPv4 Identification, 0..65535
     */
    default void onPacket(RocePacket packet, int srcAddr, int srcPort, int dstAddr, int ipId) {
        onPacket(packet, srcAddr, srcPort);
    }
}
