#!/usr/bin/python3
"""Writes the Jazzer seed corpus of RxDecoderFuzzTest: one real rxe packet per distinct opcode
found in ../shared/captures and ../shared/oracle/good.pcap + edge.pcap (IPv4 only), framed as the
fuzz target reads its input: byte 0 = 1 (seal with a valid ICRC), bytes 1-2 = IPv4 ID, then the
UDP payload. Run once from the repository root; the files are committed."""
import os, struct, sys, glob

OUT = 'src/test/resources/dev/jrxe/wire/RxDecoderFuzzTestInputs/shouldAccountForEveryDatagram'

def datagrams(path):
    data = open(path, 'rb').read()
    endian = '<' if data[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
    pos = 24
    while pos + 16 <= len(data):
        caplen = struct.unpack(endian + 'I', data[pos + 8:pos + 12])[0]
        frame = data[pos + 16:pos + 16 + caplen]
        pos += 16 + caplen
        if len(frame) < 42 or frame[12:14] != b'\x08\x00' or frame[23] != 17:
            continue
        ihl = (frame[14] & 0x0F) * 4
        ip_id = frame[18:20]
        udp = frame[14 + ihl:]
        sport, dport, ulen = struct.unpack('!HHH', udp[:6])
        if dport == 4791:
            yield ip_id, udp[8:ulen]

os.makedirs(OUT, exist_ok=True)
seen = set()
files = sorted(glob.glob('../shared/captures/*.pcap')) + ['../shared/oracle/good.pcap', '../shared/oracle/edge.pcap']
for path in files:
    for ip_id, payload in datagrams(path):
        opcode = payload[0]
        if opcode in seen:
            continue
        seen.add(opcode)
        with open(os.path.join(OUT, 'opcode-%02x' % opcode), 'wb') as f:
            f.write(b'\x01' + ip_id + payload)
print('%d seeds: %s' % (len(seen), ' '.join('%02x' % o for o in sorted(seen))))
