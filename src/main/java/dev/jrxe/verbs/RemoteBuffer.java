package dev.jrxe.verbs;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A buffer of a peer's memory that RDMA may target: its address (in the region's address space),
 * length and rkey, what one side hands the other before READs, WRITEs and atomics. Encoded in
 * {@link #BYTES} bytes, network order (address, length, rkey), for any out-of-band exchange.
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
     * {@code [offset, offset + length)} of this buffer.
     *
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

    /** Writes the {@link #BYTES}-byte encoding at the buffer's position (network order). */
    public ByteBuffer encode(ByteBuffer dst) {
        ByteBuffer b = dst.duplicate().order(java.nio.ByteOrder.BIG_ENDIAN);
        b.putLong(address).putLong(length).putInt(rkey);
        dst.position(b.position());
        return dst;
    }

    /** The encoding as a new array. */
    public byte[] toBytes() {
        byte[] a = new byte[BYTES];
        encode(ByteBuffer.wrap(a));
        return a;
    }

    /** Reads an encoding from the buffer's position. */
    public static RemoteBuffer decode(ByteBuffer src) {
        ByteBuffer b = src.duplicate().order(java.nio.ByteOrder.BIG_ENDIAN);
        RemoteBuffer r = new RemoteBuffer(b.getLong(), b.getLong(), b.getInt());
        src.position(b.position());
        return r;
    }

    public static RemoteBuffer decode(byte[] bytes) {
        return decode(ByteBuffer.wrap(bytes));
    }
}
