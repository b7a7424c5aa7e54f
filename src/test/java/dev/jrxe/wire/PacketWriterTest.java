package dev.jrxe.wire;

import static dev.jrxe.wire.OpcodeTable.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PacketWriterTest {
    private static final int[] SIZES = {0, 1, 2, 3, 4, 5, 255, 1023, 1024, 4093, 4096};

    @Test
    void shouldRoundTripEveryOpcodeThroughTheDecoder() {
        SplittableRandom random = new SplittableRandom(7);
        PacketWriter w = new PacketWriter();
        RocePacket p = new RocePacket();
        MemorySegment buf = MemorySegment.ofArray(new byte[8192]);
        for (int op : RandomPackets.knownOpcodes()) {
            for (int n : SIZES) {
                if (n > 0 && !has(op, HAS_PAYLOAD)) {
                    continue;
                }
                buf.fill((byte) 0xA5);
                long at = 5;
                int len = RandomPackets.write(w, buf, at, op, n, random.split());
                assertThat(len).isEqualTo(PacketWriter.packetLength(op, n)).isEqualTo(headerLength(op) + n
                    + PacketWriter.padFor(n) + ICRC_LENGTH);
                assertThat(len % 4).isZero();
                assertThat(p.wrap(buf, at, len).validate(4096)).as(Opcodes.name(op) + " " + n).isNull();
                assertThat(p.opcode()).isEqualTo(op);
                assertThat(p.bth().tver()).isZero();
                assertThat(p.payloadLength()).isEqualTo(n);
                assertThat(p.padCount()).isEqualTo(PacketWriter.padFor(n));
                assertThat(p.payloadOffset()).isEqualTo(at + headerLength(op));
                for (int i = n; i < len - headerLength(op); i++) {
                    assertThat(buf.get(ValueLayout.JAVA_BYTE, p.payloadOffset() + i)).as("pad/ICRC zeroed").isZero();
                }
                assertThat(buf.get(ValueLayout.JAVA_BYTE, at + len)).as("nothing written after the packet")
                    .isEqualTo((byte) 0xA5);
                assertThat(buf.get(ValueLayout.JAVA_BYTE, at - 1)).isEqualTo((byte) 0xA5);
            }
        }
    }

    @Test
    void shouldDecodeTheFieldsThatWereWritten() {
        SplittableRandom random = new SplittableRandom(11);
        for (int op : RandomPackets.knownOpcodes()) {
            long seed = random.nextLong();
            MemorySegment buf = MemorySegment.ofArray(new byte[256]);
            int len = RandomPackets.write(new PacketWriter(), buf, 0, op, has(op, HAS_PAYLOAD) ? 9 : 0,
                new SplittableRandom(seed));
            RocePacket decoded = new RocePacket().wrap(buf, 0, len);
            assertThat(decoded.validate(4096)).isNull();
            // re-encode from the decoded fields: same bytes
            MemorySegment again = MemorySegment.ofArray(new byte[256]);
            PacketWriter w = new PacketWriter().begin(again, 0, op);
            HeaderCopier.copy(decoded, w);
            w.copyPayload(buf, decoded.payloadOffset(), decoded.payloadLength());
            assertThat(w.finish(decoded.payloadLength())).isEqualTo(len);
            assertThat(again.asSlice(0, len).mismatch(buf.asSlice(0, len))).as(Opcodes.name(op)).isEqualTo(-1);
            // and the fields are the random ones
            SplittableRandom r = new SplittableRandom(seed);
            Bth bth = decoded.bth();
            assertThat(bth.solicited()).isEqualTo(r.nextBoolean());
            assertThat(bth.migReq()).isEqualTo(r.nextBoolean());
            assertThat(bth.pkey()).isEqualTo(r.nextInt(1 << 16));
            assertThat(bth.fecn()).isEqualTo(r.nextBoolean());
            assertThat(bth.becn()).isEqualTo(r.nextBoolean());
            assertThat(bth.resv6()).isEqualTo(r.nextInt(64));
            assertThat(bth.destQp()).isEqualTo(r.nextInt() & 0xFFFFFF);
            assertThat(bth.ackReq()).isEqualTo(r.nextBoolean());
            assertThat(bth.resv7()).isEqualTo(r.nextInt(128));
            assertThat(bth.psn()).isEqualTo(r.nextInt() & 0xFFFFFF);
        }
    }

    @Test
    void shouldStartWithTverZeroAndTheDefaultPkey() {
        MemorySegment buf = MemorySegment.ofArray(new byte[64]);
        buf.fill((byte) 0xFF);
        PacketWriter w = new PacketWriter().begin(buf, 0, Opcodes.RC_ACKNOWLEDGE);
        assertThat(w.bth().opcode()).isEqualTo(Opcodes.RC_ACKNOWLEDGE);
        assertThat(w.bth().pkey()).isEqualTo(0xFFFF);
        assertThat(w.bth().tver()).isZero();
        assertThat(w.bth().psn()).isZero();
        assertThat(w.aeth().syndrome()).isZero();
        assertThat(w.finish(0)).isEqualTo(20);
    }

    @Test
    void shouldPadPayloadsToFourBytes() {
        assertThat(new int[] {PacketWriter.padFor(0), PacketWriter.padFor(1), PacketWriter.padFor(2),
            PacketWriter.padFor(3), PacketWriter.padFor(4), PacketWriter.padFor(4097)})
            .containsExactly(0, 3, 2, 1, 0, 3);
        MemorySegment buf = MemorySegment.ofArray(new byte[64]);
        buf.fill((byte) 0xEE);
        PacketWriter w = new PacketWriter().begin(buf, 0, Opcodes.RC_RDMA_WRITE_ONLY);
        buf.set(ValueLayout.JAVA_SHORT_UNALIGNED, w.payloadOffset(), (short) 0x0102);
        int len = w.finish(2);
        assertThat(len).isEqualTo(12 + 16 + 2 + 2 + 4);
        assertThat(w.bth().padCount()).isEqualTo(2);
        assertThat(buf.asSlice(30, 6).toArray(ValueLayout.JAVA_BYTE)).containsOnly(0);
    }

    @Test
    void shouldRefuseUnknownOpcodesAndPayloadWhereThereIsNone() {
        MemorySegment buf = MemorySegment.ofArray(new byte[64]);
        PacketWriter w = new PacketWriter();
        assertThatThrownBy(() -> w.begin(buf, 0, 0x15)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.begin(buf, 0, Opcodes.SRD_NAK + 1)).isInstanceOf(IllegalArgumentException.class);
        w.begin(buf, 0, Opcodes.RC_RDMA_READ_REQUEST);
        assertThatThrownBy(() -> w.finish(1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.finish(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.begin(MemorySegment.ofArray(new byte[20]), 0, Opcodes.RC_COMPARE_SWAP))
            .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void shouldWriteACnpAsBthAndSixteenZeroBytes() {
        MemorySegment buf = MemorySegment.ofArray(new byte[64]);
        buf.fill((byte) 0x11);
        PacketWriter w = new PacketWriter().begin(buf, 0, Opcodes.CNP);
        w.bth().destQp(0x118).becn(true);
        assertThat(w.finish(0)).isEqualTo(32);
        assertThat(java.util.HexFormat.of().formatHex(buf.asSlice(0, 32).toArray(ValueLayout.JAVA_BYTE)))
            .isEqualTo("8100ffff40000118000000000000000000000000000000000000000000000000");
    }
}
