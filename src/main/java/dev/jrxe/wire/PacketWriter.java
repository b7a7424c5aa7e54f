package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Encoder of one RoCEv2 UDP payload into a buffer (typically the one {@code Link.claim()}
 * returned), without allocation.
 *
 * <pre>{@code
 * writer.begin(buf, 0, Opcodes.RC_RDMA_WRITE_FIRST)
 *     .bth().destQp(qpn).psn(psn);                      // TVer 0 and P_Key 0xFFFF already set
 * writer.reth().va(va).rkey(rkey).dmaLength(total);
 * writer.copyPayload(src, srcOffset, n);                // or write at payloadOffset() directly
 * int length = writer.finish(n);                        // pad + PadCnt; ICRC bytes zeroed
 * link.commit(length, dst, 4791, sport);                // IcrcSealer fills the ICRC
 * }</pre>
 */
public final class PacketWriter extends RoceHeaders {
    /**
     * Starts a packet: zeroes the opcode's headers, writes the opcode, TVer 0 and P_Key 0xFFFF
     * into the BTH and positions the extension header flyweights.
     *
     * @throws IllegalArgumentException when the opcode is not in the {@link OpcodeTable}
     * @throws IndexOutOfBoundsException when the headers do not fit in {@code segment}
     */
    public PacketWriter begin(MemorySegment segment, long offset, int opcode) {
        if (!OpcodeTable.isKnown(opcode)) {
            throw new IllegalArgumentException("unknown opcode " + Opcodes.name(opcode));
        }
        int op = opcode & 0xFF;
        Bytes.zero(segment, offset, OpcodeTable.headerLength(op));
        this.segment = segment;
        this.offset = offset;
        this.opcode = op;
        bth.wrap(segment, offset).opcode(op).pkey(Bth.DEFAULT_PKEY);
        return this;
    }

    /** Copies {@code length} payload bytes from {@code src} to {@link #payloadOffset()}. */
    public PacketWriter copyPayload(MemorySegment src, long srcOffset, int length) {
        MemorySegment.copy(src, srcOffset, segment, payloadOffset(), length);
        return this;
    }

    /**
     * Ends the packet after {@code payloadLength} payload bytes: zero pad to a multiple of four,
     * sets BTH PadCnt, zeroes the four ICRC bytes.
     *
     * @return the UDP payload length, ICRC included
     * @throws IllegalArgumentException when the opcode carries no payload but {@code payloadLength > 0}
     */
    public int finish(int payloadLength) {
        return finishAt(payloadLength, payloadOffset() + payloadLength);
    }

    /**
     * As {@link #finish}, for a payload the link sends from where it lies
     * ({@code Link.commitByReference}): the pad and the four ICRC bytes are zeroed right after the
     * headers, at {@link #payloadOffset()}, where the link takes them from.
     *
     * @return the UDP payload length, payload and ICRC included
     */
    public int finishByReference(int payloadLength) {
        return finishAt(payloadLength, payloadOffset());
    }

    /** Checks the payload length, zeroes pad and ICRC at {@code trailer}, sets PadCnt; returns the UDP payload length. */
    private int finishAt(int payloadLength, long trailer) {
        if (payloadLength < 0
            || (payloadLength > 0 && (OpcodeTable.flags(opcode) & OpcodeTable.HAS_PAYLOAD) == 0)) {
            throw new IllegalArgumentException(Opcodes.name(opcode) + " cannot carry " + payloadLength + " bytes");
        }
        int pad = padFor(payloadLength);
        Bytes.zero(segment, trailer, pad + OpcodeTable.ICRC_LENGTH);
        bth.padCount(pad);
        return OpcodeTable.headerLength(opcode) + payloadLength + pad + OpcodeTable.ICRC_LENGTH;
    }

    /** Pad bytes that follow a payload of {@code payloadLength} bytes (0..3). */
    public static int padFor(int payloadLength) {
        return -payloadLength & 3;
    }

    /** UDP payload length of a packet of {@code opcode} carrying {@code payloadLength} bytes, ICRC included. */
    public static int packetLength(int opcode, int payloadLength) {
        return OpcodeTable.headerLength(opcode) + payloadLength + padFor(payloadLength) + OpcodeTable.ICRC_LENGTH;
    }
}
