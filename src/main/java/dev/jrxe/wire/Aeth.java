package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over an ACK Extended Transport Header (4 bytes): syndrome (8), MSN (24); plus the
 * static helpers that build and classify syndromes.
 *
 * <p>Syndrome layout (IBTA 9.7.5.1): bit 7 reserved (0), bits 6-5 type, bits 4-0 value.
 * Type 00 = ACK (value = credit count, {@link #CREDITS_UNLIMITED} when the responder does not
 * track credits, as rxe always sends), 01 = RNR NAK (value = RNR timer code), 11 = NAK (value =
 * error code), 10 = reserved.
 */
public final class Aeth {
    public static final int LENGTH = OpcodeTable.AETH_LENGTH;

    /** Credit field value meaning "no end-to-end credits": syndrome 0x1F. */
    public static final int CREDITS_UNLIMITED = 0x1F;
    /** The positive ACK rxe sends: type ACK, credits unlimited. */
    public static final int ACK = CREDITS_UNLIMITED;
    public static final int TYPE_MASK = 0xE0;
    public static final int TYPE_ACK = 0x00;
    public static final int TYPE_RNR_NAK = 0x20;
    public static final int TYPE_NAK = 0x60;
    public static final int VALUE_MASK = 0x1F;

    public static final int NAK_PSN_SEQ_ERR = 0x60;
    public static final int NAK_INVALID_REQ = 0x61;
    public static final int NAK_REMOTE_ACCESS = 0x62;
    public static final int NAK_REMOTE_OP = 0x63;
    public static final int NAK_INVALID_RD_REQ = 0x64;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the AETH starting at {@code offset}. */
    public Aeth wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    public MemorySegment segment() {
        return segment;
    }

    public long offset() {
        return offset;
    }

    public int syndrome() {
        return Bytes.u8(segment, offset);
    }

    public Aeth syndrome(int v) {
        Bytes.u8(segment, offset, v);
        return this;
    }

    /** Message sequence number, 24 bits. */
    public int msn() {
        return Bytes.u24(segment, offset + 1);
    }

    public Aeth msn(int v) {
        Bytes.u24(segment, offset + 1, v & 0xFFFFFF);
        return this;
    }

    // ---------------------------------------------------------------- syndrome helpers

    /** ACK syndrome carrying a credit count (0..31; 31 = unlimited). */
    public static int ack(int credits) {
        return TYPE_ACK | (credits & VALUE_MASK);
    }

    /** RNR NAK syndrome carrying an RNR timer code (0..31, IBTA table 45). */
    public static int rnrNak(int timerCode) {
        return TYPE_RNR_NAK | (timerCode & VALUE_MASK);
    }

    /** NAK syndrome for an error code (0..4, or a full {@code NAK_*} constant). */
    public static int nak(int code) {
        return TYPE_NAK | (code & VALUE_MASK);
    }

    public static boolean isAck(int syndrome) {
        return (syndrome & TYPE_MASK) == TYPE_ACK;
    }

    public static boolean isRnrNak(int syndrome) {
        return (syndrome & TYPE_MASK) == TYPE_RNR_NAK;
    }

    public static boolean isNak(int syndrome) {
        return (syndrome & TYPE_MASK) == TYPE_NAK;
    }

    /** The low five bits: credits (ACK), timer code (RNR NAK) or error code (NAK). */
    public static int value(int syndrome) {
        return syndrome & VALUE_MASK;
    }

    /** What a syndrome says, in IBTA's words ("RNR NAK", "NAK remote access error", ...). */
    public static String describe(int syndrome) {
        if (isAck(syndrome)) {
            return "ACK";
        }
        if (isRnrNak(syndrome)) {
            return "RNR NAK";
        }
        if (!isNak(syndrome)) {
            return "reserved 0x" + Integer.toHexString(syndrome & 0xFF);
        }
        return switch (syndrome & 0xFF) {
            case NAK_PSN_SEQ_ERR -> "NAK PSN sequence error";
            case NAK_INVALID_REQ -> "NAK invalid request";
            case NAK_REMOTE_ACCESS -> "NAK remote access error";
            case NAK_REMOTE_OP -> "NAK remote operational error";
            case NAK_INVALID_RD_REQ -> "NAK invalid RD request";
            default -> "NAK reserved code " + value(syndrome);
        };
    }
}
