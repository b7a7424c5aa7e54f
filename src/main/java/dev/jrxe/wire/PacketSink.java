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
}
