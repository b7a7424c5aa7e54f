package dev.jrxe.wire;

import static dev.jrxe.wire.OpcodeTable.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.wire.PcapReader.Datagram;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every RoCE packet of the real Linux rxe captures: decodes to the fields tshark shows, its ICRC
 * verifies with the ID of its IP header, the solver finds that ID, and re-encoding its headers
 * gives the same bytes.
 */
class WireGoldenTest {
    private static final int DF = 0x4000;

    static Stream<Path> captures() {
        return Goldens.captures().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("captures")
    void shouldDecodeEveryPacketToTheFieldsTsharkShows(Path capture) throws Exception {
        List<Datagram> datagrams = PcapReader.read(capture);
        Map<Integer, Map<String, String>> golden = Goldens.fields(Goldens.name(capture));
        assertThat(datagrams).extracting(Datagram::frame).containsExactlyElementsOf(golden.keySet());

        RocePacket pkt = new RocePacket();
        SoftAssertions soft = new SoftAssertions();
        for (Datagram d : datagrams) {
            Map<String, String> row = golden.get(d.frame());
            String at = Goldens.name(capture) + " frame " + d.frame() + " ";
            MemorySegment seg = MemorySegment.ofArray(d.payload());
            assertThat(pkt.wrap(seg, 0, d.payload().length).validate(4096)).as(at + "validate").isNull();
            int op = pkt.opcode();

            soft.assertThat(d.srcAddr()).as(at + "ip.src").isEqualTo(ipv4(row.get("ip.src")));
            soft.assertThat(d.dstAddr()).as(at + "ip.dst").isEqualTo(ipv4(row.get("ip.dst")));
            expect(soft, at, row, "ip.id", d.ipId());
            expect(soft, at, row, "udp.srcport", d.srcPort());
            expect(soft, at, row, "udp.dstport", d.dstPort());
            expect(soft, at, row, "udp.length", d.payload().length + 8);

            Bth bth = pkt.bth();
            expect(soft, at, row, "infiniband.bth.opcode", op);
            expect(soft, at, row, "infiniband.bth.se", bit(bth.solicited()));
            expect(soft, at, row, "infiniband.bth.m", bit(bth.migReq()));
            expect(soft, at, row, "infiniband.bth.padcnt", bth.padCount());
            expect(soft, at, row, "infiniband.bth.tver", bth.tver());
            expect(soft, at, row, "infiniband.bth.p_key", bth.pkey());
            expect(soft, at, row, "infiniband.bth.destqp", bth.destQp());
            expect(soft, at, row, "infiniband.bth.a", bit(bth.ackReq()));
            expect(soft, at, row, "infiniband.bth.reserved7", bth.resv7());
            expect(soft, at, row, "infiniband.bth.psn", bth.psn());

            expectPresent(soft, at, row, "infiniband.aeth.syndrome", has(op, HAS_AETH));
            if (has(op, HAS_AETH)) {
                expect(soft, at, row, "infiniband.aeth.syndrome", pkt.aeth().syndrome());
                expect(soft, at, row, "infiniband.aeth.msn", pkt.aeth().msn());
            }
            // Wireshark shows the AtomicETH address and key in the RETH fields.
            expectPresent(soft, at, row, "infiniband.reth.va", has(op, HAS_RETH) || has(op, HAS_ATMETH));
            expectPresent(soft, at, row, "infiniband.reth.dmalen", has(op, HAS_RETH));
            if (has(op, HAS_RETH)) {
                expect(soft, at, row, "infiniband.reth.va", pkt.reth().va());
                expect(soft, at, row, "infiniband.reth.r_key", Integer.toUnsignedLong(pkt.reth().rkey()));
                expect(soft, at, row, "infiniband.reth.dmalen", Integer.toUnsignedLong(pkt.reth().dmaLength()));
            }
            expectPresent(soft, at, row, "infiniband.atomiceth.swapdt", has(op, HAS_ATMETH));
            if (has(op, HAS_ATMETH)) {
                expect(soft, at, row, "infiniband.reth.va", pkt.atomicEth().va());
                expect(soft, at, row, "infiniband.reth.r_key", Integer.toUnsignedLong(pkt.atomicEth().rkey()));
                expect(soft, at, row, "infiniband.atomiceth.swapdt", pkt.atomicEth().swapAdd());
                expect(soft, at, row, "infiniband.atomiceth.cmpdt", pkt.atomicEth().compare());
            }
            expectPresent(soft, at, row, "infiniband.atomicacketh.origremdt", has(op, HAS_ATMACK));
            if (has(op, HAS_ATMACK)) {
                expect(soft, at, row, "infiniband.atomicacketh.origremdt", pkt.atomicAckEth().originalData());
            }
            expectPresent(soft, at, row, "infiniband.deth.q_key", has(op, HAS_DETH));
            if (has(op, HAS_DETH)) {
                expect(soft, at, row, "infiniband.deth.q_key", Integer.toUnsignedLong(pkt.deth().qkey()));
                expect(soft, at, row, "infiniband.deth.srcqp", pkt.deth().srcQp());
            }
            expectPresent(soft, at, row, "infiniband.immdt", has(op, HAS_IMMDT));
            expectPresent(soft, at, row, "infiniband.ieth", has(op, HAS_IETH));
            // tshark shows the ICRC bytes read big-endian
            expect(soft, at, row, "infiniband.invariant.crc", Integer.toUnsignedLong(Integer.reverseBytes(pkt.icrc())));
            soft.assertThat(row.get("_ws.malformed")).as(at + "tshark: malformed").isEmpty();
            soft.assertThat(pkt.payloadLength() + pkt.padCount() + pkt.headerLength() + 4)
                .as(at + "length").isEqualTo(d.payload().length);
        }
        soft.assertAll();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("captures")
    void shouldVerifyEveryIcrcAndSolveTheIpIdOfItsHeader(Path capture) throws Exception {
        Icrc icrc = new Icrc();
        SoftAssertions soft = new SoftAssertions();
        int nonZeroIds = 0;
        for (Datagram d : PcapReader.read(capture)) {
            String at = Goldens.name(capture) + " frame " + d.frame() + " ";
            assertThat(d.ipFlagsFragment()).as(at + "DF, no fragment").isEqualTo(DF);
            MemorySegment seg = MemorySegment.ofArray(d.payload());
            int len = d.payload().length;
            soft.assertThat(icrc.verify(seg, 0, len, d.srcAddr(), d.dstAddr(), d.srcPort(), d.dstPort(), d.ipId()))
                .as(at + "ICRC with the header's ID").isTrue();
            soft.assertThat(icrc.solveIpId(seg, 0, len, d.srcAddr(), d.dstAddr(), d.srcPort(), d.dstPort()))
                .as(at + "solved ID").isEqualTo(d.ipId());
            nonZeroIds += d.ipId() != 0 ? 1 : 0;
        }
        soft.assertAll();
        assertThat(nonZeroIds).as("captures carry rxe's non-zero IDs").isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("captures")
    void shouldReencodeDecodedHeadersToIdenticalBytes(Path capture) throws Exception {
        RocePacket pkt = new RocePacket();
        PacketWriter writer = new PacketWriter();
        IcrcSealer sealer = new IcrcSealer();
        for (Datagram d : PcapReader.read(capture)) {
            byte[] original = d.payload();
            pkt.wrap(MemorySegment.ofArray(original), 0, original.length);
            assertThat(pkt.validate(4096)).isNull();

            MemorySegment fresh = MemorySegment.ofArray(new byte[original.length + 64]);
            fresh.fill((byte) 0x5A); // garbage the writer must overwrite
            writer.begin(fresh, 0, pkt.opcode());
            HeaderCopier.copy(pkt, writer);
            writer.copyPayload(pkt.segment(), pkt.payloadOffset(), pkt.payloadLength());
            int length = writer.finish(pkt.payloadLength());
            sealer.seal(fresh, 0, length, d.srcAddr(), d.dstAddr(), d.srcPort(), d.dstPort(), d.ipId());

            assertThat(length).isEqualTo(original.length);
            assertThat(fresh.asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .as(Goldens.name(capture) + " frame " + d.frame()).isEqualTo(original);
        }
    }

    private static void expect(SoftAssertions soft, String at, Map<String, String> row, String field, long actual) {
        String text = row.get(field);
        soft.assertThat(text).as(at + field + " present").isNotEmpty();
        if (text != null && !text.isEmpty()) {
            soft.assertThat(actual).as(at + field).isEqualTo(parse(text));
        }
    }

    private static void expectPresent(SoftAssertions soft, String at, Map<String, String> row, String field,
                                      boolean present) {
        soft.assertThat(!row.get(field).isEmpty()).as(at + field + " present").isEqualTo(present);
    }

    private static long parse(String text) {
        return text.startsWith("0x") ? Long.parseUnsignedLong(text.substring(2), 16) : Long.parseUnsignedLong(text);
    }

    private static int bit(boolean b) {
        return b ? 1 : 0;
    }

    private static int ipv4(String dotted) {
        int v = 0;
        for (String part : dotted.split("\\.")) {
            v = (v << 8) | Integer.parseInt(part);
        }
        return v;
    }
}
