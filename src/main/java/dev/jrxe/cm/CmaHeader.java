package dev.jrxe.cm;

import java.nio.ByteBuffer;

/**
 * rdma_cm's private-data header ({@code struct cma_hdr}, cma.c): the first 36 bytes of a REQ's
 * private data. Version 0; the IP version in the high nibble of byte 1; the active side's source
 * port; source and destination IPv4 addresses in the last 4 of 16 bytes each (bytes 16..19 and
 * 32..35). User data follows, 56 bytes at most in a REQ. A passive side takes a REQ only when the
 * header names its device as destination and the packet's sender as source.
 *
 * <p>A record: immutable, safe from any thread.
 *
 * <pre>{@code
 * byte[] priv = new CmaHeader(localPort, device.address(), peerAddr).encode(userData);
 * CmaHeader h = CmaHeader.decode(priv);   // null if not an IPv4 rdma_cm header
 * byte[] user = CmaHeader.userData(priv);
 * }</pre>
 *
 * @param sourcePort the active side's rdma_cm port (bytes 2..3), 0..65535
 * @param sourceAddr the active side's IPv4 address, a big-endian int as {@code Device.address()}
 * @param destAddr the passive side's IPv4 address, a big-endian int
 */
public record CmaHeader(int sourcePort, int sourceAddr, int destAddr) {
    /** Bytes of the header. */
    public static final int SIZE = 36;
    /** What the user may put in a REQ after the header: 92 - 36. */
    public static final int USER_DATA_SIZE = CmMessages.Req.PRIVATE_DATA_SIZE - SIZE;

    /**
     * The 36 header bytes followed by {@code user}: a REQ's private data.
     *
     * @param user the application's private data, or null; bytes beyond {@link #USER_DATA_SIZE}
     *     are dropped
     * @return a new array of {@link CmMessages.Req#PRIVATE_DATA_SIZE} (92) bytes, zero-padded
     */
    public byte[] encode(byte[] user) {
        return encode(user, CmMessages.Req.PRIVATE_DATA_SIZE);
    }

    /**
     * The header and {@code user} in {@code size} bytes of private data (a SIDR_REQ has 216).
     *
     * @param user the application's private data, or null; bytes beyond {@code size - SIZE} are
     *     dropped
     * @param size the private-data field's length in bytes, at least {@link #SIZE}
     * @return a new array of {@code size} bytes, zero-padded
     */
    public byte[] encode(byte[] user, int size) {
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put(0, (byte) 0);
        b.put(1, (byte) 0x40);
        b.putShort(2, (short) sourcePort);
        b.putInt(16, sourceAddr);
        b.putInt(32, destAddr);
        if (user != null) {
            b.put(SIZE, user, 0, Math.min(user.length, size - SIZE));
        }
        return b.array();
    }

    /**
     * The header of a REQ's private data, or null when it is not an IPv4 rdma_cm header (version
     * not 0, IP version not 4): such a REQ is rejected, as the Linux CMA does (reason 28).
     *
     * @param privateData a REQ's or SIDR_REQ's private data (not null)
     * @return the header, or null when it is too short or not IPv4 rdma_cm
     */
    public static CmaHeader decode(byte[] privateData) {
        if (privateData.length < SIZE || privateData[0] != 0 || (privateData[1] & 0xF0) != 0x40) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(privateData);
        return new CmaHeader(b.getShort(2) & 0xFFFF, b.getInt(16), b.getInt(32));
    }

    /**
     * The user data after the header.
     *
     * @param privateData a REQ's or SIDR_REQ's private data, at least {@link #SIZE} bytes
     * @return a copy of the bytes after the first {@link #SIZE}
     */
    public static byte[] userData(byte[] privateData) {
        return java.util.Arrays.copyOfRange(privateData, SIZE, privateData.length);
    }
}
