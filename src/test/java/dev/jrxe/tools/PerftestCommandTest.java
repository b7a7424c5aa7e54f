package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.Gid;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code jrxe perftest}: perftest's record, output formats, and every test between two processes. */
class PerftestCommandTest {
    /** The write_bw client's record in the capture (../shared/reference/cm-and-perftest.md §4.4). */
    private static final String OBSERVED =
        "0000:0001:00004b:72eec6:00002155:00007f7c6ada1000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:58:00:01:00000000:";

    private static Gid gid(int a, int b, int c, int d) {
        byte[] g = new byte[16];
        g[10] = (byte) 0xff;
        g[11] = (byte) 0xff;
        g[12] = (byte) a;
        g[13] = (byte) b;
        g[14] = (byte) c;
        g[15] = (byte) d;
        return new Gid(g);
    }

    @Test
    void shouldEncodeTheRecordAsPerftestDoes() {
        PerftestRecord r = new PerftestRecord(0, 1, 0x4b, 0x72eec6, 0x2155, 0x7f7c6ada1000L, gid(10, 88, 0, 1), 0);
        byte[] wire = r.encode();
        assertThat(wire).hasSize(108);
        assertThat(new String(wire, 0, 107, StandardCharsets.US_ASCII)).isEqualTo(OBSERVED);
        assertThat(wire[107]).isZero();
        assertThat(PerftestRecord.decode(wire)).isEqualTo(r);
        assertThatThrownBy(() -> PerftestRecord.decode(new byte[108])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PerftestRecord.decode(new byte[52])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldEncodeTheRdmaCmRecordAsPerftestsStruct() {
        // perftest 4.5's rdma_write_keys: five big-endian ints, padding, vaddr, the GID, srqn, gid_index
        PerftestRecord r = new PerftestRecord(0, 1, 0x4b, 0x72eec6, 0x2155, 0x7f7c6ada1000L, gid(10, 88, 0, 1), 7);
        byte[] wire = r.encodeCm(3);
        assertThat(java.util.HexFormat.of().formatHex(wire)).isEqualTo("00000000" + "00000001" + "0000004b" + "0072eec6"
            + "00002155" + "00000000" + "00007f7c6ada1000" + "00000000000000000000ffff0a580001" + "00000007" + "00000003");
        assertThat(PerftestRecord.decodeCm(wire)).isEqualTo(r);
        assertThat(PerftestRecord.decodeCm(PerftestRecord.EMPTY.encodeCm(0))).isEqualTo(PerftestRecord.EMPTY);
        assertThatThrownBy(() -> PerftestRecord.decodeCm(new byte[108])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldPrintAddressesAndRowsInPerftestsFormats() {
        StringWriter s = new StringWriter();
        PrintWriter o = new PrintWriter(s);
        PerftestOutput.address(o, "local", new PerftestRecord(0, 1, 0x4b, 0x72eec6, 0x2155, 0x7f7c6ada1000L,
            gid(10, 88, 0, 1), 0), PerftestTest.WRITE_BW);
        PerftestOutput.bwRow(o, new PerftestOob.Report(65536, 20, 7.877, 7.877, 0.000126));
        o.flush();
        assertThat(s.toString().lines().toList()).containsExactly(
            " local address: LID 0000 QPN 0x004b PSN 0x72eec6 RKey 0x002155 VAddr 0x007f7c6ada1000",
            " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:88:00:01",
            " 65536      20               7.88               7.88   \t\t   0.000126");
        assertThat(PerftestOutput.alt(0, 4)).isEqualTo("0000");
        assertThat(PerftestOutput.alt(0x80, 4)).isEqualTo("0x80");
    }

    @Test
    void shouldPrintSixDecimalsBelowATenthOfAGigabitAsPerftestDoes() {
        // print_full_bw_report: REPORT_FMT_EXT when --report_gbits and the average is below 0.1
        StringWriter s = new StringWriter();
        PrintWriter o = new PrintWriter(s);
        PerftestOutput.bwRow(o, new PerftestOob.Report(8, 1000, 0.05, 0.04, 0.5), Double.NaN, true);
        PerftestOutput.bwRow(o, new PerftestOob.Report(8, 1000, 0.05, 0.04, 0.5), Double.NaN, false);
        PerftestOutput.bwRow(o, new PerftestOob.Report(8, 1000, 0.5, 0.1, 0.5), Double.NaN, true);
        o.flush();
        assertThat(s.toString().lines().toList()).containsExactly(
            " 8          1000           0.050000            0.040000            0.500000",
            " 8          1000             0.05               0.04   \t\t   0.500000",
            " 8          1000             0.50               0.10   \t\t   0.500000");
    }

    private static List<String> header(PerftestTest test, boolean server, boolean duplex) {
        StringWriter s = new StringWriter();
        PrintWriter o = new PrintWriter(s);
        PerftestOutput.header(o, new PerftestOutput.Info(test, server, "jrxe0", 1, "RC", 20, 20, 1, 3, 1, 1, false,
            duplex, false, false, 1));
        o.flush();
        return s.toString().lines().toList();
    }

    @Test
    void shouldPrintTheDepthsEachSidePrintsInPerftestsHeader() {
        // as the captures show: a client prints its TX depth, a SEND server its RX depth, -b both
        assertThat(header(PerftestTest.SEND_BW, false, false)).contains(" TX depth        : 20")
            .noneMatch(l -> l.startsWith(" RX depth"));
        assertThat(header(PerftestTest.SEND_BW, true, false)).contains(" RX depth        : 20")
            .noneMatch(l -> l.startsWith(" TX depth"));
        assertThat(header(PerftestTest.SEND_BW, true, true)).contains(" TX depth        : 20", " RX depth        : 20");
        assertThat(header(PerftestTest.WRITE_LAT, true, false)).noneMatch(l -> l.contains("depth"));
        assertThat(header(PerftestTest.SEND_LAT, false, false)).contains(" TX depth        : 20")
            .noneMatch(l -> l.startsWith(" RX depth"));
    }

    @Test
    void shouldNameAPostListInTheTitleAndHeaderAsPerftestDoes() {
        StringWriter s = new StringWriter();
        PrintWriter o = new PrintWriter(s);
        PerftestOutput.header(o, new PerftestOutput.Info(PerftestTest.WRITE_BW, false, "jrxe0", 1, "RC", 128, 1, 16, 3, 1, 1,
            false, true, false, false, 16));
        o.flush();
        assertThat(s.toString().lines().toList()).contains("                    RDMA_Write Bidirectional Post List BW Test")
            .containsSubsequence(" TX depth        : 128", " Post List       : 16", " CQ Moderation   : 16");
    }

    @Test
    void shouldComputeLatencyAsPerftestDoes() {
        // posts every 10 us but two late ones: the differences are halved (one way), the two largest dropped
        long[] posted = new long[12];
        for (int i = 1; i < posted.length; i++) {
            posted[i] = posted[i - 1] + (i == 5 || i == 9 ? 1_000_000 : 10_000);
        }
        PerftestOutput.Latency l = PerftestOutput.latency(posted, posted.length, true);
        assertThat(l.min()).isEqualTo(5.0);
        assertThat(l.max()).as("the two late ones are the tail").isEqualTo(5.0);
        assertThat(l.avg()).isEqualTo(5.0);
        assertThat(l.stdev()).isZero();
    }

    @Test
    void shouldComputeThePeakOverTheBestRunOfMessages() {
        // 4 messages of 1000 bytes: the 2nd and 3rd took 1 us each, the others 10 us
        long[] posted = {0, 10_000, 11_000, 12_000};
        long[] completed = {10_000, 11_000, 12_000, 22_000};
        assertThat(PerftestRun.peak(posted, completed, 1000)).isEqualTo(1000 / 1e-6);
    }

    @Test
    void shouldFailTheDataCheckWhenNothingLanded() {
        PerftestRun.Params p = new PerftestRun.Params(PerftestTest.WRITE_BW, 4096, 10, 4, 1, 1, 1, false, 3, 1, false,
            14, 4096, 64, 1);
        try (Device d = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").detached());
             PerftestRun run = new PerftestRun(d, p, false)) {
            assertThatThrownBy(() -> run.verify(4096, false, false)).isInstanceOf(IOException.class).hasMessageContaining("data check");
            assertThat(run.outReads).isEqualTo(1);
        }
    }

    @Test
    void shouldHaveTheWriteLatencyServerWriteFirstAsPerftestDoes() throws Exception {
        // a perftest client waits for the server's first write: a server that waited too would hang both
        int udp = FreePorts.udp(PingpongHarness.SERVER_IP, PingpongHarness.CLIENT_IP);
        PerftestRun.Params p = new PerftestRun.Params(PerftestTest.WRITE_LAT, 2, 1, 1, 1, 1, 1, false, 3, 1, false,
            14, 4096, 64, 1);
        try (Device sd = Device.open(DeviceConfig.of("jrxe0", PingpongHarness.SERVER_IP).udpPort(udp));
             Device cd = Device.open(DeviceConfig.of("jrxe0", PingpongHarness.CLIENT_IP).udpPort(udp));
             PerftestRun server = new PerftestRun(sd, p, false);
             PerftestRun client = new PerftestRun(cd, p, false)) {
            server.connect(client.mine);
            client.connect(server.mine);
            java.util.concurrent.CompletableFuture<long[]> serving = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return server.writeLat(2, false, null);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            // the server's write lands before the client has written anything
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (client.peerCounter(2) != 1 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(client.peerCounter(2)).as("the server's first write, with the client silent").isEqualTo((byte) 1);
            client.writeLat(2, true, null);
            assertThat(serving.get(10, TimeUnit.SECONDS)).hasSize(1);
        }
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> everyTestOverTcpAndRdmaCm() {
        return java.util.Arrays.stream(PerftestTest.values()).flatMap(t -> java.util.stream.Stream.of(
            org.junit.jupiter.params.provider.Arguments.of(t, false), org.junit.jupiter.params.provider.Arguments.of(t, true)));
    }

    @ParameterizedTest(name = "{0}, rdma_cm {1}")
    @org.junit.jupiter.params.provider.MethodSource("everyTestOverTcpAndRdmaCm")
    void shouldRunEveryTestBetweenTwoProcessesWithEveryByteChecked(PerftestTest test, boolean rdmaCm) throws Exception {
        List<List<String>> out;
        if (rdmaCm) {
            // the -p port's TCP is taken: a server that listened there, rather than with rdma_cm, would fail
            try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getByName(PingpongHarness.SERVER_IP))) {
                out = PerftestPair.run(taken.getLocalPort(), "perftest " + test.command, "-n", "200", "--check", "-R");
            }
        } else {
            out = PerftestPair.run("perftest " + test.command, "-n", "200", "--check");
        }
        List<String> server = out.get(0);
        List<String> client = out.get(1);
        String title = test.title(false);
        assertThat(client).as("client: %s", client).anyMatch(l -> l.strip().equals(title));
        for (List<String> side : out) {
            // -R: the exchange and the QPs' connections went over rdma_cm
            assertThat(side).as("%s", side).contains(" rdma_cm QPs\t : " + (rdmaCm ? "ON" : "OFF"),
                " Data ex. method : " + (rdmaCm ? "rdma_cm" : "Ethernet"));
            for (int i = 1; i < side.size(); i++) {
                assertThat(side.get(i).equals(PerftestOutput.LINE) && side.get(i - 1).equals(PerftestOutput.LINE))
                    .as("one result line at a time, as perftest: %s", side).isFalse();
            }
        }
        assertThat(server.contains(" Waiting for client rdma_cm QP to connect")).as("%s", server).isEqualTo(rdmaCm);
        String size = Integer.toString(test.defaultSize);
        // the client's row: size, then iterations (BW) or size and iterations (latency)
        assertThat(client).as("client: %s", client)
            .anyMatch(l -> l.startsWith(" " + size + " ") && l.contains(" 200 "));
        // whoever the data lands on checked every byte of it
        List<String> landed = test == PerftestTest.READ_BW || test == PerftestTest.READ_LAT ? client
            : test.bw ? server : client;
        assertThat(landed).as("data check in %s", landed).anyMatch(l -> l.startsWith(" data check: ") && l.endsWith("as the peer sent them"));
        if (test.bw && test.verb != PerftestTest.Verb.SEND) {
            // the server prints the client's numbers (perftest's report exchange)
            String row = client.stream().filter(l -> l.startsWith(" " + size + " ")).findFirst().orElseThrow();
            assertThat(server).contains(row);
        }
    }

    @Test
    void shouldPostListsOfRequestsWithOneDoorbell() throws Exception {
        // -l 64 with the default moderation (100) deadlocked: 128 in flight, the next signaled
        // request not posted; one completion per list (as perftest) cannot. -n a multiple of -l, as perftest wants
        List<List<String>> out = PerftestPair.run("ib_write_bw", "-s", "64", "-n", "768", "-l", "64", "--check");
        assertThat(out.get(1)).anyMatch(l -> l.startsWith(" 64 ") && l.contains(" 768 "));
        assertThat(out.get(0)).anyMatch(l -> l.startsWith(" data check: "));
    }

    @Test
    void shouldRunForADurationWithTheServerPrintingTheClientsRow() throws Exception {
        List<List<String>> out = PerftestPair.run("ib_write_bw", "-D", "1", "-s", "4096", "--check");
        String row = out.get(1).stream().filter(l -> l.startsWith(" 4096 ")).findFirst().orElseThrow();
        long iterations = Long.parseLong(row.trim().split(" +")[1]);
        assertThat(iterations).as(row).isPositive();
        assertThat(out.get(0)).as("the server prints the client's row").contains(row);
        assertThat(out.get(0)).anyMatch(l -> l.startsWith(" data check: 4096 bytes"));
    }

    @Test
    void shouldSpreadQpsOverEnginesWithAThreadEachAndShowCpuUtilization() throws Exception {
        // 4 QPs over 2 engines each side, a polling thread per engine, every byte checked
        List<List<String>> out = PerftestPair.run("ib_write_bw", "-D", "1", "-s", "4096", "-q", "4", "--engines", "2",
            "--check", "--cpu_util");
        assertThat(out.get(1)).anyMatch(l -> l.contains("CPU_Util[%]"));
        String row = out.get(1).stream().filter(l -> l.startsWith(" 4096 ")).findFirst().orElseThrow();
        String[] f = row.trim().split("\\s+");
        assertThat(Long.parseLong(f[1])).as(row).isPositive();
        double cpu = Double.parseDouble(f[f.length - 1]);
        assertThat(cpu).as("the CPU_Util column of %s", row).isBetween(0.0, 100.0);
        // every QP's 4096 bytes, whichever engine served it
        assertThat(out.get(0)).anyMatch(l -> l.startsWith(" data check: 16384 bytes"));
    }

    @ParameterizedTest
    @EnumSource(value = PerftestTest.class, names = {"WRITE_BW", "READ_BW", "ATOMIC_BW", "SEND_BW"})
    void shouldRunBidirectionallyWithBothSidesPostingAndPrintingTheSum(PerftestTest test) throws Exception {
        List<List<String>> out = PerftestPair.run("perftest " + test.command, "-b", "-n", "300", "--check");
        String title = test.title(false, true);
        String size = Integer.toString(test.defaultSize);
        for (List<String> side : out) {
            assertThat(side).as("%s", side).anyMatch(l -> l.strip().equals(title));
            if (test != PerftestTest.ATOMIC_BW) {
                // each side was a target: each checked what the other put there (or what it read)
                assertThat(side).as("%s", side).anyMatch(l -> l.startsWith(" data check: ") && l.endsWith("as the peer sent them"));
            }
        }
        // both print the same sum of the two reports
        String serverRow = out.get(0).stream().filter(l -> l.startsWith(" " + size + " ")).findFirst().orElseThrow();
        String clientRow = out.get(1).stream().filter(l -> l.startsWith(" " + size + " ")).findFirst().orElseThrow();
        assertThat(serverRow.trim().split("\\s+")[1]).isEqualTo("300");
        assertThat(Double.parseDouble(serverRow.trim().split("\\s+")[3]))
            .isCloseTo(Double.parseDouble(clientRow.trim().split("\\s+")[3]), org.assertj.core.data.Offset.offset(0.02));
    }

    @ParameterizedTest
    @EnumSource(value = PerftestTest.class, names = {"SEND_BW", "SEND_LAT"})
    void shouldSendOverUdWithEveryByteChecked(PerftestTest test) throws Exception {
        // the default size of send-bw (64 KiB) is cut to the MTU, as perftest does for UD
        List<List<String>> out = PerftestPair.run("perftest " + test.command, "-c", "UD", "-n", "300", "--check");
        List<String> client = out.get(1);
        assertThat(client).anyMatch(l -> l.startsWith(" Connection type : UD"));
        String size = test.bw ? "4096" : Integer.toString(test.defaultSize);
        // perftest's check_link cuts a size above the port's MTU without a word (only -a says it, on stderr)
        assertThat(client).noneMatch(l -> l.contains("Max msg size"));
        if (test.bw) {
            // force_dependecies keeps UD's moderation above 8 KiB (the size was 64 KiB then)
            assertThat(client).contains(" CQ Moderation   : 100");
        }
        assertThat(client).as("%s", client).anyMatch(l -> l.startsWith(" " + size + " ") && l.contains(" 300 "));
        List<String> landed = test.bw ? out.get(0) : client;
        assertThat(landed).as("%s", landed).anyMatch(l -> l.startsWith(" data check: ") && l.endsWith("as the peer sent them"));
    }

    @Test
    void shouldPostAsManyReceivesAsMessagesOverUcAsPerftestDoes() throws Exception {
        // force_dependecies: over UC and UD the default receive depth (512) becomes -n, up to 16000
        List<List<String>> out = PerftestPair.run("ib_send_bw", "-c", "UC", "-n", "1000", "-s", "4096", "--check");
        assertThat(out.get(0)).as("%s", out.get(0)).contains(" RX depth        : 1000");
        assertThat(rows(out.get(0))).as("%s", out.get(0)).singleElement().asString().startsWith(" 4096       1000 ");
        assertThat(dataChecks(out.get(0))).as("%s", out.get(0)).hasSize(1);
    }

    @Test
    void shouldCheckEveryByteOfSmallUdMessages() throws Exception {
        // below half the cycle buffer the sender steps through its buffer: a UD receive must still find what it checks
        List<List<String>> out = PerftestPair.run("ib_send_bw", "-c", "UD", "-s", "64", "-n", "300", "--check");
        assertThat(dataChecks(out.get(0))).as("%s", out.get(0)).containsExactly(" data check: 64 bytes as the peer sent them");
    }

    @Test
    void shouldEndAUdSendRunThatLostMessagesAndCountThem() throws Exception {
        // two receives posted at a time against a client that never waits: UD drops what finds none,
        // and the server must neither wait for them for ever nor miscount
        List<List<String>> out = PerftestPair.run("ib_send_bw", "-c", "UD", "-s", "1024", "-n", "3000", "-r", "2");
        String row = out.get(0).stream().filter(l -> l.startsWith(" 1024 ")).findFirst().orElseThrow();
        long arrived = Long.parseLong(row.trim().split("\\s+")[1]);
        assertThat(arrived).as(row).isBetween(1L, 3000L);
        if (arrived < 3000) {
            assertThat(out.get(0)).contains(" UD: " + arrived + " of 3000 messages arrived; " + (3000 - arrived)
                + " were dropped on the way (no receive posted in time, or a full socket buffer: UD does not retransmit)");
        }
        assertThat(out.get(1)).anyMatch(l -> l.startsWith(" 1024 ") && l.contains(" 3000 "));
    }

    @Test
    void shouldRunBidirectionalSendForADurationEachSideCountingBothWays() throws Exception {
        List<List<String>> out = PerftestPair.run("ib_send_bw", "-b", "-D", "2", "-s", "4096", "--check");
        for (List<String> side : out) {
            assertThat(side).as("%s", side).contains("                    Send Bidirectional BW Test");
            String row = PerftestPair.row(side, " 4096 ");
            assertThat(Long.parseLong(row.trim().split("\\s+")[1])).as("messages sent and received in the measured second: %s",
                row).isPositive();
            assertThat(side).as("%s", side).contains(" data check: 4096 bytes as the peer sent them");
        }
    }

    @Test
    void shouldKeepReceivingAfterABidirectionalDurationRunUntilTheServerHasStopped() throws Exception {
        // the server's clock starts with the client's first message, so it sends on after the
        // client's window is over (here for certain: its window is longer) until the client's
        // closing exchange comes; two receives are gone at once if the client stops reposting then
        List<List<String>> out = PerftestPair.run("ib_send_bw", List.of("-D", "3"), List.of("-D", "1"),
            "-b", "-r", "2", "-s", "4096", "--check");
        for (List<String> side : out) {
            String row = PerftestPair.row(side, " 4096 ");
            assertThat(Long.parseLong(row.trim().split("\\s+")[1])).as("%s", side).isPositive();
            assertThat(side).as("%s", side).contains(" RX depth        : 2", " data check: 4096 bytes as the peer sent them");
        }
    }

    @Test
    void shouldExchangeOverRdmaCmAndConnectTheQpsFromTheRecordsWithZ() throws Exception {
        List<List<String>> out = PerftestPair.run("ib_send_bw", "-z", "-c", "UD", "-n", "300", "--check");
        for (List<String> side : out) {
            assertThat(side).as("%s", side).contains(" rdma_cm QPs\t : OFF", " Data ex. method : rdma_cm")
                .doesNotContain(" Waiting for client rdma_cm QP to connect");
        }
        assertThat(out.get(1)).anyMatch(l -> l.startsWith(" 4096 ") && l.contains(" 300 "));
        assertThat(out.get(0)).anyMatch(l -> l.startsWith(" data check: ") && l.endsWith("as the peer sent them"));
    }

    @Test
    void shouldConnectSeveralQpsWithRdmaCmAndRunBothWaysForADuration() throws Exception {
        // each QP its own rdma_cm connection; the server's duration run asks the rdma_cm exchange when the client is done
        List<List<String>> out = PerftestPair.run("ib_send_bw", "-R", "-b", "-D", "1", "-q", "2", "-s", "4096", "--check");
        for (List<String> side : out) {
            String row = PerftestPair.row(side, " 4096 ");
            assertThat(Long.parseLong(row.trim().split("\\s+")[1])).as("%s", side).isPositive();
            assertThat(side).as("%s", side).contains(" Data ex. method : rdma_cm", " data check: 8192 bytes as the peer sent them");
            assertThat(side.stream().filter(l -> l.startsWith(" local address: "))).hasSize(2);
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"RC", "UD"})
    void shouldRunSendBandwidthForADuration(String connection) throws Exception {
        List<List<String>> out = PerftestPair.run("ib_send_bw", "-D", "1", "-n", "10", "-s", "4096", "-c", connection, "--check");
        // force_dependecies fits the depths to -n in iteration mode only
        assertThat(out.get(0)).as("%s", out.get(0)).contains(" RX depth        : 512");
        assertThat(out.get(1)).as("%s", out.get(1)).contains(" TX depth        : 128");
        for (List<String> side : out) {
            String row = side.stream().filter(l -> l.startsWith(" 4096 ")).findFirst().orElseThrow();
            assertThat(Long.parseLong(row.trim().split("\\s+")[1])).as("messages in the measured second: %s", row)
                .isPositive();
        }
        assertThat(out.get(0)).anyMatch(l -> l.startsWith(" data check: 4096 bytes as the peer sent them"));
    }

    @Test
    void shouldReadTheCpusUserAndIdleTimesAsPerftestDoes() {
        // perftest's get_cpu_stats: the line's user and idle fields, nothing else
        long[] v = PerftestCpuUtil.parse("cpu  100 5 50 1000 20 3 2 1 0 0");
        assertThat(v).containsExactly(100, 1000);
        assertThatThrownBy(() -> PerftestCpuUtil.parse("cpu0 1 2 3 4")).isInstanceOf(IllegalArgumentException.class);
        long[] now = PerftestCpuUtil.read();
        assertThat(now).as("/proc/stat on Linux").isNotNull();
        assertThat(now[0] + now[1]).isPositive();
    }

    private static List<String> rows(List<String> side) {
        return side.stream().filter(l -> l.matches(" \\d+ +\\d+ .*")).toList();
    }

    private static List<String> dataChecks(List<String> side) {
        return side.stream().filter(l -> l.startsWith(" data check: ") && l.endsWith("as the peer sent them")).toList();
    }

    @ParameterizedTest
    @EnumSource(value = PerftestTest.class, names = {"WRITE_BW", "READ_BW", "SEND_BW", "WRITE_LAT", "READ_LAT", "SEND_LAT"})
    void shouldSweepEverySizeWithAllBetweenTwoProcessesWithEveryByteChecked(PerftestTest test) throws Exception {
        List<List<String>> out = PerftestPair.run("perftest " + test.command, "-a", "-n", "4", "--check");
        List<String> server = out.get(0);
        List<String> client = out.get(1);
        List<String> rows = rows(client);
        assertThat(rows).as("%s", client).hasSize(23);
        assertThat(rows.get(0)).startsWith(" 2 ");
        assertThat(rows.get(22)).startsWith(" 8388608 ");
        boolean rdmaBw = test.bw && test.verb != PerftestTest.Verb.SEND;
        if (rdmaBw) {
            // perftest's server waits out the client's sweep in one exchange and prints its last report
            assertThat(rows(server)).as("%s", server).containsExactly(rows.get(22));
        } else {
            assertThat(rows(server)).as("%s", server).hasSize(test == PerftestTest.READ_LAT ? 0 : 23);
        }
        // what landed was checked: after every size where the exchange allows, else after the last
        switch (test) {
            case WRITE_BW -> assertThat(dataChecks(server)).as("%s", server).containsExactly(" data check: 8388608 bytes as the peer sent them");
            case READ_BW, READ_LAT -> assertThat(dataChecks(client)).as("%s", client).hasSize(23);
            case SEND_BW -> assertThat(dataChecks(server)).as("%s", server).hasSize(23);
            case SEND_LAT -> out.forEach(side -> assertThat(dataChecks(side)).as("%s", side).hasSize(23));
            case WRITE_LAT -> out.forEach(side -> assertThat(dataChecks(side)).as("%s", side)
                .containsExactly(" data check: 8388607 bytes as the peer sent them"));
            default -> throw new AssertionError(test);
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"-a", "-D"})
    void shouldRunWriteBandwidthBothWaysWithAllOrForADuration(String mode) throws Exception {
        List<List<String>> out = mode.equals("-a") ? PerftestPair.run("ib_write_bw", "-b", "-a", "-n", "4", "--check")
            : PerftestPair.run("ib_write_bw", "-b", "-D", "1", "-s", "4096", "--check");
        // both print the sum of the two reports, row for row (each with its own iterations: perftest's print_full_bw_report)
        List<String> server = rows(out.get(0));
        List<String> client = rows(out.get(1));
        assertThat(server).as("%s", out).hasSize(mode.equals("-a") ? 23 : 1).hasSameSizeAs(client);
        for (int i = 0; i < server.size(); i++) {
            String[] s = server.get(i).trim().split("\\s+");
            String[] c = client.get(i).trim().split("\\s+");
            assertThat(List.of(s[0], s[2], s[3], s[4])).as("size, peak, average, rate").isEqualTo(List.of(c[0], c[2], c[3], c[4]));
        }
        for (List<String> side : out) {
            assertThat(dataChecks(side)).as("%s", side).hasSize(mode.equals("-a") ? 23 : 1);
        }
    }

    @Test
    void shouldRefuseAPeerThatWouldSizeOurBuffers() throws Exception {
        int tcp = FreePorts.tcp();
        java.util.concurrent.CompletableFuture<Throwable> server = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try (PerftestOob oob = PerftestOob.accept(new java.net.InetSocketAddress("127.0.0.2", tcp), 10_000)) {
                oob.settle(4096, 64, 3);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        try (java.net.Socket peer = connectWithRetry(tcp)) {
            java.io.DataOutputStream o = new java.io.DataOutputStream(peer.getOutputStream());
            java.io.DataInputStream i = new java.io.DataInputStream(peer.getInputStream());
            byte[] version = new byte[16];
            System.arraycopy("6.06".getBytes(StandardCharsets.US_ASCII), 0, version, 0, 4);
            o.write(version);
            i.readFully(new byte[16]);
            o.writeInt(Integer.MAX_VALUE); // a 2 GiB "cycle buffer": every slot would be that large
            i.readFully(new byte[4]);
            o.writeInt(64);
            Throwable t = server.get(10, TimeUnit.SECONDS);
            assertThat(t).isInstanceOf(IOException.class).hasMessageContaining("cycle buffer 2147483647");
        }
    }

    private static java.net.Socket connectWithRetry(int port) throws Exception {
        for (int attempt = 0; ; attempt++) {
            try {
                return new java.net.Socket("127.0.0.2", port);
            } catch (java.net.ConnectException e) {
                if (attempt > 50) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    @Test
    void shouldWriteTheSweepAsCsvAndAsAChartWithTheCeiling() throws Exception {
        List<PerftestPlot.Point> bw = new ArrayList<>();
        for (long size = 2; size <= 1 << 23; size <<= 1) {
            bw.add(new PerftestPlot.Point(size, 100, 0, Math.min(900, size / 1000.0), 0.01, null));
        }
        String csv = PerftestPlot.csv(PerftestTest.WRITE_BW, bw, "MB_per_sec", 3000);
        assertThat(csv.lines()).hasSize(24).first().asString().startsWith("bytes,iterations,bw_peak_MB_per_sec");
        assertThat(csv.lines().skip(23).findFirst().orElseThrow()).isEqualTo("8388608,100,0.00,900.00,0.010000,3000.00");
        String svg = PerftestPlot.svg(PerftestTest.WRITE_BW, bw, "MB/sec", 3000, "RDMA_Write BW Test <jrxe>");
        org.w3c.dom.Document d = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new java.io.ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertThat(d.getElementsByTagName("polyline").getLength()).as("the BW line").isEqualTo(1);
        assertThat(svg).contains("stroke-dasharray", "UDP ceiling", "8M", "&lt;jrxe&gt;");
        PerftestOutput.Latency l = new PerftestOutput.Latency(1, 9, 2, 3, 1, 8, 9);
        String lat = PerftestPlot.svg(PerftestTest.WRITE_LAT, List.of(new PerftestPlot.Point(2, 10, 0, 0, 0, l),
            new PerftestPlot.Point(4, 10, 0, 0, 0, l)), "", 0, "lat");
        assertThat(lat).contains("t_typical", "99%").doesNotContain("UDP ceiling");
    }

    @Test
    void shouldRefuseWhatItCannotRun() {
        StringWriter err = new StringWriter();
        picocli.CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        assertThat(Main.execute(cl, "perftest", "read-bw", "-c", "UC")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_atomic_bw", "-s", "16")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_atomic_bw", "-a")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_write_bw", "-c", "UD")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_send_bw", "-c", "XRC")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_write_lat", "-l", "4")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_write_lat", "-D", "2", "--svg", "lat.svg")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_write_bw", "-l", "3", "-n", "100")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_write_bw", "-l", "4", "-Q", "3")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_write_bw", "--engines", "17")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_send_bw", "-b", "-c", "UD")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_write_lat", "-b")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_write_bw", "-R", "-c", "UC")).isEqualTo(Main.EXIT_USAGE);
        assertThat(Main.execute(cl, "ib_send_bw", "-R", "-c", "UD")).isEqualTo(Main.EXIT_USAGE);
        assertThat(err.toString()).contains("UC has no RDMA_Read", "Message size cannot be changed for Atomic tests", "UD has no RDMA_Write", "connection type XRC",
            "Post list is supported in BW tests only", "which -D does not keep", "--engines is 1 to 16",
            "Number of iterations must be a multiple of post list size", "Post list size must be a multiple of CQ moderation",
            "-b with SEND runs over RC", "Bidirectional is only available in BW test", "UC is not supported in librdmacm",
            "-R with UD");
    }
}
