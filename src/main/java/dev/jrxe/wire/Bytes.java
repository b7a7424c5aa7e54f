package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian, unaligned field access shared by the header flyweights. */
final class Bytes {
    private Bytes() {
    }

    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt I32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    static int u8(MemorySegment s, long off) {
        return s.get(U8, off) & 0xFF;
    }

    static void u8(MemorySegment s, long off, int v) {
        s.set(U8, off, (byte) v);
    }

    static int u16(MemorySegment s, long off) {
        return s.get(U16, off) & 0xFFFF;
    }

    static void u16(MemorySegment s, long off, int v) {
        s.set(U16, off, (short) v);
    }

    static int u24(MemorySegment s, long off) {
        return (u8(s, off) << 16) | u16(s, off + 1);
    }

    static void u24(MemorySegment s, long off, int v) {
        u8(s, off, v >>> 16);
        u16(s, off + 1, v);
    }

    static int i32(MemorySegment s, long off) {
        return s.get(I32, off);
    }

    static void i32(MemorySegment s, long off, int v) {
        s.set(I32, off, v);
    }

    static long i64(MemorySegment s, long off) {
        return s.get(I64, off);
    }

    static void i64(MemorySegment s, long off, long v) {
        s.set(I64, off, v);
    }

    /** Reads {@code bits} bits at {@code shift} of the byte at {@code off}. */
    static int bits(MemorySegment s, long off, int shift, int bits) {
        return (u8(s, off) >>> shift) & ((1 << bits) - 1);
    }

    /** Replaces {@code bits} bits at {@code shift} of the byte at {@code off}, keeping the others. */
    static void bits(MemorySegment s, long off, int shift, int bits, int v) {
        int mask = ((1 << bits) - 1) << shift;
        u8(s, off, (u8(s, off) & ~mask) | ((v << shift) & mask));
    }

    /** Zeroes {@code length} bytes at {@code off} without creating a slice. */
    static void zero(MemorySegment s, long off, int length) {
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            s.set(I64, off + i, 0L);
        }
        for (; i < length; i++) {
            s.set(U8, off + i, (byte) 0);
        }
    }
}
