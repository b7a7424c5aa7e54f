package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over a FLUSH Extended Transport Header (4 bytes, big-endian 32-bit word): bits 3-0
 * placement type, bits 5-4 selectivity level, bits 31-6 reserved.
 */
public final class Feth {
    public static final int LENGTH = OpcodeTable.FETH_LENGTH;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the header starting at {@code offset}. */
    public Feth wrap(MemorySegment segment, long offset) {
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

    /** Placement type: 1 = global visibility, 2 = persistence (bit mask). */
    public static final int PLT_GLOBAL_VISIBILITY = 1;
    public static final int PLT_PERSISTENCE = 2;
    /** Selectivity level: 0 = memory region range, 1 = whole memory region. */
    public static final int SEL_MR_RANGE = 0;
    public static final int SEL_MR = 1;

    /** The whole 32-bit word, reserved bits included. */
    public int bits() {
        return Bytes.i32(segment, offset);
    }

    public Feth bits(int v) {
        Bytes.i32(segment, offset, v);
        return this;
    }

    public int placementType() {
        return bits() & 0xF;
    }

    public Feth placementType(int v) {
        return bits((bits() & ~0xF) | (v & 0xF));
    }

    public int selectivityLevel() {
        return (bits() >>> 4) & 0x3;
    }

    public Feth selectivityLevel(int v) {
        return bits((bits() & ~0x30) | ((v & 0x3) << 4));
    }
}
