package dev.jrxe.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.net.DropReason;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class RocePacketTest {
    private final MemorySegment buf = MemorySegment.ofArray(new byte[8192]);
    private final PacketWriter writer = new PacketWriter();
    private final RocePacket packet = new RocePacket();

    private DropReason validate(int length) {
        return packet.wrap(buf, 0, length).validate(4096);
    }

    @Test
    void shouldAcceptWellFormedPackets() {
        int len = writer.begin(buf, 0, Opcodes.RC_SEND_ONLY).finish(4096);
        assertThat(validate(len)).isNull();
        assertThat(packet.payloadLength()).isEqualTo(4096);
        len = writer.begin(buf, 0, Opcodes.RC_SEND_ONLY).finish(0);
        assertThat(validate(len)).as("zero-length send").isNull();
        len = writer.begin(buf, 0, Opcodes.CNP).finish(0);
        assertThat(validate(len)).isNull();
        assertThat(packet.payloadLength()).isZero();
    }

    @Test
    void shouldCallTooShortPacketsTruncated() {
        writer.begin(buf, 0, Opcodes.RC_SEND_ONLY).finish(0);
        assertThat(validate(15)).isEqualTo(DropReason.TRUNCATED);
        assertThat(validate(0)).isEqualTo(DropReason.TRUNCATED);
        writer.begin(buf, 0, Opcodes.RC_RDMA_WRITE_FIRST).finish(0);
        assertThat(validate(12 + 4)).as("RETH missing").isEqualTo(DropReason.TRUNCATED);
        assertThat(validate(12 + 12 + 4)).as("RETH cut").isEqualTo(DropReason.TRUNCATED);
        assertThat(validate(12 + 16 + 4)).isNull();
    }

    @Test
    void shouldRejectUnknownOpcodes() {
        writer.begin(buf, 0, Opcodes.RC_SEND_ONLY).finish(0);
        for (int op : new int[] {0x15, 0x1E, 0x40, 0x80, 0xC8, 0xFF}) {
            new Bth().wrap(buf, 0).opcode(op);
            assertThat(validate(16)).as("0x%02X", op).isEqualTo(DropReason.UNKNOWN_OPCODE);
        }
    }

    @Test
    void shouldRejectTransportVersionsOtherThanZero() {
        int len = writer.begin(buf, 0, Opcodes.RC_ACKNOWLEDGE).finish(0);
        writer.bth().tver(1);
        assertThat(validate(len)).isEqualTo(DropReason.BAD_VERSION);
    }

    @Test
    void shouldCallInconsistentLengthAndPadOversized() {
        int len = writer.begin(buf, 0, Opcodes.RC_SEND_ONLY).finish(5); // 5 + pad 3
        assertThat(validate(len)).isNull();
        assertThat(validate(len - 1)).as("not a multiple of 4").isEqualTo(DropReason.OVERSIZED);
        len = writer.begin(buf, 0, Opcodes.RC_SEND_ONLY).finish(0);
        writer.bth().padCount(2);
        assertThat(validate(len)).as("pad without bytes").isEqualTo(DropReason.OVERSIZED);
        len = writer.begin(buf, 0, Opcodes.RC_ACKNOWLEDGE).finish(0);
        assertThat(validate(len + 4)).as("bytes after an ACK").isEqualTo(DropReason.OVERSIZED);
        len = writer.begin(buf, 0, Opcodes.RC_RDMA_WRITE_MIDDLE).finish(4100);
        assertThat(validate(len)).as("payload above the MTU").isEqualTo(DropReason.OVERSIZED);
        assertThat(packet.validate(4100)).isNull();
    }

    @Test
    void shouldPositionHeadersByTheTable() {
        int len = writer.begin(buf, 8, Opcodes.RC_ATOMIC_ACKNOWLEDGE).finish(0);
        writer.aeth().syndrome(Aeth.ACK).msn(3);
        writer.atomicAckEth().originalData(42);
        packet.wrap(buf, 8, len);
        assertThat(packet.validate(4096)).isNull();
        assertThat(packet.aeth().offset()).isEqualTo(8 + 12);
        assertThat(packet.atomicAckEth().offset()).isEqualTo(8 + 16);
        assertThat(packet.aeth().msn()).isEqualTo(3);
        assertThat(packet.atomicAckEth().originalData()).isEqualTo(42);
        assertThat(packet.length()).isEqualTo(len);
        assertThat(packet.segment()).isSameAs(buf);
        assertThat(packet.offset()).isEqualTo(8);
        assertThatThrownBy(packet::reth).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("RC Atomic Acknowledge");
    }

    @Test
    void shouldRefuseARangeOutsideTheSegment() {
        assertThatThrownBy(() -> packet.wrap(buf, 8190, 16)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> packet.wrap(buf, -1, 16)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
