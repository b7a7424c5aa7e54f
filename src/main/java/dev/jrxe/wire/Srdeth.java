package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over jrxe SRD's extension header (16 bytes, docs/SRD.md §2): epoch (32), flags (8),
 * base PSN (24), timestamp (32), length (32).
 */
public final class Srdeth {
    public static final int LENGTH = OpcodeTable.SRDETH_LENGTH;
    /** Flags bit: the packet is a retransmission. */
    public static final int FLAG_RETX = 1;
    /** The protocol version this header carries in its flags' high nibble. */
    public static final int VERSION = 1;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the header starting at {@code offset}. */
    public Srdeth wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** The requester context's epoch (echoed by responses). */
    public int epoch() {
        return Bytes.i32(segment, offset);
    }

    public Srdeth epoch(int v) {
        Bytes.i32(segment, offset, v);
        return this;
    }

    /** The flags byte: {@link #FLAG_RETX} and the version in the high nibble. */
    public int flags() {
        return Bytes.u8(segment, offset + 4);
    }

    public Srdeth flags(int v) {
        Bytes.u8(segment, offset + 4, v);
        return this;
    }

    /** The protocol version (flags' high nibble). */
    public int version() {
        return flags() >>> 4;
    }

    /** Data: the sender's oldest unresolved PSN; ACK: the receiver's window base (24 bits). */
    public int base() {
        return Bytes.u24(segment, offset + 5);
    }

    public Srdeth base(int v) {
        Bytes.u24(segment, offset + 5, v & Psn.MASK);
        return this;
    }

    /** Data: the sender's clock in microseconds; responses: its echo. */
    public int timestamp() {
        return Bytes.i32(segment, offset + 8);
    }

    public Srdeth timestamp(int v) {
        Bytes.i32(segment, offset + 8, v);
        return this;
    }

    /** Message length (data), window size (ACK), bytes carried (READ response). */
    public int length() {
        return Bytes.i32(segment, offset + 12);
    }

    public Srdeth length(int v) {
        Bytes.i32(segment, offset + 12, v);
        return this;
    }
}
