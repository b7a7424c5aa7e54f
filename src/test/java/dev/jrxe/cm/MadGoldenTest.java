package dev.jrxe.cm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.cm.CmMessages.Dreq;
import dev.jrxe.cm.CmMessages.Rep;
import dev.jrxe.cm.CmMessages.Req;
import dev.jrxe.cm.CmMessages.Rtu;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The codec against the five CM MADs of a real rping between two Linux rxe devices (capture 14,
 * a copy in the test resources): every field the reference names reads as the kernel wrote it, and
 * jrxe's encoder writes the kernel's REQ again byte for byte from those fields.
 */
class MadGoldenTest {
    static List<Mad> mads() throws IOException {
        List<Mad> out = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("src", "test", "resources", "cm", "14_rping.mads.txt"))) {
            if (!line.startsWith("#") && !line.isBlank()) {
                out.add(new Mad(HexFormat.of().parseHex(line.trim())));
            }
        }
        return out;
    }

    @Test
    void shouldReadTheKernelsMads() throws IOException {
        List<Mad> m = mads();
        assertThat(m).hasSize(5);
        for (Mad x : m) {
            assertThat(x.baseVersion()).isEqualTo(1);
            assertThat(x.mgmtClass()).isEqualTo(Mad.CLASS_CM);
            assertThat(x.classVersion()).isEqualTo(2);
            assertThat(x.method()).isEqualTo(Mad.METHOD_SEND);
            assertThat(x.transactionId()).isEqualTo(0x00000005e53c1ecdL);
        }
        Mad req = m.get(0);
        assertThat(req.attributeId()).isEqualTo(Mad.ATTR_REQ);
        assertThat(req.u32(Req.LOCAL_COMM_ID)).isEqualTo(0xcd1e3ce5);
        assertThat(req.u64(Req.SERVICE_ID)).isEqualTo(ServiceIds.of(ServiceIds.PS_TCP, 7174));
        assertThat(req.u64(Req.LOCAL_CA_GUID)).isEqualTo(0x34245dfffeb2cd7cL);
        assertThat(req.u24(Req.LOCAL_QPN)).isEqualTo(0x54);
        assertThat(req.u8(Req.RESPONDER_RESOURCES)).isEqualTo(1);
        assertThat(req.u8(Req.INITIATOR_DEPTH)).isEqualTo(1);
        assertThat(req.bits(Req.BYTE43, 3, 5)).isEqualTo(20);
        assertThat(req.bits(Req.BYTE43, 1, 2)).isEqualTo(CmMessages.TRANSPORT_RC);
        assertThat(req.u24(Req.STARTING_PSN)).isEqualTo(0x7c2b28);
        assertThat(req.bits(Req.BYTE47, 3, 5)).isEqualTo(20);
        assertThat(req.bits(Req.BYTE47, 0, 3)).isEqualTo(7);
        assertThat(req.u16(Req.PKEY)).isEqualTo(0xFFFF);
        assertThat(req.bits(Req.BYTE50, 4, 4)).isEqualTo(3);
        assertThat(req.bits(Req.BYTE50, 0, 3)).isEqualTo(7);
        assertThat(req.bits(Req.BYTE51, 4, 4)).isEqualTo(15);
        assertThat(req.u32(Req.PRIMARY_FLOW_LABEL_WORD) >>> 12).isEqualTo(0x4D2F6);
        assertThat(req.u8(Req.PRIMARY_HOP_LIMIT)).isEqualTo(64);
        assertThat(req.bits(Req.BYTE95, 3, 5)).isEqualTo(17).isEqualTo(CmProtocol.ackTimeout(16));
        CmaHeader h = CmaHeader.decode(req.data(Req.PRIVATE_DATA, Req.PRIVATE_DATA_SIZE));
        assertThat(h).isEqualTo(new CmaHeader(0xab10, 0x0A580001, 0x0A580002));
        assertThat((0xab10 * 31 + 7174) & 0xFFFFF).as("rdma_cm's flow label rule").isEqualTo(0x4D2F6);

        Mad rep = m.get(1);
        assertThat(rep.attributeId()).isEqualTo(Mad.ATTR_REP);
        assertThat(rep.u32(Rep.LOCAL_COMM_ID)).isEqualTo(0xcc1e3ce5);
        assertThat(rep.u32(Rep.REMOTE_COMM_ID)).isEqualTo(0xcd1e3ce5);
        assertThat(rep.u24(Rep.LOCAL_QPN)).isEqualTo(0x51);
        assertThat(rep.u24(Rep.STARTING_PSN)).isEqualTo(0xe8d086);
        assertThat(rep.bits(Rep.BYTE26, 3, 5)).isEqualTo(15);
        assertThat(rep.bits(Rep.BYTE27, 5, 3)).isEqualTo(7);

        Mad rtu = m.get(2);
        assertThat(rtu.attributeId()).isEqualTo(Mad.ATTR_RTU);
        assertThat(rtu.u32(Rtu.LOCAL_COMM_ID)).isEqualTo(0xcd1e3ce5);
        assertThat(rtu.u32(Rtu.REMOTE_COMM_ID)).isEqualTo(0xcc1e3ce5);
        Mad dreq = m.get(3);
        assertThat(dreq.attributeId()).isEqualTo(Mad.ATTR_DREQ);
        assertThat(dreq.u24(Dreq.REMOTE_QPN)).as("the receiver's QPN").isEqualTo(0x51);
        Mad drep = m.get(4);
        assertThat(drep.attributeId()).isEqualTo(Mad.ATTR_DREP);
        assertThat(drep.u32(Rtu.LOCAL_COMM_ID)).isEqualTo(0xcc1e3ce5);
    }

    /** jrxe's REQ writer, given the fields of the kernel's REQ, writes the kernel's bytes. */
    @Test
    void shouldWriteTheKernelsReqFromItsFields() throws IOException {
        Mad kernel = mads().get(0);
        Mad ours = new Mad().cm(Mad.ATTR_REQ, kernel.transactionId());
        ours.u32(Req.LOCAL_COMM_ID, 0xcd1e3ce5).u64(Req.SERVICE_ID, ServiceIds.of(ServiceIds.PS_TCP, 7174))
            .u64(Req.LOCAL_CA_GUID, 0x34245dfffeb2cd7cL).u24(Req.LOCAL_QPN, 0x54).u8(Req.RESPONDER_RESOURCES, 1)
            .u8(Req.INITIATOR_DEPTH, 1).u8(Req.BYTE43, 20 << 3).u24(Req.STARTING_PSN, 0x7c2b28)
            .u8(Req.BYTE47, 20 << 3 | 7).u16(Req.PKEY, 0xFFFF).u8(Req.BYTE50, 3 << 4 | 7).u8(Req.BYTE51, 15 << 4)
            .u16(Req.PRIMARY_LOCAL_LID, 0xFFFF).u16(Req.PRIMARY_REMOTE_LID, 0xFFFF)
            .gid(Req.PRIMARY_LOCAL_GID, dev.jrxe.verbs.Gid.ofIpv4(0x0A580001).raw())
            .gid(Req.PRIMARY_REMOTE_GID, dev.jrxe.verbs.Gid.ofIpv4(0x0A580002).raw())
            .u32(Req.PRIMARY_FLOW_LABEL_WORD, 0x4D2F6 << 12).u8(Req.PRIMARY_HOP_LIMIT, 64)
            .u8(Req.BYTE95, 17 << 3)
            .data(Req.PRIVATE_DATA, new CmaHeader(0xab10, 0x0A580001, 0x0A580002).encode(null), Req.PRIVATE_DATA_SIZE);
        assertThat(HexFormat.of().formatHex(ours.bytes())).isEqualTo(HexFormat.of().formatHex(kernel.bytes()));
    }
}
