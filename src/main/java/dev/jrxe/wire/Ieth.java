package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over an Invalidate Extended Transport Header (4 bytes): the R_Key the responder
 * invalidates.
 */
public final class Ieth {
    public static final int LENGTH = OpcodeTable.IETH_LENGTH;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the header starting at {@code offset}. */
    public Ieth wrap(MemorySegment segment, long offset) {
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

    /** The R_Key to invalidate (unsigned, as an int). */
    public int rkey() {
        return Bytes.i32(segment, offset);
    }

    public Ieth rkey(int v) {
        Bytes.i32(segment, offset, v);
        return this;
    }
}
