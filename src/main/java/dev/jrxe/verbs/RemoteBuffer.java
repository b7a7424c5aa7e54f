package dev.jrxe.verbs;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A buffer of a peer's memory that RDMA may target: its address (in the region's address space),
 * length and rkey, what one side hands the other before READs, WRITEs and atomics (the
 * {@code remote_addr}/{@code rkey} pair of {@code struct ibv_send_wr}, plus a length). Encoded in
 * {@link #BYTES} bytes, network order (address, length, rkey), for any out-of-band exchange.
 *
 * <p>Immutable (a record): safe to share between threads.
 *
 * <pre>{@code
 * RemoteBuffer mine = mr.remote(0, 4096);            // send mine.encode(...) to the peer
 * RemoteBuffer theirs = RemoteBuffer.decode(bytes);  // what the peer sent
 * wr.reset().sge(mr, 0, 64).remote(theirs.at(128, 64)).opcode = WrOpcode.RDMA_WRITE;
 * }</pre>
 *
 * @param address the first byte's address, as the peer's region names it (its iova)
 * @param length  bytes; -1 for a whole implicit ODP region
 * @param rkey    the remote key that grants access
 */
public record RemoteBuffer(long address, long length, int rkey) {
    /** Size of the encoding: 8-byte address, 8-byte length, 4-byte rkey. */
    public static final int BYTES = 20;

    /**
     * {@code [offset, offset + length)} of this buffer, with the same rkey. For a whole implicit
     * ODP region (length -1) any non-negative range is inside, and the address is {@code offset}.
     *
     * @param offset the first byte, from this buffer's start
     * @param length bytes
     * @return the part of this buffer
     * @throws IndexOutOfBoundsException when the range is not inside it
     */
    public RemoteBuffer at(long offset, long length) {
        if (this.length == -1) {
            if (offset < 0 || length < 0) {
                throw new IndexOutOfBoundsException("offset " + offset + ", length " + length);
            }
            return new RemoteBuffer(offset, length, rkey);
        }
        Objects.checkFromIndexSize(offset, length, this.length);
        return new RemoteBuffer(address + offset, length, rkey);
    }

    /**
     * Writes the {@link #BYTES}-byte encoding at the buffer's position (network order, whatever
     * {@code dst}'s byte order) and advances the position past it.
     *
     * @param dst where to write; needs {@link #BYTES} bytes remaining
     * @return {@code dst}
     * @throws java.nio.BufferOverflowException when fewer than {@link #BYTES} bytes remain
     */
    public ByteBuffer encode(ByteBuffer dst) {
        ByteBuffer b = dst.duplicate().order(java.nio.ByteOrder.BIG_ENDIAN);
        b.putLong(address).putLong(length).putInt(rkey);
        dst.position(b.position());
        return dst;
    }

    /** {@return the {@link #BYTES}-byte encoding as a new array} */
    public byte[] toBytes() {
        byte[] a = new byte[BYTES];
        encode(ByteBuffer.wrap(a));
        return a;
    }

    /**
     * Reads an encoding from the buffer's position (network order, whatever {@code src}'s byte
     * order) and advances the position past it.
     *
     * @param src holds the encoding at its position
     * @return the buffer it names
     * @throws java.nio.BufferUnderflowException when fewer than {@link #BYTES} bytes remain
     */
    public static RemoteBuffer decode(ByteBuffer src) {
        ByteBuffer b = src.duplicate().order(java.nio.ByteOrder.BIG_ENDIAN);
        RemoteBuffer r = new RemoteBuffer(b.getLong(), b.getLong(), b.getInt());
        src.position(b.position());
        return r;
    }

    /**
     * Reads an encoding from the start of {@code bytes}.
     *
     * @param bytes at least {@link #BYTES} bytes, the encoding first
     * @return the buffer it names
     * @throws java.nio.BufferUnderflowException when {@code bytes} is shorter than {@link #BYTES}
     */
    public static RemoteBuffer decode(byte[] bytes) {
        return decode(ByteBuffer.wrap(bytes));
    }
}
