package dev.jrxe.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PcapWriterTest {
    private static final int SRC = Links.toInt("10.0.0.1");
    private static final int DST = Links.toInt("10.0.0.2");
    private static final int[] IDS = {0, 1, 2, 14, 0x7FFF, 0xABCD, 0xFFFF};

    /** Writes one SEND_ONLY per ID, sealed for the ID it is recorded with. */
    private static void writeSealed(PcapWriter w, int iface, int recordedIdDelta) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(8192);
            int psn = 100;
            for (int id : IDS) {
                int len = TestRoce.writeSendOnly(buf, 0x000456, psn, 4 * psn);
                TestRoce.SEALER.seal(buf, 0, len, SRC, DST, 0xC123, 4791, id);
                w.write(iface, true, SRC, DST, 0xC123, 4791, (id + recordedIdDelta) & 0xFFFF, buf, 0, len);
                psn++;
            }
        }
    }

    @Test
    void shouldWriteRoceDatagramsThatRoceCheckVerifies(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("ok.pcapng");
        try (PcapWriter w = PcapWriter.open(file)) {
            writeSealed(w, w.addInterface("test"), 0);
            assertThat(w.packets()).isEqualTo(IDS.length);
        }
        Tools.Result r = Tools.roceCheck(file);
        assertThat(r.lastLine()).isEqualTo(IDS.length + " passed, 0 failed");
        assertThat(r.exit()).isZero();
    }

    @Test
    void shouldRecordTheIpIdItIsGiven(@TempDir Path dir) throws Exception {
        // sealed for one ID, recorded with the next: the ICRC no longer matches anywhere
        Path file = dir.resolve("wrong-id.pcapng");
        try (PcapWriter w = PcapWriter.open(file)) {
            writeSealed(w, w.addInterface("test"), 1);
        }
        Tools.Result r = Tools.roceCheck(file);
        assertThat(r.lastLine()).isEqualTo("0 passed, " + IDS.length + " failed");
    }

    @Test
    void shouldSynthesizeTheHeadersRxeSends(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("headers.pcapng");
        try (PcapWriter w = PcapWriter.open(file)) {
            writeSealed(w, w.addInterface("test"), 0);
        }
        List<String[]> rows = Tools.tsharkFields(file, null, "eth.src", "eth.dst", "ip.src", "ip.dst", "ip.id",
                "ip.flags.df", "ip.ttl", "ip.proto", "ip.checksum.status", "udp.srcport", "udp.dstport",
                "udp.checksum", "udp.length", "frame.len", "frame.interface_name");
        assertThat(rows).hasSize(IDS.length);
        for (int i = 0; i < IDS.length; i++) {
            String[] f = rows.get(i);
            assertThat(f[0]).isEqualTo("02:00:0a:00:00:01");
            assertThat(f[1]).isEqualTo("02:00:0a:00:00:02");
            assertThat(f[2]).isEqualTo("10.0.0.1");
            assertThat(f[3]).isEqualTo("10.0.0.2");
            assertThat(Integer.decode(f[4])).isEqualTo(IDS[i]);
            assertThat(f[5]).isIn("1", "True");
            assertThat(f[6]).isEqualTo("64");
            assertThat(f[7]).isEqualTo("17");
            assertThat(f[8]).as("IPv4 header checksum status (Wireshark: 0 bad, 1 good, 2 unverified)").isEqualTo("1");
            assertThat(f[9]).isEqualTo(Integer.toString(0xC123));
            assertThat(f[10]).isEqualTo("4791");
            assertThat(Integer.decode(f[11])).isZero();
            int udpLen = Integer.parseInt(f[12]);
            assertThat(Integer.parseInt(f[13])).isEqualTo(14 + 20 + udpLen);
            assertThat(f[14]).isEqualTo("test");
        }
    }

    @Test
    void shouldShareOneFileBetweenLinksWithAnInterfaceEach(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("shared.pcapng");
        PcapWriter first = PcapWriter.open(file);
        PcapWriter second = PcapWriter.open(dir.resolve(".").resolve("shared.pcapng"));
        assertThat(second).isSameAs(first);
        int a = first.addInterface("a");
        int b = second.addInterface("b");
        assertThat(b).isEqualTo(a + 1);
        writeSealed(first, a, 0);
        writeSealed(second, b, 0);
        first.close();
        second.write(b, false, SRC, DST, 1, 2, 0, MemorySegment.ofArray(new byte[4]), 0, 4);
        second.close();
        List<String[]> rows = Tools.tsharkFields(file, null, "frame.interface_id");
        assertThat(rows).hasSize(2 * IDS.length + 1);
        assertThat(rows.stream().filter(r -> r[0].equals("1")).count()).isEqualTo(IDS.length + 1);
        // closed for good: a new open starts a new file
        try (PcapWriter again = PcapWriter.open(file)) {
            assertThat(again).isNotSameAs(first);
        }
        assertThat(Files.size(file)).isLessThan(100);
    }

    @Test
    void shouldRecordDirection(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("dir.pcapng");
        try (PcapWriter w = PcapWriter.open(file)) {
            int i = w.addInterface("x");
            w.write(i, true, SRC, DST, 1, 2, 0, MemorySegment.ofArray(new byte[8]), 0, 8);
            w.write(i, false, DST, SRC, 2, 1, 0, MemorySegment.ofArray(new byte[8]), 0, 8);
        }
        List<String[]> rows = Tools.tsharkFields(file, null, "frame.packet_flags_direction");
        assertThat(rows).extracting(r -> Integer.decode(r[0])).containsExactly(2, 1);
    }

    @Test
    void shouldReportAnUnwritableFileWhenOpened(@TempDir Path dir) {
        assertThatThrownBy(() -> PcapWriter.open(dir.resolve("missing-dir").resolve("x.pcapng")))
                .isInstanceOf(java.io.IOException.class);
    }
}
