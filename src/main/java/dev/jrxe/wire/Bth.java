package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over a Base Transport Header (12 bytes, big-endian):
 * <pre>
 *  0: OpCode | 1: SE M PadCnt(2) TVer(4) | 2-3: P_Key
 *  4: FECN BECN Resv6 | 5-7: DestQP
 *  8: AckReq Resv7 | 9-11: PSN
 * </pre>
 * Getters and fluent setters for every field; 24-bit values are masked on write.
 */
public final class Bth {
    public static final int LENGTH = OpcodeTable.BTH_LENGTH;
    /** Default partition key (full member of the default partition), as rxe sends it. */
    public static final int DEFAULT_PKEY = 0xFFFF;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the BTH starting at {@code offset}. */
    public Bth wrap(MemorySegment segment, long offset) {
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

    public int opcode() {
        return Bytes.u8(segment, offset);
    }

    public Bth opcode(int v) {
        Bytes.u8(segment, offset, v);
        return this;
    }

    public boolean solicited() {
        return Bytes.bits(segment, offset + 1, 7, 1) != 0;
    }

    public Bth solicited(boolean v) {
        Bytes.bits(segment, offset + 1, 7, 1, v ? 1 : 0);
        return this;
    }

    public boolean migReq() {
        return Bytes.bits(segment, offset + 1, 6, 1) != 0;
    }

    public Bth migReq(boolean v) {
        Bytes.bits(segment, offset + 1, 6, 1, v ? 1 : 0);
        return this;
    }

    /** Number of pad bytes (0..3) after the payload. */
    public int padCount() {
        return Bytes.bits(segment, offset + 1, 4, 2);
    }

    public Bth padCount(int v) {
        Bytes.bits(segment, offset + 1, 4, 2, v);
        return this;
    }

    /** Transport header version; 0 is the only valid one. */
    public int tver() {
        return Bytes.bits(segment, offset + 1, 0, 4);
    }

    public Bth tver(int v) {
        Bytes.bits(segment, offset + 1, 0, 4, v);
        return this;
    }

    public int pkey() {
        return Bytes.u16(segment, offset + 2);
    }

    public Bth pkey(int v) {
        Bytes.u16(segment, offset + 2, v);
        return this;
    }

    public boolean fecn() {
        return Bytes.bits(segment, offset + 4, 7, 1) != 0;
    }

    public Bth fecn(boolean v) {
        Bytes.bits(segment, offset + 4, 7, 1, v ? 1 : 0);
        return this;
    }

    public boolean becn() {
        return Bytes.bits(segment, offset + 4, 6, 1) != 0;
    }

    public Bth becn(boolean v) {
        Bytes.bits(segment, offset + 4, 6, 1, v ? 1 : 0);
        return this;
    }

    /** The six reserved bits of byte 4 (masked to ones by the ICRC). */
    public int resv6() {
        return Bytes.bits(segment, offset + 4, 0, 6);
    }

    public Bth resv6(int v) {
        Bytes.bits(segment, offset + 4, 0, 6, v);
        return this;
    }

    /** Destination QP number, 24 bits. */
    public int destQp() {
        return Bytes.u24(segment, offset + 5);
    }

    public Bth destQp(int v) {
        Bytes.u24(segment, offset + 5, v & Qpn.MASK);
        return this;
    }

    public boolean ackReq() {
        return Bytes.bits(segment, offset + 8, 7, 1) != 0;
    }

    public Bth ackReq(boolean v) {
        Bytes.bits(segment, offset + 8, 7, 1, v ? 1 : 0);
        return this;
    }

    /** The seven reserved bits of byte 8 (covered by the ICRC). */
    public int resv7() {
        return Bytes.bits(segment, offset + 8, 0, 7);
    }

    public Bth resv7(int v) {
        Bytes.bits(segment, offset + 8, 0, 7, v);
        return this;
    }

    /** Packet sequence number, 24 bits. */
    public int psn() {
        return Bytes.u24(segment, offset + 9);
    }

    public Bth psn(int v) {
        Bytes.u24(segment, offset + 9, v & Psn.MASK);
        return this;
    }
}
