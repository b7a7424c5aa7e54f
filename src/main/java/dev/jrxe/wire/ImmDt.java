package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over Immediate Data (4 bytes), read as a big-endian int: the value an application
 * sees as {@code imm_data} after {@code ntohl}.
 */
public final class ImmDt {
    public static final int LENGTH = OpcodeTable.IMMDT_LENGTH;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the header starting at {@code offset}. */
    public ImmDt wrap(MemorySegment segment, long offset) {
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

    public int immediate() {
        return Bytes.i32(segment, offset);
    }

    public ImmDt immediate(int v) {
        Bytes.i32(segment, offset, v);
        return this;
    }
}
