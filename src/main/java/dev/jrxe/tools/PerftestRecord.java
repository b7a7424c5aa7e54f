package dev.jrxe.tools;

import dev.jrxe.verbs.Gid;
import java.nio.charset.StandardCharsets;

/**
 * One QP's address as perftest exchanges it over TCP ({@code struct pingpong_dest}, the form with
 * a GID that RoCE always uses): {@code LLLL:OOOO:QQQQQQ:PPPPPP:RRRRRRRR:VVVVVVVVVVVVVVVV:} then the
 * 16 GID bytes as {@code gg:} and {@code SSSSSSSS:}, lowercase hex of fixed widths, NUL-terminated:
 * 108 bytes (../shared/reference/cm-and-perftest.md §4.4).
 *
 * @param lid      LID, 0 on RoCE
 * @param outReads the READs/atomics this side accepts outstanding (its max_dest_rd_atomic)
 * @param qpn      QP number
 * @param psn      this side's send PSN (the peer's expected receive PSN)
 * @param rkey     rkey of the test buffer
 * @param vaddr    the address the peer targets (the second half of the buffer)
 * @param gid      the GID
 * @param srqn     SRQ number (XRC/DC only; 0)
 */
record PerftestRecord(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, Gid gid, int srqn) {
    static final int BYTES = 108;

    byte[] encode() {
        StringBuilder s = new StringBuilder(BYTES);
        s.append(String.format("%04x:%04x:%06x:%06x:%08x:%016x:", lid, outReads, qpn, psn, rkey, vaddr));
        byte[] g = gid.raw();
        for (byte b : g) {
            s.append(String.format("%02x:", b & 0xFF));
        }
        s.append(String.format("%08x:", srqn));
        byte[] wire = new byte[BYTES];
        byte[] text = s.toString().getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, wire, 0, Math.min(text.length, BYTES - 1));
        return wire;
    }

    /** Reads the fixed positions perftest's reader walks; IllegalArgumentException when they are not a record. */
    static PerftestRecord decode(byte[] wire) {
        if (wire.length != BYTES || wire[BYTES - 1] != 0) {
            throw new IllegalArgumentException("not a 108-byte perftest address record");
        }
        String t = new String(wire, 0, BYTES - 1, StandardCharsets.US_ASCII);
        try {
            int lid = hex(t, 0, 4);
            int out = hex(t, 5, 4);
            int qpn = hex(t, 10, 6);
            int psn = hex(t, 17, 6);
            int rkey = (int) Long.parseLong(t.substring(24, 32), 16);
            long vaddr = Long.parseUnsignedLong(t.substring(33, 49), 16);
            byte[] g = new byte[16];
            for (int i = 0; i < 16; i++) {
                g[i] = (byte) hex(t, 50 + 3 * i, 2);
            }
            int srqn = (int) Long.parseLong(t.substring(98, 106), 16);
            return new PerftestRecord(lid, out, qpn, psn, rkey, vaddr, new Gid(g), srqn);
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new IllegalArgumentException("not a perftest address record: " + t.strip());
        }
    }

    private static int hex(String t, int at, int width) {
        return Integer.parseInt(t.substring(at, at + width), 16);
    }
}
