#!/usr/bin/env python3
"""Writes a small classic pcap of jrxe SRD packets to try tools/wireshark/jrxe-srd.lua on.

The capture (Ethernet/IPv4/UDP to port 4791, RoCEv2) holds, in this order:
   1  SRD_SEND            (0xC0) 13-byte payload, PadCnt 3, SE set
   2  SRD_SEND_WITH_IMM   (0xC1) ImmDt 0xDEADBEEF, 8-byte payload
   3  SRD_WRITE           (0xC2) RETH, 1024-byte payload, a retransmission (RETX)
   4  SRD_WRITE_WITH_IMM  (0xC3) RETH, ImmDt, empty payload (last chunk of a WRITE_WITH_IMM)
   5  SRD_READ_REQUEST    (0xC4) RETH for 4096 bytes
   6  SRD_READ_RESPONSE   (0xC5) 64-byte payload
   7  SRD_ACK             (0xC6) 16-byte SACK bitmap with 5 bits set
   8  SRD_NAK             (0xC7) RNR NAK, timer 14
   9  SRD_NAK             (0xC7) remote access error (0x62)
  10  RC SEND_ONLY        (0x04) an ordinary RoCEv2 packet: must still decode as InfiniBand
  11  opcode 0xC8         reserved by SRD: left to Wireshark's InfiniBand dissector
  12  SRD_WRITE           (0xC2) cut short inside its RETH: malformed
  13  SRD_ACK             (0xC6) with a 12-byte bitmap: malformed
Every packet carries a correct ICRC, computed as jrxe and Linux rxe do (IPv4 ID 0, DF).
The SRD packets follow docs/SRD.md section 2.

Usage: make-sample-pcap.py [--raw] [OUTPUT.pcap]   (default /tmp/jrxe-srd-sample.pcap)
  --raw  write LINKTYPE_RAW (101, bare IPv4) instead of LINKTYPE_ETHERNET (1)
Needs only the Python 3 standard library.
"""
import struct
import sys
import zlib

ROCE_PORT = 4791
SRC_IP = bytes([10, 0, 0, 1])
DST_IP = bytes([10, 0, 0, 2])
SRC_MAC = bytes.fromhex("020000000001")
DST_MAC = bytes.fromhex("020000000002")


def bth(opcode, dest_qp, psn, pad=0, se=False, pkey=0xFFFF, ackreq=False):
    b0 = opcode
    b1 = (0x80 if se else 0) | ((pad & 3) << 4)  # SE, M=0, PadCnt, TVer=0
    return struct.pack(">BBHII", b0, b1, pkey, dest_qp & 0xFFFFFF,
                       (0x80000000 if ackreq else 0) | (psn & 0xFFFFFF))


def deth(qkey, path, src_qp):
    return struct.pack(">II", qkey, ((path & 0xFF) << 24) | (src_qp & 0xFFFFFF))


def srdeth(epoch, base, timestamp, length, retx=False, version=1):
    flags = (version << 4) | (1 if retx else 0)
    return struct.pack(">IIII", epoch, (flags << 24) | (base & 0xFFFFFF), timestamp, length)


def reth(va, rkey, dmalen):
    return struct.pack(">QII", va, rkey, dmalen)


def immdt(imm):
    return struct.pack(">I", imm)


def aeth(syndrome, msn=0):
    return struct.pack(">I", (syndrome << 24) | (msn & 0xFFFFFF))


def ipv4_header(total_length, ident=0):
    hdr = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0, total_length, ident, 0x4000, 64, 17, 0,
                                SRC_IP, DST_IP))
    s = sum(struct.unpack(">10H", hdr))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    hdr[10:12] = struct.pack(">H", ~s & 0xFFFF)
    return bytes(hdr)


def icrc(ip, udp, roce_without_icrc):
    """RoCEv2 ICRC: CRC-32 over masked LRH, IPv4, UDP and BTH, then the rest; stored little-endian."""
    ip = bytearray(ip)
    ip[1] = 0xFF                # TOS
    ip[8] = 0xFF                # TTL
    ip[10:12] = b"\xff\xff"     # header checksum
    udp = bytearray(udp)
    udp[6:8] = b"\xff\xff"      # UDP checksum
    b = bytearray(roce_without_icrc)
    b[4] = 0xFF                 # FECN, BECN, reserved
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(b))
    return struct.pack("<I", crc & 0xFFFFFFFF)


def datagram(roce, src_port, truncate_to=None):
    """IPv4 + UDP + roce + ICRC. truncate_to cuts the UDP payload (ICRC included) to that length."""
    udp_len = 8 + len(roce) + 4
    ip = ipv4_header(20 + udp_len)
    udp = struct.pack(">HHHH", src_port, ROCE_PORT, udp_len, 0)
    payload = roce + icrc(ip, udp, roce)
    if truncate_to is not None:
        payload = payload[:truncate_to]
        udp_len = 8 + len(payload)
        ip = ipv4_header(20 + udp_len)
        udp = struct.pack(">HHHH", src_port, ROCE_PORT, udp_len, 0)
    return ip + udp + payload


def pattern(n, seed=0):
    return bytes((seed + i) & 0xFF for i in range(n))


def packets():
    qp_a, qp_b = 0x1234, 0x0567       # requester QP, responder QP
    qkey = 0x11111111
    epoch = 0x0A0B0C0D
    port = lambda path: 49152 + path  # path i = i-th UDP source port
    out = []
    # 1 SRD_SEND: 13 bytes + 3 pad bytes
    out.append(datagram(bth(0xC0, qp_b, 100, pad=3, se=True) + deth(qkey, 0, qp_a)
                        + srdeth(epoch, 100, 1000001, 13) + pattern(13) + b"\0\0\0", port(0)))
    # 2 SRD_SEND_WITH_IMM
    out.append(datagram(bth(0xC1, qp_b, 101) + deth(qkey, 1, qp_a)
                        + srdeth(epoch, 100, 1000002, 8) + immdt(0xDEADBEEF) + pattern(8, 0x40), port(1)))
    # 3 SRD_WRITE, retransmitted, 1024 of a 4096-byte WRITE
    out.append(datagram(bth(0xC2, qp_b, 123) + deth(qkey, 2, qp_a)
                        + srdeth(epoch, 102, 1000003, 4096, retx=True)
                        + reth(0x00007F1234567000, 0xCAFE0042, 1024) + pattern(1024), port(2)))
    # 4 SRD_WRITE_WITH_IMM, empty last chunk
    out.append(datagram(bth(0xC3, qp_b, 124, se=True) + deth(qkey, 3, qp_a)
                        + srdeth(epoch, 124, 1000004, 4096)
                        + reth(0x00007F1234568000, 0xCAFE0042, 0) + immdt(0x01020304), port(3)))
    # 5 SRD_READ_REQUEST for one 4096-byte chunk
    out.append(datagram(bth(0xC4, qp_b, 125) + deth(qkey, 0, qp_a)
                        + srdeth(epoch, 124, 1000005, 4096)
                        + reth(0x00007F0000001000, 0xBEEF0007, 4096), port(0)))
    # 6 SRD_READ_RESPONSE (64 bytes for brevity), to the requester, from the responder's first port
    out.append(datagram(bth(0xC5, qp_a, 125) + deth(0, 0, qp_b)
                        + srdeth(epoch, 0, 1000005, 64) + pattern(64, 0x80), port(0)))
    # 7 SRD_ACK: base 120, window 128, bits 0, 1, 3, 9, 127 set
    sack = bytearray(16)
    for i in (0, 1, 3, 9, 127):
        sack[i // 8] |= 1 << (i % 8)
    out.append(datagram(bth(0xC6, qp_a, 123) + deth(0, 2, qp_b)
                        + srdeth(epoch, 120, 1000003, 128) + bytes(sack), port(0)))
    # 8 SRD_NAK: RNR, timer 14
    out.append(datagram(bth(0xC7, qp_a, 101) + deth(0, 1, qp_b)
                        + srdeth(epoch, 0, 1000002, 0) + aeth(0x20 | 14), port(0)))
    # 9 SRD_NAK: remote access error
    out.append(datagram(bth(0xC7, qp_a, 123) + deth(0, 2, qp_b)
                        + srdeth(epoch, 0, 1000003, 0) + aeth(0x62), port(0)))
    # 10 RC SEND_ONLY: an ordinary RoCEv2 packet
    out.append(datagram(bth(0x04, 0x0042, 7, ackreq=True, pkey=0xFFFF) + pattern(32, 0x20), 50000))
    # 11 opcode 0xC8 (reserved in SRD)
    out.append(datagram(bth(0xC8, qp_b, 9) + pattern(8), port(0)))
    # 12 SRD_WRITE cut short: 12 BTH + 8 DETH + 16 SRDETH + 6 bytes of RETH
    out.append(datagram(bth(0xC2, qp_b, 126) + deth(qkey, 1, qp_a)
                        + srdeth(epoch, 124, 1000006, 4096)
                        + reth(0x00007F1234569000, 0xCAFE0042, 1024) + pattern(1024),
                        port(1), truncate_to=12 + 8 + 16 + 6))
    # 13 SRD_ACK with a 12-byte bitmap
    out.append(datagram(bth(0xC6, qp_a, 126) + deth(0, 1, qp_b)
                        + srdeth(epoch, 120, 1000006, 128) + bytes(12), port(0)))
    return out


def main(argv):
    raw = "--raw" in argv
    args = [a for a in argv if a != "--raw"]
    path = args[0] if args else "/tmp/jrxe-srd-sample.pcap"
    linktype = 101 if raw else 1
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for n, ip in enumerate(packets()):
            frame = ip if raw else DST_MAC + SRC_MAC + b"\x08\x00" + ip
            f.write(struct.pack("<IIII", 1700000000 + n, 0, len(frame), len(frame)))
            f.write(frame)
    print("wrote %s (%d packets, %s)" % (path, len(packets()), "LINKTYPE_RAW" if raw else "Ethernet"))


if __name__ == "__main__":
    main(sys.argv[1:])
