package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over an RDMA Extended Transport Header (16 bytes): virtual address (64), R_Key (32),
 * DMA length (32).
 */
public final class Reth {
    public static final int LENGTH = OpcodeTable.RETH_LENGTH;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the header starting at {@code offset}. */
    public Reth wrap(MemorySegment segment, long offset) {
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

    /** Remote virtual address. */
    public long va() {
        return Bytes.i64(segment, offset);
    }

    public Reth va(long v) {
        Bytes.i64(segment, offset, v);
        return this;
    }

    /** Remote key (unsigned, as an int). */
    public int rkey() {
        return Bytes.i32(segment, offset + 8);
    }

    public Reth rkey(int v) {
        Bytes.i32(segment, offset + 8, v);
        return this;
    }

    /** DMA length in bytes (unsigned, as an int: use {@link Integer#toUnsignedLong} above 2^31-1). */
    public int dmaLength() {
        return Bytes.i32(segment, offset + 12);
    }

    public Reth dmaLength(int v) {
        Bytes.i32(segment, offset + 12, v);
        return this;
    }
}
