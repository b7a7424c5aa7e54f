package dev.jrxe.cm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One 256-byte management datagram (IBTA 13.4): the 24-byte common header and the 232-byte data
 * area where a CM message lives. All multi-byte fields are big-endian. Accessors for the data area
 * take offsets from the start of the CM message ({@link #DATA} bytes into the MAD), as the
 * reference tables give them; 24-bit fields are the top three bytes of the word at their offset.
 * A reusable view over a byte array: the CM's messages are few, so clarity wins over flyweights.
 */
public final class Mad {
    /** Bytes of a MAD (IB_MGMT_MAD_SIZE). */
    public static final int SIZE = 256;
    /** Where the class data starts (IB_MGMT_MAD_HDR). */
    public static final int DATA = 24;
    public static final int BASE_VERSION = 1;
    public static final int CLASS_CM = 0x07;
    /** IB_CM_CLASS_VERSION: Linux's CM agent takes class version 2 only. */
    public static final int CM_CLASS_VERSION = 2;
    public static final int METHOD_SEND = 0x03;

    public static final int ATTR_CLASS_PORT_INFO = 0x0001;
    public static final int ATTR_REQ = 0x0010;
    public static final int ATTR_MRA = 0x0011;
    public static final int ATTR_REJ = 0x0012;
    public static final int ATTR_REP = 0x0013;
    public static final int ATTR_RTU = 0x0014;
    public static final int ATTR_DREQ = 0x0015;
    public static final int ATTR_DREP = 0x0016;
    public static final int ATTR_SIDR_REQ = 0x0017;
    public static final int ATTR_SIDR_REP = 0x0018;
    public static final int ATTR_LAP = 0x0019;
    public static final int ATTR_APR = 0x001A;

    private final byte[] bytes;
    private final ByteBuffer buf;

    public Mad() {
        this(new byte[SIZE]);
    }

    /** A view over {@code bytes} (at least {@link #SIZE} long). */
    public Mad(byte[] bytes) {
        if (bytes.length < SIZE) {
            throw new IllegalArgumentException("a MAD has " + SIZE + " bytes");
        }
        this.bytes = bytes;
        this.buf = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    }

    public byte[] bytes() {
        return bytes;
    }

    /** Zeroes the MAD and writes a CM header: base version 1, class CM, version 2, method Send. */
    public Mad cm(int attributeId, long transactionId) {
        java.util.Arrays.fill(bytes, 0, SIZE, (byte) 0);
        bytes[0] = BASE_VERSION;
        bytes[1] = CLASS_CM;
        bytes[2] = CM_CLASS_VERSION;
        bytes[3] = METHOD_SEND;
        buf.putLong(8, transactionId);
        buf.putShort(16, (short) attributeId);
        return this;
    }

    public int baseVersion() {
        return bytes[0] & 0xFF;
    }

    public int mgmtClass() {
        return bytes[1] & 0xFF;
    }

    public int classVersion() {
        return bytes[2] & 0xFF;
    }

    public int method() {
        return bytes[3] & 0xFF;
    }

    public int status() {
        return buf.getShort(4) & 0xFFFF;
    }

    public long transactionId() {
        return buf.getLong(8);
    }

    public int attributeId() {
        return buf.getShort(16) & 0xFFFF;
    }

    public int attributeModifier() {
        return buf.getInt(20);
    }

    // ---------------------------------------------------------------- the data area (message offsets)

    public int u8(int off) {
        return bytes[DATA + off] & 0xFF;
    }

    public Mad u8(int off, int v) {
        bytes[DATA + off] = (byte) v;
        return this;
    }

    public int u16(int off) {
        return buf.getShort(DATA + off) & 0xFFFF;
    }

    public Mad u16(int off, int v) {
        buf.putShort(DATA + off, (short) v);
        return this;
    }

    public int u32(int off) {
        return buf.getInt(DATA + off);
    }

    public Mad u32(int off, int v) {
        buf.putInt(DATA + off, v);
        return this;
    }

    public long u64(int off) {
        return buf.getLong(DATA + off);
    }

    public Mad u64(int off, long v) {
        buf.putLong(DATA + off, v);
        return this;
    }

    /** A 24-bit field: the top three bytes of the word at {@code off}. */
    public int u24(int off) {
        return buf.getInt(DATA + off) >>> 8;
    }

    /** Writes a 24-bit field, leaving the low byte of its word as it is. */
    public Mad u24(int off, int v) {
        int low = bytes[DATA + off + 3] & 0xFF;
        buf.putInt(DATA + off, (v & 0xFFFFFF) << 8 | low);
        return this;
    }

    /** Bits {@code shift..shift+width-1} of the byte at {@code off} (bit 0 = least significant). */
    public int bits(int off, int shift, int width) {
        return (u8(off) >>> shift) & ((1 << width) - 1);
    }

    public Mad bits(int off, int shift, int width, int v) {
        int mask = ((1 << width) - 1) << shift;
        return u8(off, (u8(off) & ~mask) | ((v << shift) & mask));
    }

    /** {@code length} bytes of the data area from {@code off}. */
    public byte[] data(int off, int length) {
        return java.util.Arrays.copyOfRange(bytes, DATA + off, DATA + off + length);
    }

    /** Copies {@code src} (at most {@code max} bytes; the rest of the field stays zero) to {@code off}. */
    public Mad data(int off, byte[] src, int max) {
        if (src != null) {
            System.arraycopy(src, 0, bytes, DATA + off, Math.min(src.length, max));
        }
        return this;
    }

    /** A 16-byte GID field. */
    public byte[] gid(int off) {
        return data(off, 16);
    }

    public Mad gid(int off, byte[] gid) {
        return data(off, gid, 16);
    }
}
