package dev.jrxe.net;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

/**
 * Test-only RoCEv2 bits, so the link tests can put real RoCE packets on the wire without the wire
 * layer: an RC SEND_ONLY BTH with a patterned payload, and an ICRC sealer following
 * /work/shared/oracle/README.md (CRC-32 over 8 x 0xFF, the IPv4 header with TOS, TTL and checksum
 * all ones, the UDP header with checksum ones, the BTH with byte 4 ones, then the rest; stored
 * little-endian).
 */
final class TestRoce {
    static final int BTH = 12;
    static final int ICRC = 4;
    static final int RC_SEND_ONLY = 0x04;
    /** UDP payload of a 4096-byte SEND_ONLY: BTH + payload + ICRC. */
    static final int DATAGRAM_4K = BTH + 4096 + ICRC;

    private TestRoce() {
    }

    /** Datagram length of a SEND_ONLY with {@code payload} bytes. */
    static int datagramLength(int payload) {
        return BTH + ((payload + 3) & ~3) + ICRC;
    }

    /** Payload bytes of a SEND_ONLY datagram of length {@code datagram} (a multiple of 4). */
    static int payloadOf(int datagram) {
        return datagram - BTH - ICRC;
    }

    /**
     * Writes BTH (RC SEND_ONLY to {@code destQp}, PSN {@code psn}) and a payload whose bytes
     * depend on the PSN, leaving room for the ICRC. Returns the datagram length.
     */
    static int writeSendOnly(MemorySegment buf, int destQp, int psn, int payload) {
        int pad = (4 - (payload & 3)) & 3;
        buf.set(JAVA_BYTE, 0, (byte) RC_SEND_ONLY);
        buf.set(JAVA_BYTE, 1, (byte) (pad << 4));
        buf.set(JAVA_BYTE, 2, (byte) 0xFF);
        buf.set(JAVA_BYTE, 3, (byte) 0xFF);
        buf.set(JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 4, destQp & 0xFFFFFF);
        buf.set(JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 8, (psn & 0xFFFFFF) | 0x80000000);
        for (int i = 0; i < payload; i++) {
            buf.set(JAVA_BYTE, BTH + i, patternByte(psn, i));
        }
        for (int i = 0; i < pad; i++) {
            buf.set(JAVA_BYTE, BTH + payload + i, (byte) 0);
        }
        return BTH + payload + pad + ICRC;
    }

    static byte patternByte(int psn, int i) {
        return (byte) (psn * 31 + i * 7 + (i >>> 8));
    }

    /** PSN from the BTH at {@code off}. */
    static int psn(MemorySegment buf, long off) {
        return buf.get(JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), off + 8) & 0xFFFFFF;
    }

    /** The RoCEv2 ICRC of the datagram as the kernel will frame it with these headers. */
    static int icrc(MemorySegment buf, long off, int len, int srcAddr, int dstAddr, int srcPort, int dstPort, int ipId) {
        ByteBuffer h = ByteBuffer.allocate(8 + 20 + 8 + BTH).order(ByteOrder.BIG_ENDIAN);
        h.putLong(-1L);
        h.put((byte) 0x45).put((byte) 0xFF).putShort((short) (20 + 8 + len)).putShort((short) ipId)
                .putShort((short) 0x4000).put((byte) 0xFF).put((byte) 17).putShort((short) 0xFFFF)
                .putInt(srcAddr).putInt(dstAddr);
        h.putShort((short) srcPort).putShort((short) dstPort).putShort((short) (8 + len)).putShort((short) 0xFFFF);
        byte[] bth = buf.asSlice(off, BTH).toArray(JAVA_BYTE);
        bth[4] = (byte) 0xFF;
        h.put(bth);
        CRC32 crc = new CRC32();
        crc.update(h.array());
        crc.update(buf.asSlice(off + BTH, len - BTH - ICRC).asByteBuffer());
        return (int) crc.getValue();
    }

    /** Seals with the ICRC for exactly the headers the link announces. */
    static final DatagramSealer SEALER = (buf, off, len, src, dst, sport, dport, ipId) ->
            buf.set(JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), off + len - ICRC,
                    icrc(buf, off, len, src, dst, sport, dport, ipId));
}
