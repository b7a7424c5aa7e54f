package dev.jrxe.wire;

import dev.jrxe.net.DropReason;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Decoder view of one RoCEv2 UDP payload: BTH, extension headers, payload, pad, ICRC.
 *
 * <p>Use: {@link #wrap} the datagram, {@link #validate} it, then read {@link #bth()} and the
 * extension headers the opcode carries, and the payload at {@link #payloadOffset()} for
 * {@link #payloadLength()} bytes. One instance is reused for every packet; nothing allocates.
 * The ICRC is not checked here (see {@link Icrc}, {@link RxDecoder}).
 */
public final class RocePacket extends RoceHeaders {
    private int length;

    /**
     * Points the view at a datagram.
     *
     * @param segment memory holding the datagram
     * @param offset  offset of the BTH in {@code segment}
     * @param length  UDP payload length, ICRC included
     * @throws IndexOutOfBoundsException when the range is not inside {@code segment}
     */
    public RocePacket wrap(MemorySegment segment, long offset, int length) {
        Objects.checkFromIndexSize(offset, length, segment.byteSize());
        this.segment = segment;
        this.offset = offset;
        this.length = length;
        this.opcode = length > 0 ? Bytes.u8(segment, offset) : -1;
        bth.wrap(segment, offset);
        return this;
    }

    /** UDP payload length, ICRC included. */
    public int length() {
        return length;
    }

    /**
     * Checks that the datagram is a well-formed RoCE packet jrxe can process.
     *
     * @param maxPayload largest payload accepted (the device MTU, e.g. 4096)
     * @return {@code null} when it is, else why it must be dropped:
     *     {@link DropReason#TRUNCATED} shorter than BTH + ICRC or than the opcode's headers + ICRC;
     *     {@link DropReason#UNKNOWN_OPCODE} opcode not in the {@link OpcodeTable};
     *     {@link DropReason#BAD_VERSION} TVer not 0;
     *     {@link DropReason#OVERSIZED} payload above {@code maxPayload}, or length and pad do not
     *     add up (length not a multiple of 4, pad larger than what follows the headers, bytes after
     *     the headers of an opcode without payload)
     */
    public DropReason validate(int maxPayload) {
        if (length < OpcodeTable.BTH_LENGTH + OpcodeTable.ICRC_LENGTH) {
            return DropReason.TRUNCATED;
        }
        int flags = OpcodeTable.flags(opcode);
        if (flags == 0) {
            return DropReason.UNKNOWN_OPCODE;
        }
        if (bth.tver() != 0) {
            return DropReason.BAD_VERSION;
        }
        int rest = length - OpcodeTable.headerLength(opcode) - OpcodeTable.ICRC_LENGTH; // payload + pad
        if (rest < 0) {
            return DropReason.TRUNCATED;
        }
        if ((rest & 3) != 0 || rest < bth.padCount()) {
            return DropReason.OVERSIZED;
        }
        if ((flags & OpcodeTable.HAS_PAYLOAD) == 0 ? rest != 0 : rest - bth.padCount() > maxPayload) {
            return DropReason.OVERSIZED;
        }
        return null;
    }

    /** Pad bytes after the payload (BTH PadCnt). */
    public int padCount() {
        return bth.padCount();
    }

    /** Payload bytes, without pad and ICRC. Meaningful after a successful {@link #validate}. */
    public int payloadLength() {
        return length - OpcodeTable.headerLength(opcode) - OpcodeTable.ICRC_LENGTH - bth.padCount();
    }

    /** The ICRC as stored in the last four bytes (little-endian), i.e. the CRC-32 value. */
    public int icrc() {
        return segment.get(Bytes.I32_LE, offset + length - OpcodeTable.ICRC_LENGTH);
    }
}
