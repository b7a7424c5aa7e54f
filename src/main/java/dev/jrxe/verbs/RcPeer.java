package dev.jrxe.verbs;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What one side of a connected QP (RC or UC) tells the other before both move to RTS: its GID,
 * QP number, first PSN and UDP port. Encoded as ibv_rc_pingpong's 52-byte message
 * ({@code "%04x:%06x:%06x:%s"}: LID, QPN, PSN, the GID as 32 hex digits, NUL-padded), so the C
 * tools and any program speaking their exchange can be the peer. RoCE has no LIDs (the C tools
 * send 0000 and the receiver ignores it); jrxe carries a UDP port other than 4791 in that field,
 * and reads 0000 as 4791.
 *
 * <p>Immutable (a record): safe to share between threads.
 *
 * <pre>{@code
 * RcPeer me = RcPeer.of(qp, psn);
 * out.write(me.encode());                    // 52 bytes
 * RcPeer peer = RcPeer.decode(in.readNBytes(RcPeer.BYTES));
 * }</pre>
 *
 * @param gid     the peer device's GID (index 1: its IPv4 address, IPv4-mapped)
 * @param qpn     its QP number (24 bits)
 * @param psn     the first PSN it sends (24 bits)
 * @param udpPort the UDP port its device listens on (4791 unless configured)
 */
public record RcPeer(Gid gid, int qpn, int psn, int udpPort) {
    /** Length of the encoding, as ibv_rc_pingpong's {@code sizeof "0000:000000:000000:" + 32 + NUL}. */
    public static final int BYTES = 52;
    /** The RoCEv2 UDP port. */
    public static final int ROCE_PORT = 4791;

    /**
     * Checks the fields.
     *
     * @throws NullPointerException     when {@code gid} is null
     * @throws IllegalArgumentException when {@code qpn} or {@code psn} does not fit 24 bits, or
     *                                  {@code udpPort} is not 1 to 65535
     */
    public RcPeer {
        Objects.requireNonNull(gid, "gid");
        if ((qpn & ~0xFFFFFF) != 0 || (psn & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("QPN and PSN are 24-bit: qpn " + qpn + ", psn " + psn);
        }
        if (udpPort < 1 || udpPort > 0xFFFF) {
            throw new IllegalArgumentException("UDP port " + udpPort);
        }
    }

    /**
     * This side of {@code qp}: its device's IPv4 GID ({@link Device#IPV4_GID_INDEX}) and UDP port,
     * its QPN, and {@code psn}.
     *
     * @param qp  the local QP
     * @param psn its first send PSN (the low 24 bits are taken)
     * @return what to send the peer
     */
    public static RcPeer of(QueuePair qp, int psn) {
        Device d = qp.pd().device();
        return new RcPeer(d.queryGid(1, Device.IPV4_GID_INDEX), qp.qpNum(), psn & 0xFFFFFF, d.udpPort());
    }

    /**
     * {@return the {@link #BYTES} bytes ibv_rc_pingpong sends: the ASCII text, NUL-padded} The
     * LID field carries {@link #udpPort} in hex, or 0000 for {@link #ROCE_PORT}.
     */
    public byte[] encode() {
        String text = String.format("%04x:%06x:%06x:%s", udpPort == ROCE_PORT ? 0 : udpPort, qpn, psn, gid.toWireString());
        byte[] wire = new byte[BYTES];
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(b, 0, wire, 0, Math.min(b.length, BYTES - 1));
        return wire;
    }

    /**
     * Reads what {@code sscanf("%x:%x:%x:%s")} reads from the message: text up to the first NUL,
     * with the first 32 hex digits of the last field as the GID. A LID field of 0 means
     * {@link #ROCE_PORT}, anything else is the UDP port.
     *
     * @param wire the message (normally {@link #BYTES} bytes)
     * @return the peer it describes
     * @throws IllegalArgumentException when the bytes are not such a message
     */
    public static RcPeer decode(byte[] wire) {
        int n = 0;
        while (n < wire.length && wire[n] != 0) {
            n++;
        }
        String text = new String(wire, 0, n, StandardCharsets.US_ASCII);
        String[] f = text.split(":", 4);
        if (f.length != 4 || f[3].length() < 32) {
            throw new IllegalArgumentException("not an ibv_rc_pingpong address message: \"" + text + "\"");
        }
        int lid = Integer.parseInt(f[0], 16);
        return new RcPeer(Gid.fromWireString(f[3].substring(0, 32)), Integer.parseInt(f[1], 16),
            Integer.parseInt(f[2], 16), lid == 0 ? ROCE_PORT : lid);
    }
}
