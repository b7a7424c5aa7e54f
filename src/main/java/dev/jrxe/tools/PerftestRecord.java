package dev.jrxe.tools;

import dev.jrxe.verbs.Gid;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One QP's address as perftest exchanges it ({@code struct pingpong_dest}). Over TCP the text
 * form with a GID that RoCE always uses: {@code LLLL:OOOO:QQQQQQ:PPPPPP:RRRRRRRR:VVVVVVVVVVVVVVVV:}
 * then the 16 GID bytes as {@code gg:} and {@code SSSSSSSS:}, lowercase hex of fixed widths,
 * NUL-terminated: 108 bytes (../shared/reference/cm-and-perftest.md §4.4). Over rdma_cm (-R) the
 * struct itself as perftest 4.5 (OOB version 6.06) sends it ({@link #encodeCm}).
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
    /** sizeof(struct pingpong_dest) in perftest 4.5 on a 64-bit machine: the rdma_cm form. */
    static final int CM_BYTES = 56;
    /** What perftest's create_rdma_cm_connection exchanges before and after connecting: a record of zeros. */
    static final PerftestRecord EMPTY = new PerftestRecord(0, 0, 0, 0, 0, 0, new Gid(new byte[16]), 0);

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

    /**
     * The rdma_cm form (perftest 4.5's rdma_write_keys, built with endian.h): lid, out_reads, qpn,
     * psn and rkey as big-endian 32-bit ints, 4 bytes of padding, vaddr big-endian at 24, the 16
     * GID bytes at 32, srqn at 48 and {@code gidIndex} at 52, big-endian: 56 bytes.
     */
    byte[] encodeCm(int gidIndex) {
        return ByteBuffer.allocate(CM_BYTES).putInt(lid).putInt(outReads).putInt(qpn).putInt(psn).putInt(rkey)
            .putInt(0).putLong(vaddr).put(gid.raw()).putInt(srqn).putInt(gidIndex).array();
    }

    /**
     * Reads the rdma_cm form, as perftest's rdma_read_keys does (srqn too, which it skips; the
     * GID index is the reader's own); IllegalArgumentException when it is not 56 bytes.
     */
    static PerftestRecord decodeCm(byte[] wire) {
        if (wire.length != CM_BYTES) {
            throw new IllegalArgumentException("not a " + CM_BYTES + "-byte perftest rdma_cm record: " + wire.length);
        }
        ByteBuffer b = ByteBuffer.wrap(wire);
        int lid = b.getInt();
        int out = b.getInt();
        int qpn = b.getInt();
        int psn = b.getInt();
        int rkey = b.getInt();
        b.getInt(); // padding before the 8-byte vaddr
        long vaddr = b.getLong();
        byte[] g = new byte[16];
        b.get(g);
        return new PerftestRecord(lid, out, qpn, psn, rkey, vaddr, new Gid(g), b.getInt());
    }

    private static int hex(String t, int at, int width) {
        return Integer.parseInt(t.substring(at, at + width), 16);
    }
}
