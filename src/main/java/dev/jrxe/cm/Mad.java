package dev.jrxe.cm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One 256-byte management datagram (IBTA vol. 1 13.4, Linux {@code struct ib_mad}): the 24-byte
 * common header and the 232-byte data area where a CM message lives; what the CM sends and
 * receives on QP1 (the GSI QP). All multi-byte fields are big-endian. Accessors for the data area
 * take offsets from the start of the CM message ({@link #DATA} bytes into the MAD), as the
 * reference tables give them (see {@link CmMessages}); 24-bit fields are the top three bytes of
 * the word at their offset. A reusable view over a byte array: the CM's messages are few, so
 * clarity wins over flyweights.
 *
 * <p>Not thread safe: a mutable view over a shared array, written by one thread at a time (the
 * CM builds each MAD holding its device's CM agent and leaves it unchanged once sent).
 *
 * <pre>{@code
 * Mad m = new Mad().cm(Mad.ATTR_RTU, tid);
 * m.u32(CmMessages.Rtu.LOCAL_COMM_ID, localCommId).u32(CmMessages.Rtu.REMOTE_COMM_ID, remoteCommId);
 * }</pre>
 */
public final class Mad {
    /** Bytes of a MAD (IB_MGMT_MAD_SIZE). */
    public static final int SIZE = 256;
    /** Where the class data starts (IB_MGMT_MAD_HDR). */
    public static final int DATA = 24;
    /** Base Version of an IB MAD (IB_MGMT_BASE_VERSION); 0x80 would be OPA. */
    public static final int BASE_VERSION = 1;
    /** Management Class of the Communication Manager (IB_MGMT_CLASS_CM). */
    public static final int CLASS_CM = 0x07;
    /** IB_CM_CLASS_VERSION: Linux's CM agent takes class version 2 only. */
    public static final int CM_CLASS_VERSION = 2;
    /** Method Send (IB_MGMT_METHOD_SEND): the method of every CM message. */
    public static final int METHOD_SEND = 0x03;

    /** Attribute ID ClassPortInfo (CM_CLASS_PORT_INFO_ATTR_ID). */
    public static final int ATTR_CLASS_PORT_INFO = 0x0001;
    /** Attribute ID of a REQ, connection request (CM_REQ_ATTR_ID). */
    public static final int ATTR_REQ = 0x0010;
    /** Attribute ID of an MRA, message receipt acknowledgement (CM_MRA_ATTR_ID). */
    public static final int ATTR_MRA = 0x0011;
    /** Attribute ID of a REJ, reject (CM_REJ_ATTR_ID). */
    public static final int ATTR_REJ = 0x0012;
    /** Attribute ID of a REP, connection reply (CM_REP_ATTR_ID). */
    public static final int ATTR_REP = 0x0013;
    /** Attribute ID of an RTU, ready to use (CM_RTU_ATTR_ID). */
    public static final int ATTR_RTU = 0x0014;
    /** Attribute ID of a DREQ, disconnection request (CM_DREQ_ATTR_ID). */
    public static final int ATTR_DREQ = 0x0015;
    /** Attribute ID of a DREP, disconnection reply (CM_DREP_ATTR_ID). */
    public static final int ATTR_DREP = 0x0016;
    /** Attribute ID of a SIDR_REQ, service ID resolution request for UD (CM_SIDR_REQ_ATTR_ID). */
    public static final int ATTR_SIDR_REQ = 0x0017;
    /** Attribute ID of a SIDR_REP, service ID resolution reply (CM_SIDR_REP_ATTR_ID). */
    public static final int ATTR_SIDR_REP = 0x0018;
    /** Attribute ID of a LAP, load alternate path (CM_LAP_ATTR_ID); not used on RoCE. */
    public static final int ATTR_LAP = 0x0019;
    /** Attribute ID of an APR, alternate path response (CM_APR_ATTR_ID); not used on RoCE. */
    public static final int ATTR_APR = 0x001A;

    private final byte[] bytes;
    private final ByteBuffer buf;

    /** A MAD over a new zeroed {@link #SIZE}-byte array. */
    public Mad() {
        this(new byte[SIZE]);
    }

    /**
     * A view over {@code bytes} (at least {@link #SIZE} long); the array is used, not copied.
     *
     * @param bytes the MAD's bytes, from offset 0
     * @throws IllegalArgumentException when {@code bytes} is shorter than {@link #SIZE}
     */
    public Mad(byte[] bytes) {
        if (bytes.length < SIZE) {
            throw new IllegalArgumentException("a MAD has " + SIZE + " bytes");
        }
        this.bytes = bytes;
        this.buf = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
    }

    /** {@return the backing array itself (not a copy): what goes on the wire}. */
    public byte[] bytes() {
        return bytes;
    }

    /**
     * Zeroes the MAD and writes a CM header: base version 1, class CM, version 2, method Send,
     * status, class-specific and attribute modifier 0.
     *
     * @param attributeId the CM message, an {@code ATTR_} constant such as {@link #ATTR_REQ}
     * @param transactionId the TransactionID (a new request's own; a reply echoes its request's)
     * @return this MAD
     */
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

    /** {@return the BaseVersion, header byte 0 ({@link #BASE_VERSION} for IB)}. */
    public int baseVersion() {
        return bytes[0] & 0xFF;
    }

    /** {@return the MgmtClass, header byte 1 ({@link #CLASS_CM} for the CM)}. */
    public int mgmtClass() {
        return bytes[1] & 0xFF;
    }

    /** {@return the ClassVersion, header byte 2 ({@link #CM_CLASS_VERSION} for the CM)}. */
    public int classVersion() {
        return bytes[2] & 0xFF;
    }

    /** {@return the Method, header byte 3, with the response bit 0x80 ({@link #METHOD_SEND} for CM messages)}. */
    public int method() {
        return bytes[3] & 0xFF;
    }

    /** {@return the 16-bit Status, header bytes 4..5 (0 in CM messages)}. */
    public int status() {
        return buf.getShort(4) & 0xFFFF;
    }

    /** {@return the 64-bit TransactionID, header bytes 8..15}. */
    public long transactionId() {
        return buf.getLong(8);
    }

    /** {@return the 16-bit AttributeID, header bytes 16..17: which CM message (an {@code ATTR_} constant)}. */
    public int attributeId() {
        return buf.getShort(16) & 0xFFFF;
    }

    /** {@return the 32-bit AttributeModifier, header bytes 20..23 (0 in CM messages)}. */
    public int attributeModifier() {
        return buf.getInt(20);
    }

    // ---------------------------------------------------------------- the data area (message offsets)

    /**
     * {@return the unsigned byte at {@code off} of the CM message}
     *
     * @param off offset from the start of the CM message (MAD offset {@code DATA + off})
     */
    public int u8(int off) {
        return bytes[DATA + off] & 0xFF;
    }

    /**
     * Writes the byte at {@code off} of the CM message.
     *
     * @param off offset from the start of the CM message
     * @param v the value; only its low 8 bits are stored
     * @return this MAD
     */
    public Mad u8(int off, int v) {
        bytes[DATA + off] = (byte) v;
        return this;
    }

    /**
     * {@return the unsigned big-endian 16-bit field at {@code off} of the CM message}
     *
     * @param off offset from the start of the CM message
     */
    public int u16(int off) {
        return buf.getShort(DATA + off) & 0xFFFF;
    }

    /**
     * Writes a big-endian 16-bit field at {@code off} of the CM message.
     *
     * @param off offset from the start of the CM message
     * @param v the value; only its low 16 bits are stored
     * @return this MAD
     */
    public Mad u16(int off, int v) {
        buf.putShort(DATA + off, (short) v);
        return this;
    }

    /**
     * {@return the big-endian 32-bit field at {@code off} of the CM message (a comm ID, a Q_Key)}
     *
     * @param off offset from the start of the CM message
     */
    public int u32(int off) {
        return buf.getInt(DATA + off);
    }

    /**
     * Writes a big-endian 32-bit field at {@code off} of the CM message.
     *
     * @param off offset from the start of the CM message
     * @param v the value
     * @return this MAD
     */
    public Mad u32(int off, int v) {
        buf.putInt(DATA + off, v);
        return this;
    }

    /**
     * {@return the big-endian 64-bit field at {@code off} of the CM message (a service ID, a CA GUID)}
     *
     * @param off offset from the start of the CM message
     */
    public long u64(int off) {
        return buf.getLong(DATA + off);
    }

    /**
     * Writes a big-endian 64-bit field at {@code off} of the CM message.
     *
     * @param off offset from the start of the CM message
     * @param v the value
     * @return this MAD
     */
    public Mad u64(int off, long v) {
        buf.putLong(DATA + off, v);
        return this;
    }

    /**
     * A 24-bit field (a QPN, a PSN): the top three bytes of the word at {@code off}.
     *
     * @param off offset of the 32-bit word from the start of the CM message
     * @return the field, 0..0xFFFFFF
     */
    public int u24(int off) {
        return buf.getInt(DATA + off) >>> 8;
    }

    /**
     * Writes a 24-bit field, leaving the low byte of its word as it is.
     *
     * @param off offset of the 32-bit word from the start of the CM message
     * @param v the value; only its low 24 bits are stored
     * @return this MAD
     */
    public Mad u24(int off, int v) {
        int low = bytes[DATA + off + 3] & 0xFF;
        buf.putInt(DATA + off, (v & 0xFFFFFF) << 8 | low);
        return this;
    }

    /**
     * Bits {@code shift..shift+width-1} of the byte at {@code off} (bit 0 = least significant).
     *
     * @param off offset of the byte from the start of the CM message
     * @param shift the field's lowest bit, 0..7
     * @param width the field's width in bits, 1..8
     * @return the field, right-aligned
     */
    public int bits(int off, int shift, int width) {
        return (u8(off) >>> shift) & ((1 << width) - 1);
    }

    /**
     * Writes bits {@code shift..shift+width-1} of the byte at {@code off}, keeping its other bits.
     *
     * @param off offset of the byte from the start of the CM message
     * @param shift the field's lowest bit, 0..7
     * @param width the field's width in bits, 1..8
     * @param v the value; bits beyond {@code width} are dropped
     * @return this MAD
     */
    public Mad bits(int off, int shift, int width, int v) {
        int mask = ((1 << width) - 1) << shift;
        return u8(off, (u8(off) & ~mask) | ((v << shift) & mask));
    }

    /**
     * {@code length} bytes of the data area from {@code off}, copied.
     *
     * @param off offset from the start of the CM message
     * @param length bytes to copy (a private-data field's size, say)
     * @return a new array
     */
    public byte[] data(int off, int length) {
        return java.util.Arrays.copyOfRange(bytes, DATA + off, DATA + off + length);
    }

    /**
     * Copies {@code src} (at most {@code max} bytes; the rest of the field stays zero) to {@code off}.
     *
     * @param off offset of the field from the start of the CM message
     * @param src the bytes, or null for none
     * @param max the field's size: longer {@code src} is cut to it
     * @return this MAD
     */
    public Mad data(int off, byte[] src, int max) {
        if (src != null) {
            System.arraycopy(src, 0, bytes, DATA + off, Math.min(src.length, max));
        }
        return this;
    }

    /**
     * A 16-byte GID field (on RoCEv2 over IPv4: {@code ::ffff:a.b.c.d}).
     *
     * @param off offset from the start of the CM message
     * @return a new 16-byte array
     */
    public byte[] gid(int off) {
        return data(off, 16);
    }

    /**
     * Writes a 16-byte GID field.
     *
     * @param off offset from the start of the CM message
     * @param gid the GID's raw bytes (at most 16 taken)
     * @return this MAD
     */
    public Mad gid(int off, byte[] gid) {
        return data(off, gid, 16);
    }
}
