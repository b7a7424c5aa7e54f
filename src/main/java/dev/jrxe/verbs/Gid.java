package dev.jrxe.verbs;

import java.util.Arrays;
import java.util.HexFormat;

/** A 128-bit GID. RoCEv2 IPv4 GIDs are IPv4-mapped IPv6 addresses (::ffff:a.b.c.d). */
public final class Gid {
    private final byte[] raw;

    public Gid(byte[] raw) {
        if (raw.length != 16) {
            throw VerbsException.einval("a GID has 16 bytes");
        }
        this.raw = raw.clone();
    }

    /** The IPv4-mapped GID of a big-endian IPv4 address. */
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
     * MAC, so it uses the locally administered 02:00:a:b:c:d built from the IPv4 address.
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

    public byte[] raw() {
        return raw.clone();
    }

    /** True when this is an IPv4-mapped GID. */
    public boolean isIpv4() {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return raw[10] == (byte) 0xFF && raw[11] == (byte) 0xFF;
    }

    /** The IPv4 address (big-endian int) of an IPv4-mapped GID. */
    public int ipv4() {
        return (raw[12] & 0xFF) << 24 | (raw[13] & 0xFF) << 16 | (raw[14] & 0xFF) << 8 | (raw[15] & 0xFF);
    }

    /** Interface id (low 64 bits); zero means "no GRH" to the pingpong tools. */
    public long interfaceId() {
        long v = 0;
        for (int i = 8; i < 16; i++) {
            v = v << 8 | (raw[i] & 0xFF);
        }
        return v;
    }

    /** 32 hex digits, raw byte order (the form the pingpong tools exchange). */
    public String toWireString() {
        return HexFormat.of().formatHex(raw);
    }

    public static Gid fromWireString(String hex) {
        return new Gid(HexFormat.of().parseHex(hex));
    }

    /** ibv_devinfo style: eight groups of four hex digits separated by colons. */
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

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid g && Arrays.equals(raw, g.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }
}
