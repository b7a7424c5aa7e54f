package dev.jrxe.verbs;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A 128-bit GID ({@code union ibv_gid}), in network byte order. RoCEv2 over IPv4 uses IPv4-mapped
 * IPv6 addresses (::ffff:a.b.c.d); a jrxe device's only GID is that of its IPv4 address, at
 * {@link Device#IPV4_GID_INDEX}. Address vectors ({@link AhAttr#dgid}) need such a GID.
 *
 * <p>Immutable (the bytes are copied in and out); safe to share between threads.
 *
 * <pre>{@code
 * Gid g = dev.queryGid(1, Device.IPV4_GID_INDEX);  // 10.0.0.1: 0000:0000:0000:0000:0000:ffff:0a00:0001
 * AhAttr ah = new AhAttr(Gid.ofIpv4(peerAddr), Device.IPV4_GID_INDEX);
 * }</pre>
 */
public final class Gid {
    private final byte[] raw;

    /**
     * A GID of the given bytes, copied.
     *
     * @param raw the 16 bytes, most significant first
     * @throws VerbsException EINVAL unless there are 16 bytes
     */
    public Gid(byte[] raw) {
        if (raw.length != 16) {
            throw VerbsException.einval("a GID has 16 bytes");
        }
        this.raw = raw.clone();
    }

    /**
     * {@return the IPv4-mapped GID (::ffff:a.b.c.d) of an IPv4 address}
     *
     * @param addr the IPv4 address as a big-endian int (a.b.c.d is {@code a << 24 | b << 16 | c << 8 | d})
     */
    public static Gid ofIpv4(int addr) {
        byte[] b = new byte[16];
        b[10] = (byte) 0xFF;
        b[11] = (byte) 0xFF;
        b[12] = (byte) (addr >>> 24);
        b[13] = (byte) (addr >>> 16);
        b[14] = (byte) (addr >>> 8);
        b[15] = (byte) addr;
        return new Gid(b);
    }

    /**
     * The link-local GID rxe puts at index 0 (fe80::/64 + EUI-64 of the netdev MAC). jrxe has no
     * MAC, so it uses the locally administered 02:00:a:b:c:d built from the IPv4 address. Its low
     * 64 bits are the device's node GUID. Not in the device's GID table: jrxe sends over IPv4 only.
     *
     * @param addr the IPv4 address as a big-endian int
     * @return {@code fe80::aaff:febb:ccdd} for the address whose octets are aa.bb.cc.dd in hex
     */
    public static Gid linkLocal(int addr) {
        byte[] mac = {0x02, 0x00, (byte) (addr >>> 24), (byte) (addr >>> 16), (byte) (addr >>> 8), (byte) addr};
        byte[] b = new byte[16];
        b[0] = (byte) 0xFE;
        b[1] = (byte) 0x80;
        b[8] = (byte) (mac[0] ^ 0x02);
        b[9] = mac[1];
        b[10] = mac[2];
        b[11] = (byte) 0xFF;
        b[12] = (byte) 0xFE;
        b[13] = mac[3];
        b[14] = mac[4];
        b[15] = mac[5];
        return new Gid(b);
    }

    /** {@return a copy of the 16 bytes, most significant first} */
    public byte[] raw() {
        return raw.clone();
    }

    /** {@return whether this is an IPv4-mapped GID (::ffff:a.b.c.d)} */
    public boolean isIpv4() {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return raw[10] == (byte) 0xFF && raw[11] == (byte) 0xFF;
    }

    /** {@return the IPv4 address of an IPv4-mapped GID as a big-endian int: its last 4 bytes, whatever the GID} */
    public int ipv4() {
        return (raw[12] & 0xFF) << 24 | (raw[13] & 0xFF) << 16 | (raw[14] & 0xFF) << 8 | (raw[15] & 0xFF);
    }

    /** {@return the interface id, the low 64 bits; zero means "no GRH" to the pingpong tools} */
    public long interfaceId() {
        long v = 0;
        for (int i = 8; i < 16; i++) {
            v = v << 8 | (raw[i] & 0xFF);
        }
        return v;
    }

    /** {@return 32 lower-case hex digits in byte order, the form the pingpong tools exchange} */
    public String toWireString() {
        return HexFormat.of().formatHex(raw);
    }

    /**
     * The GID {@link #toWireString()} wrote.
     *
     * @param hex 32 hex digits
     * @return the GID
     * @throws IllegalArgumentException when {@code hex} is not an even number of hex digits
     * @throws VerbsException EINVAL when they are not 16 bytes
     */
    public static Gid fromWireString(String hex) {
        return new Gid(HexFormat.of().parseHex(hex));
    }

    /** {@return the GID as {@code ibv_devinfo -v} prints it: eight groups of four hex digits separated by colons} */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 16; i += 2) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(String.format("%02x%02x", raw[i], raw[i + 1]));
        }
        return sb.toString();
    }

    /** {@return whether {@code o} is a GID of the same 16 bytes} */
    @Override
    public boolean equals(Object o) {
        return o instanceof Gid g && Arrays.equals(raw, g.raw);
    }

    /** {@return a hash of the 16 bytes} */
    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }
}
