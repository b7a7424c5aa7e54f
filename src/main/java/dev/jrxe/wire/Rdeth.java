package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over a Reliable Datagram Extended Transport Header (4 bytes): reserved byte, 24-bit
 * EE context. RD is not implemented by jrxe; the flyweight exists for completeness.
 */
public final class Rdeth {
    public static final int LENGTH = OpcodeTable.RDETH_LENGTH;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the header starting at {@code offset}. */
    public Rdeth wrap(MemorySegment segment, long offset) {
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

    /** The reserved first byte. */
    public int reserved() {
        return Bytes.u8(segment, offset);
    }

    public Rdeth reserved(int v) {
        Bytes.u8(segment, offset, v);
        return this;
    }

    /** End-to-end context, 24 bits. */
    public int eeContext() {
        return Bytes.u24(segment, offset + 1);
    }

    public Rdeth eeContext(int v) {
        Bytes.u24(segment, offset + 1, v & 0xFFFFFF);
        return this;
    }
}
