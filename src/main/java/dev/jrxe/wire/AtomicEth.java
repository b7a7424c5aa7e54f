package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over an Atomic Extended Transport Header (28 bytes): virtual address (64), R_Key (32),
 * swap or add data (64), compare data (64).
 */
public final class AtomicEth {
    public static final int LENGTH = OpcodeTable.ATMETH_LENGTH;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the header starting at {@code offset}. */
    public AtomicEth wrap(MemorySegment segment, long offset) {
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

    /** Remote virtual address (8-byte aligned for a valid request). */
    public long va() {
        return Bytes.i64(segment, offset);
    }

    public AtomicEth va(long v) {
        Bytes.i64(segment, offset, v);
        return this;
    }

    /** Remote key (unsigned, as an int). */
    public int rkey() {
        return Bytes.i32(segment, offset + 8);
    }

    public AtomicEth rkey(int v) {
        Bytes.i32(segment, offset + 8, v);
        return this;
    }

    /** Swap value (compare-and-swap) or addend (fetch-and-add). */
    public long swapAdd() {
        return Bytes.i64(segment, offset + 12);
    }

    public AtomicEth swapAdd(long v) {
        Bytes.i64(segment, offset + 12, v);
        return this;
    }

    /** Compare value (compare-and-swap; unused by fetch-and-add). */
    public long compare() {
        return Bytes.i64(segment, offset + 20);
    }

    public AtomicEth compare(long v) {
        Bytes.i64(segment, offset + 20, v);
        return this;
    }
}
