package dev.jrxe.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Test-only reader of classic pcap files with Ethernet frames: extracts UDP datagrams on port 4791. */
final class PcapReader {
    private PcapReader() {
    }

    static final int ROCE_PORT = 4791;

    /** One UDP datagram to or from port 4791, with the IP/UDP fields the ICRC covers. */
    record Datagram(int frame, int ipVersion, int srcAddr, int dstAddr, int ipId, int ipFlagsFragment,
                    int tos, int ttl, int srcPort, int dstPort, byte[] payload) {
    }

    static List<Datagram> read(Path file) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file));
        int magic = in.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d) {
            in.order(ByteOrder.LITTLE_ENDIAN);
        } else {
            in.order(ByteOrder.BIG_ENDIAN);
            magic = in.getInt(0);
            if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
                throw new IOException(file + ": not a classic pcap file");
            }
        }
        if (in.getInt(20) != 1) {
            throw new IOException(file + ": link type " + in.getInt(20) + " is not Ethernet");
        }
        List<Datagram> out = new ArrayList<>();
        int pos = 24;
        int frame = 0;
        while (pos + 16 <= in.limit()) {
            int caplen = in.getInt(pos + 8);
            int start = pos + 16;
            frame++;
            ByteBuffer f = ByteBuffer.wrap(in.array(), start, caplen).slice().order(ByteOrder.BIG_ENDIAN);
            Datagram d = udp(frame, f);
            if (d != null) {
                out.add(d);
            }
            pos = start + caplen;
        }
        return out;
    }

    private static Datagram udp(int frame, ByteBuffer f) {
        int l3 = 14;
        int type = f.getShort(12) & 0xFFFF;
        if (type == 0x8100) {
            type = f.getShort(16) & 0xFFFF;
            l3 = 18;
        }
        if (type == 0x0800) {
            int ihl = (f.get(l3) & 0x0F) * 4;
            if (f.get(l3 + 9) != 17) {
                return null;
            }
            int l4 = l3 + ihl;
            return datagram(frame, 4, f, l4, f.getInt(l3 + 12), f.getInt(l3 + 16), f.getShort(l3 + 4) & 0xFFFF,
                f.getShort(l3 + 6) & 0xFFFF, f.get(l3 + 1) & 0xFF, f.get(l3 + 8) & 0xFF);
        }
        if (type == 0x86DD) {
            if (f.get(l3 + 6) != 17) {
                return null;
            }
            return datagram(frame, 6, f, l3 + 40, 0, 0, 0, 0, 0, f.get(l3 + 7) & 0xFF);
        }
        return null;
    }

    private static Datagram datagram(int frame, int version, ByteBuffer f, int l4, int src, int dst, int id,
                                     int flags, int tos, int ttl) {
        int sport = f.getShort(l4) & 0xFFFF;
        int dport = f.getShort(l4 + 2) & 0xFFFF;
        if (sport != ROCE_PORT && dport != ROCE_PORT) {
            return null;
        }
        int udpLength = f.getShort(l4 + 4) & 0xFFFF; // cuts Ethernet padding off
        byte[] payload = new byte[udpLength - 8];
        f.get(l4 + 8, payload);
        return new Datagram(frame, version, src, dst, id, flags, tos, ttl, sport, dport, payload);
    }
}
