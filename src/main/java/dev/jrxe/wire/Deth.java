package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over a Datagram Extended Transport Header (8 bytes): Q_Key (32), reserved (8),
 * source QP (24).
 */
public final class Deth {
    public static final int LENGTH = OpcodeTable.DETH_LENGTH;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the header starting at {@code offset}. */
    public Deth wrap(MemorySegment segment, long offset) {
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

    /** Queue key, 32 bits (unsigned, as an int). */
    public int qkey() {
        return Bytes.i32(segment, offset);
    }

    public Deth qkey(int v) {
        Bytes.i32(segment, offset, v);
        return this;
    }

    /** The reserved byte before the source QP. */
    public int reserved() {
        return Bytes.u8(segment, offset + 4);
    }

    public Deth reserved(int v) {
        Bytes.u8(segment, offset + 4, v);
        return this;
    }

    /** Source QP number, 24 bits. */
    public int srcQp() {
        return Bytes.u24(segment, offset + 5);
    }

    public Deth srcQp(int v) {
        Bytes.u24(segment, offset + 5, v & Qpn.MASK);
        return this;
    }
}
