package dev.jrxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Golden bytes of IBTA 1.5's FLUSH and ATOMIC_WRITE requests and of their response, laid out as
 * rxe lays them out (rxe_hdr.h: FETH a big-endian word, placement type in bits 3..0, selectivity
 * level in bits 5..4; rxe_opcode.c: FLUSH = BTH, FETH at 12, RETH at 16, no payload; ATOMIC_WRITE
 * = BTH, RETH at 12, 8 payload bytes at 28 copied as they lie in memory; the response an RDMA
 * READ RESPONSE ONLY with an AETH and no payload). No rxe capture has them (rdma-core's tests
 * use them only through the extended API), so the bytes are written out here from those
 * definitions: PacketWriter must produce them, RocePacket must decode them.
 */
class Ibta15LayoutTest {
    private static final HexFormat HEX = HexFormat.of();

    /** BTH: opcode, flags (AckReq set below), P_Key 0xFFFF, dest QP 0x000011, PSN 0x123456 with AckReq. */
    private static String bth(String opcode) {
        return opcode + "00ffff" + "00000011" + "80123456";
    }

    // FLUSH, placement PERSISTENT (2), level MR (1): FETH 0x00000012; RETH va, rkey, length
    private static final String FLUSH = bth("1c") + "00000012" + "00007f1234560000" + "00abcd42" + "00001000"
        + "00000000";
    // ATOMIC_WRITE of the bytes 01..08 at va 0x7f0000000008
    private static final String ATOMIC_WRITE = bth("1d") + "00007f0000000008" + "00abcd42" + "00000008"
        + "0102030405060708" + "00000000";
    // the empty READ response answering either: AETH syndrome 0x1f (ACK, unlimited credits), MSN 7
    private static final String RESPONSE = "1000ffff" + "00000011" + "00123456" + "1f000007" + "00000000";

    @Test
    void shouldWriteFlushAsRxeDoes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(64);
            PacketWriter w = new PacketWriter().begin(buf, 0, Opcodes.RC_FLUSH);
            w.bth().destQp(0x11).psn(0x123456).ackReq(true);
            w.feth().placementType(Feth.PLT_PERSISTENCE).selectivityLevel(Feth.SEL_MR);
            w.reth().va(0x7f1234560000L).rkey(0x00abcd42).dmaLength(0x1000);
            int length = w.finish(0);
            assertThat(length).isEqualTo(36);
            assertThat(HEX.formatHex(buf.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE))).isEqualTo(FLUSH);
        }
    }

    @Test
    void shouldDecodeRxesFlush() {
        RocePacket p = decode(FLUSH);
        assertThat(p.bth().opcode()).isEqualTo(Opcodes.RC_FLUSH);
        assertThat(p.feth().placementType()).isEqualTo(2);
        assertThat(p.feth().selectivityLevel()).isEqualTo(1);
        assertThat(p.reth().va()).isEqualTo(0x7f1234560000L);
        assertThat(p.reth().rkey()).isEqualTo(0x00abcd42);
        assertThat(p.reth().dmaLength()).isEqualTo(0x1000);
        assertThat(p.payloadLength()).isZero();
        // every placement and level rxe's feth_init can write round-trips through the FETH
        for (int plt = 0; plt < 16; plt++) {
            for (int sel = 0; sel < 4; sel++) {
                MemorySegment word = MemorySegment.ofArray(new byte[4]);
                Feth f = new Feth().wrap(word, 0).placementType(plt).selectivityLevel(sel);
                assertThat(f.bits()).isEqualTo(sel << 4 | plt);
                assertThat(word.get(ValueLayout.JAVA_BYTE, 3)).isEqualTo((byte) (sel << 4 | plt));
            }
        }
    }

    @Test
    void shouldWriteAndDecodeAtomicWriteAsRxeDoes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(64);
            PacketWriter w = new PacketWriter().begin(buf, 0, Opcodes.RC_ATOMIC_WRITE);
            w.bth().destQp(0x11).psn(0x123456).ackReq(true);
            w.reth().va(0x7f0000000008L).rkey(0x00abcd42).dmaLength(8);
            w.copyPayload(MemorySegment.ofArray(HEX.parseHex("0102030405060708")), 0, 8);
            int length = w.finish(8);
            assertThat(length).isEqualTo(40);
            assertThat(HEX.formatHex(buf.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE))).isEqualTo(ATOMIC_WRITE);
        }
        RocePacket p = decode(ATOMIC_WRITE);
        assertThat(p.bth().opcode()).isEqualTo(Opcodes.RC_ATOMIC_WRITE);
        assertThat(p.reth().dmaLength()).isEqualTo(8);
        assertThat(p.payloadLength()).isEqualTo(8);
        assertThat(p.payloadOffset()).isEqualTo(28);
        // the responder stores the payload as a host-order long: the same bytes in memory
        long stored = p.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, p.payloadOffset());
        MemorySegment memory = MemorySegment.ofArray(new byte[8]);
        memory.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, stored);
        assertThat(HEX.formatHex(memory.toArray(ValueLayout.JAVA_BYTE))).isEqualTo("0102030405060708");
    }

    @Test
    void shouldWriteAndDecodeTheEmptyReadResponse() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(64);
            PacketWriter w = new PacketWriter().begin(buf, 0, Opcodes.RC_RDMA_READ_RESPONSE_ONLY);
            w.bth().destQp(0x11).psn(0x123456);
            w.aeth().syndrome(Aeth.ACK).msn(7);
            int length = w.finish(0);
            assertThat(HEX.formatHex(buf.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE))).isEqualTo(RESPONSE);
        }
        RocePacket p = decode(RESPONSE);
        assertThat(p.payloadLength()).isZero();
        assertThat(p.aeth().syndrome()).isEqualTo(Aeth.ACK);
        assertThat(p.aeth().msn()).isEqualTo(7);
    }

    private static RocePacket decode(String hex) {
        byte[] bytes = HEX.parseHex(hex);
        return new RocePacket().wrap(MemorySegment.ofArray(bytes), 0, bytes.length);
    }
}
