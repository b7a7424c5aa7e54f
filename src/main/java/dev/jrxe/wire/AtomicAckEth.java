package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over an Atomic Acknowledge Extended Transport Header (8 bytes): the original remote
 * data the atomic operation found.
 */
public final class AtomicAckEth {
    public static final int LENGTH = OpcodeTable.ATMACK_LENGTH;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the header starting at {@code offset}. */
    public AtomicAckEth wrap(MemorySegment segment, long offset) {
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

    public long originalData() {
        return Bytes.i64(segment, offset);
    }

    public AtomicAckEth originalData(long v) {
        Bytes.i64(segment, offset, v);
        return this;
    }
}
