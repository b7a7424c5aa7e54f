package dev.jrxe.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class HeaderFlyweightTest {
    private static final int AT = 3; // odd offset: unaligned access, neighbours must stay untouched

    private final MemorySegment seg = MemorySegment.ofArray(new byte[64]);

    private String bytes(int length) {
        assertThat(seg.get(ValueLayout.JAVA_BYTE, AT - 1)).as("byte before").isEqualTo((byte) 0x77);
        assertThat(seg.get(ValueLayout.JAVA_BYTE, AT + length)).as("byte after").isEqualTo((byte) 0x77);
        return HexFormat.of().formatHex(seg.asSlice(AT, length).toArray(ValueLayout.JAVA_BYTE));
    }

    private void fill(int length) {
        seg.fill((byte) 0x77);
        seg.asSlice(AT, length).fill((byte) 0);
    }

    @Test
    void shouldLayOutEveryBthField() {
        fill(12);
        Bth bth = new Bth().wrap(seg, AT).opcode(0x0A).solicited(true).migReq(false).padCount(3).tver(0)
            .pkey(0xFFFF).fecn(true).becn(false).resv6(0x15).destQp(0x123456).ackReq(true).resv7(0x55)
            .psn(0xABCDEF);
        assertThat(bytes(12)).isEqualTo("0ab0ffff95123456d5abcdef");
        assertThat(bth.opcode()).isEqualTo(0x0A);
        assertThat(bth.solicited()).isTrue();
        assertThat(bth.migReq()).isFalse();
        assertThat(bth.padCount()).isEqualTo(3);
        assertThat(bth.tver()).isZero();
        assertThat(bth.pkey()).isEqualTo(0xFFFF);
        assertThat(bth.fecn()).isTrue();
        assertThat(bth.becn()).isFalse();
        assertThat(bth.resv6()).isEqualTo(0x15);
        assertThat(bth.destQp()).isEqualTo(0x123456);
        assertThat(bth.ackReq()).isTrue();
        assertThat(bth.resv7()).isEqualTo(0x55);
        assertThat(bth.psn()).isEqualTo(0xABCDEF);
    }

    @Test
    void shouldChangeOneBthFieldWithoutTouchingItsNeighbours() {
        fill(12);
        seg.asSlice(AT, 12).fill((byte) 0xFF);
        Bth bth = new Bth().wrap(seg, AT);
        bth.solicited(false).padCount(1).tver(2).becn(false).ackReq(false).destQp(0x1000001).psn(-1);
        assertThat(bytes(12)).isEqualTo("ff52ffffbf0000017fffffff");
        assertThat(bth.migReq()).isTrue();
        assertThat(bth.fecn()).isTrue();
        assertThat(bth.resv6()).isEqualTo(0x3F);
        assertThat(bth.resv7()).isEqualTo(0x7F);
        assertThat(bth.destQp()).as("masked to 24 bits").isEqualTo(1);
        assertThat(bth.psn()).isEqualTo(0xFFFFFF);
    }

    @Test
    void shouldLayOutTheExtensionHeaders() {
        fill(4);
        assertThat(new Rdeth().wrap(seg, AT).reserved(0).eeContext(0xABCDEF).eeContext()).isEqualTo(0xABCDEF);
        assertThat(bytes(4)).isEqualTo("00abcdef");

        fill(8);
        Deth deth = new Deth().wrap(seg, AT).qkey(Qpn.GSI_QKEY).reserved(0).srcQp(1);
        assertThat(bytes(8)).isEqualTo("8001000000000001");
        assertThat(deth.qkey()).isEqualTo(0x80010000);
        assertThat(deth.srcQp()).isEqualTo(1);
        assertThat(deth.reserved()).isZero();

        fill(16);
        Reth reth = new Reth().wrap(seg, AT).va(0x0000561fe950f000L).rkey(0x24fa).dmaLength(0x80000000);
        assertThat(bytes(16)).isEqualTo("0000561fe950f000000024fa80000000");
        assertThat(reth.va()).isEqualTo(0x0000561fe950f000L);
        assertThat(reth.rkey()).isEqualTo(0x24fa);
        assertThat(Integer.toUnsignedLong(reth.dmaLength())).isEqualTo(1L << 31);

        fill(28);
        AtomicEth atomic = new AtomicEth().wrap(seg, AT).va(0x1122334455667788L).rkey(0x99aabbcc)
            .swapAdd(0x0102030405060708L).compare(-1L);
        assertThat(bytes(28)).isEqualTo("1122334455667788" + "99aabbcc" + "0102030405060708" + "ffffffffffffffff");
        assertThat(atomic.va()).isEqualTo(0x1122334455667788L);
        assertThat(atomic.rkey()).isEqualTo(0x99aabbcc);
        assertThat(atomic.swapAdd()).isEqualTo(0x0102030405060708L);
        assertThat(atomic.compare()).isEqualTo(-1L);

        fill(4);
        Aeth aeth = new Aeth().wrap(seg, AT).syndrome(Aeth.NAK_PSN_SEQ_ERR).msn(0x1000009);
        assertThat(bytes(4)).isEqualTo("60000009");
        assertThat(aeth.syndrome()).isEqualTo(0x60);
        assertThat(aeth.msn()).isEqualTo(9);

        fill(8);
        assertThat(new AtomicAckEth().wrap(seg, AT).originalData(0x2222L).originalData()).isEqualTo(0x2222L);
        assertThat(bytes(8)).isEqualTo("0000000000002222");

        fill(4);
        assertThat(new ImmDt().wrap(seg, AT).immediate(0xdeadbeef).immediate()).isEqualTo(0xdeadbeef);
        assertThat(bytes(4)).isEqualTo("deadbeef");

        fill(4);
        assertThat(new Ieth().wrap(seg, AT).rkey(0xabcd).rkey()).isEqualTo(0xabcd);
        assertThat(bytes(4)).isEqualTo("0000abcd");

        fill(4);
        Feth feth = new Feth().wrap(seg, AT).placementType(Feth.PLT_PERSISTENCE).selectivityLevel(Feth.SEL_MR);
        assertThat(bytes(4)).isEqualTo("00000012");
        assertThat(feth.placementType()).isEqualTo(2);
        assertThat(feth.selectivityLevel()).isEqualTo(1);
        feth.bits(0xFFFFFFC0).placementType(3);
        assertThat(feth.bits()).isEqualTo(0xFFFFFFC3);
    }

    @Test
    void shouldBuildAndClassifyAethSyndromes() {
        assertThat(Aeth.ACK).isEqualTo(0x1F);
        assertThat(Aeth.ack(Aeth.CREDITS_UNLIMITED)).isEqualTo(0x1F);
        assertThat(Aeth.rnrNak(12)).isEqualTo(0x2C);
        assertThat(Aeth.nak(Aeth.NAK_REMOTE_ACCESS)).isEqualTo(0x62);
        assertThat(Aeth.nak(4)).isEqualTo(Aeth.NAK_INVALID_RD_REQ);

        assertThat(Aeth.isAck(0x1F)).isTrue();
        assertThat(Aeth.isAck(0x00)).isTrue();
        assertThat(Aeth.isRnrNak(0x2C)).isTrue();
        assertThat(Aeth.value(0x2C)).isEqualTo(12);
        for (int syndrome : new int[] {0x60, 0x61, 0x62, 0x63, 0x64}) {
            assertThat(Aeth.isNak(syndrome)).isTrue();
            assertThat(Aeth.isAck(syndrome) || Aeth.isRnrNak(syndrome)).isFalse();
        }
        for (int reserved : new int[] {0x40, 0x5F, 0x80, 0x9F, 0xE0}) {
            assertThat(Aeth.isAck(reserved) || Aeth.isRnrNak(reserved) || Aeth.isNak(reserved))
                .as("reserved syndrome 0x%02X", reserved).isFalse();
        }
    }
}
