package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * jrxe's perftest against perftest 4.5's exchange sequence, message for message: the other side is
 * a {@link PerftestPeer} whose script is the main of the test's perftest binary
 * (linux-rdma/perftest v4.5-0.17, src/write_bw.c, read_bw.c, atomic_bw.c, send_bw.c, write_lat.c,
 * read_lat.c, send_lat.c; the line numbers below are theirs), in both roles, with -a, -b and -D,
 * and the UD size rule of check_link and check_mtu.
 */
class PerftestSequenceTest {
    private static final String SERVER = PingpongHarness.SERVER_IP;
    private static final String CLIENT = PingpongHarness.CLIENT_IP;
    private static final int ITERS = 2;

    /** What the peer's script is asked to do: perftest's options on its side. */
    private record Script(PerftestTest test, boolean peerIsClient, List<Integer> sizes, boolean all, boolean duplex,
                          Integer duration, int mtu, boolean ud) {
        /** The parameters force_dependecies gives perftest for these options (tx and rx depth, CQ moderation). */
        PerftestRun.Params params(int settledMtu) {
            int tx = Math.min(test.defaultTxDepth, ITERS);
            int rx = test.verb == PerftestTest.Verb.SEND ? Math.min(test.defaultRxDepth, ITERS) : 1;
            int mod = Math.min(test.bw ? 100 : 1, tx);
            return new PerftestRun.Params(test, sizes.get(sizes.size() - 1), ITERS, tx, rx, mod, 1, false, settledMtu, 1,
                false, 14, 4096, 64, 1, ud);
        }
    }

    /** jrxe's command on a thread of this JVM, its stdout and stderr apart. */
    private record Jrxe(StringWriter out, StringWriter err, CompletableFuture<Integer> exit) {
        static Jrxe start(List<String> args) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            picocli.CommandLine cl = Main.commandLine();
            cl.setOut(new PrintWriter(out, true));
            cl.setErr(new PrintWriter(err, true));
            CompletableFuture<Integer> exit = new CompletableFuture<>();
            Thread.ofPlatform().daemon().name("jrxe-perftest").start(() -> {
                try {
                    exit.complete(Main.execute(cl, args.toArray(String[]::new)));
                } catch (Throwable t) {
                    exit.completeExceptionally(t);
                }
            });
            return new Jrxe(out, err, exit);
        }

        int await() throws Exception {
            return exit.get(90, TimeUnit.SECONDS);
        }

        List<String> lines() {
            return out.toString().lines().toList();
        }

        /** The table's rows: lines that start with a size and its iterations. */
        List<String> rows() {
            return lines().stream().filter(l -> l.matches(" \\d+ +\\d+ .*")).toList();
        }
    }

    /**
     * Runs jrxe with {@code options} against the peer playing {@code script}; the peer's script
     * must end as perftest's does and jrxe must exit with {@code exitCode}.
     *
     * @return jrxe, done
     */
    private static Jrxe against(Script script, int exitCode, String... options) throws Exception {
        int tcp = FreePorts.tcp();
        int udp = FreePorts.udp(SERVER, CLIENT);
        // without the warm-up: it comes before the exchange, and would add seconds to every test
        List<String> args = new ArrayList<>(List.of("perftest", script.test().command, "-n", Integer.toString(ITERS),
            "-p", Integer.toString(tcp), "--udp-port", Integer.toString(udp), "--no-warmup"));
        args.addAll(List.of(options));
        Jrxe jrxe;
        Throwable failed = null;
        if (script.peerIsClient()) {
            args.addAll(List.of("--ip", SERVER));
            jrxe = Jrxe.start(args);
            try (PerftestPeer peer = PerftestPeer.connect(new InetSocketAddress(SERVER, tcp))) {
                play(peer, script, CLIENT, udp);
            } catch (Throwable t) {
                failed = t;
            }
        } else {
            args.addAll(List.of("--ip", CLIENT, SERVER));
            try (ServerSocket listener = new ServerSocket(tcp, 1, InetAddress.getByName(SERVER))) {
                jrxe = Jrxe.start(args);
                try (PerftestPeer peer = PerftestPeer.accept(listener)) {
                    play(peer, script, SERVER, udp);
                } catch (Throwable t) {
                    failed = t;
                }
            }
        }
        int rc = jrxe.await();
        if (failed != null) {
            throw new AssertionError("perftest's side of " + args + " failed; jrxe printed:\n" + jrxe.out() + jrxe.err(), failed);
        }
        assertThat(rc).as("jrxe's exit code; it printed:%n%s%s", jrxe.out(), jrxe.err()).isEqualTo(exitCode);
        return jrxe;
    }

    /** The peer's side of the test: its binary's main from exchange_versions on. */
    private static void play(PerftestPeer peer, Script s, String ip, int udp) throws Exception {
        int mtu = peer.versions(s.mtu());
        if (s.ud() && s.sizes().isEmpty()) {
            peer.expectEnd(); // jrxe gave up after check_mtu
            return;
        }
        PerftestRun run = peer.open(ip, udp, s.params(mtu));
        switch (s.test()) {
            case WRITE_BW, READ_BW, ATOMIC_BW -> rdmaBw(peer, run, s);
            case SEND_BW -> sendBw(peer, run, s);
            case WRITE_LAT, READ_LAT -> rdmaLat(peer, run, s);
            case SEND_LAT -> sendLat(peer, run, s);
        }
    }

    /** write_bw.c 179-408 (read_bw.c and atomic_bw.c the same; atomic_bw.c has no -a). */
    private static void rdmaBw(PerftestPeer peer, PerftestRun run, Script s) throws IOException {
        boolean client = s.peerIsClient();
        PerftestRecord[] remote = peer.handshakeAll(); // 181
        run.connect(remote); // 196
        peer.handshakeAll(); // 220
        peer.handshake(); // 229: after RTR
        if (!client && !s.duplex()) {
            peer.handshake(); // 250: the client is done
            PerftestOob.Report theirs = peer.reports(new PerftestOob.Report(0, 0, 0, 0, 0)); // 255
            assertThat(theirs.size()).as("the size of jrxe's report: its last").isEqualTo((long) s.sizes().get(s.sizes().size() - 1));
            if (s.duration() == null) {
                assertThat(theirs.iters()).isEqualTo(ITERS);
            } else {
                assertThat(theirs.iters()).as("messages in the measured second").isPositive();
            }
            peer.closeConnection(); // 258
            return;
        }
        PerftestOob.Report mine = null;
        for (int size : s.sizes()) {
            if (s.duplex()) {
                peer.handshakeBeforeRun(); // 302 (-a), 343
            }
            mine = bw(run, s, size);
            if (s.duplex() && s.all()) {
                peer.handshake(); // 314: version 6.06 >= 4.6
            }
            if (s.duplex()) {
                peer.reports(mine); // 323 (-a), 357
            }
        }
        if (client && !s.duplex()) {
            peer.handshake(); // 396
            peer.reports(mine); // 401
        }
        peer.closeConnection(); // 405
    }

    /** send_bw.c 300-576. */
    private static void sendBw(PerftestPeer peer, PerftestRun run, Script s) throws IOException {
        boolean client = s.peerIsClient();
        PerftestRecord[] remote = peer.handshakeAll(); // 303
        run.connect(remote); // 347
        peer.handshake(); // 354
        peer.handshakeAll(); // 376
        for (int size : s.sizes()) {
            if (!client || s.duplex()) {
                run.postReceives(size); // 423, 484
            }
            peer.handshakeBeforeRun(); // 429, 490
            PerftestOob.Report mine;
            if (s.duplex()) {
                mine = run.bwClient(size, false, true, !client); // run_iter_bi
            } else if (client) {
                mine = bw(run, s, size);
            } else {
                mine = s.duration() == null ? run.sendBwServer(size, false, () -> false)
                    : run.sendBwServerTimed(size, PerftestWindow.ofSeconds(s.duration(), false), false, () -> true);
            }
            if (s.duplex() && s.duration() == null) {
                peer.reports(mine); // 464, 516
            }
            if (s.all()) {
                peer.handshake(); // 467
            }
        }
        peer.closeConnection(); // 576
    }

    /** write_lat.c 194-286, read_lat.c 186-315. */
    private static void rdmaLat(PerftestPeer peer, PerftestRun run, Script s) throws IOException {
        boolean client = s.peerIsClient();
        boolean read = s.test() == PerftestTest.READ_LAT;
        peer.handshake(); // 194
        PerftestRecord[] remote = peer.handshakeAll(); // 202
        run.connect(remote); // 218
        peer.handshakeAll(); // 241
        peer.handshake(); // 250: after RTR
        if (read && !client) {
            peer.closeConnection(); // read_lat.c 249: the server waits for the client there
            return;
        }
        for (int size : s.sizes()) { // 265, 277: no exchange between the sizes
            if (read) {
                run.readLat(size, null);
            } else {
                run.writeLat(size, client, null);
            }
        }
        if (read) {
            peer.closeConnection(); // read_lat.c 308
        } else {
            peer.expectEnd(); // write_lat.c: nothing after the runs
        }
    }

    /** send_lat.c 305-470. */
    private static void sendLat(PerftestPeer peer, PerftestRun run, Script s) throws IOException {
        PerftestRecord[] remote = peer.handshakeAll(); // 308
        run.connect(remote); // 350
        peer.handshake(); // 357
        peer.handshakeAll(); // 380
        for (int size : s.sizes()) {
            run.postReceives(size); // 419, 444
            peer.handshakeBeforeRun(); // 428, 453
            run.sendLat(size, s.peerIsClient(), null); // 433, 458
        }
        peer.closeConnection(); // 470
    }

    /** run_iter_bw of {@code size}: -n iterations or, with -D, the duration. */
    private static PerftestOob.Report bw(PerftestRun run, Script s, int size) throws IOException {
        if (s.duration() == null) {
            return run.bwClient(size, false, false, false);
        }
        PerftestWindow w = PerftestWindow.ofSeconds(s.duration(), false);
        w.start(System.nanoTime());
        return run.bwClientTimed(size, w, false, null);
    }

    private static List<Integer> all(int upTo) {
        List<Integer> l = new ArrayList<>();
        for (int size = 2; size <= upTo; size <<= 1) {
            l.add(size);
        }
        return l;
    }

    private static Script script(PerftestTest test, boolean peerIsClient, boolean all, boolean duplex, Integer duration) {
        return new Script(test, peerIsClient, all ? all(PerftestCommand.MAX_ALL_SIZE) : List.of(test.defaultSize), all, duplex,
            duration, 5, false);
    }

    static Stream<Arguments> everyTestButAtomicInBothRoles() {
        return Stream.of(PerftestTest.values()).filter(t -> t.verb != PerftestTest.Verb.ATOMIC)
            .flatMap(t -> Stream.of(Arguments.of(t, true), Arguments.of(t, false)));
    }

    @ParameterizedTest(name = "{0}, perftest's client {1}")
    @MethodSource("everyTestButAtomicInBothRoles")
    void shouldRunEverySizeWithAllInPerftestsExchangeSequence(PerftestTest test, boolean peerIsClient) throws Exception {
        Jrxe jrxe = against(script(test, peerIsClient, true, false, null), 0, "-a");
        List<String> rows = jrxe.rows();
        boolean server = peerIsClient;
        if (server && test.bw && test.verb != PerftestTest.Verb.SEND) {
            // write_bw.c 256: the server prints one row, the client's report of its last size
            assertThat(rows).as("%s", jrxe.out()).hasSize(1);
            assertThat(rows.get(0)).startsWith(" 8388608 ");
        } else if (server && test == PerftestTest.READ_LAT) {
            assertThat(rows).as("a READ server prints no table: %s", jrxe.out()).isEmpty();
        } else {
            assertThat(rows).as("%s", jrxe.out()).hasSize(23);
            assertThat(rows.get(22)).startsWith(" 8388608 ");
        }
    }

    static Stream<Arguments> bidirectional() {
        return Stream.of(PerftestTest.WRITE_BW, PerftestTest.READ_BW, PerftestTest.ATOMIC_BW, PerftestTest.SEND_BW)
            .flatMap(t -> Stream.of(true, false).flatMap(peerIsClient -> Stream.of(false, true)
                .filter(all -> !all || t.verb != PerftestTest.Verb.ATOMIC)
                .map(all -> Arguments.of(t, peerIsClient, all))));
    }

    @ParameterizedTest(name = "{0}, perftest's client {1}, -a {2}")
    @MethodSource("bidirectional")
    void shouldExchangeAroundABidirectionalRunAsPerftest(PerftestTest test, boolean peerIsClient, boolean all)
            throws Exception {
        List<String> options = new ArrayList<>(List.of("-b"));
        if (all) {
            options.add("-a");
        }
        Jrxe jrxe = against(script(test, peerIsClient, all, true, null), 0, options.toArray(String[]::new));
        assertThat(jrxe.rows()).as("%s", jrxe.out()).hasSize(all ? 23 : 1);
    }

    @ParameterizedTest(name = "perftest's client {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void shouldExchangeAroundADurationRunAsPerftest(boolean peerIsClient) throws Exception {
        Jrxe jrxe = against(script(PerftestTest.WRITE_BW, peerIsClient, false, false, 1), 0, "-D", "1");
        assertThat(jrxe.rows()).as("%s", jrxe.out()).hasSize(1);
    }

    @Test
    void shouldSayWhatForceDependeciesSaysAndGoOn() throws Exception {
        // --cpu_util without -D: perftest says so on stderr and runs without it; -l: CQ moderation is the list
        Jrxe jrxe = against(script(PerftestTest.WRITE_BW, false, false, false, null), 0, "--cpu_util", "-l", "2");
        assertThat(jrxe.err().toString().lines()).contains(" CPU Utilization works only with Duration mode.");
        assertThat(jrxe.lines()).containsSubsequence(PerftestOutput.LINE,
            "Post List requested - CQ moderation will be the size of the post list", PerftestOutput.LINE,
            "                    RDMA_Write Post List BW Test", " Post List       : 2", " CQ Moderation   : 2");
        assertThat(jrxe.out().toString()).doesNotContain("CPU_Util");
        assertThat(jrxe.rows()).as("%s", jrxe.out()).hasSize(1);
    }

    @Test
    void shouldWarnOfCqModerationAboveEightKibAsForceDependeciesDoes() throws Exception {
        Jrxe jrxe = against(script(PerftestTest.WRITE_BW, false, false, false, null), 0, "-Q", "2");
        assertThat(jrxe.lines()).containsSubsequence(PerftestOutput.LINE,
            "Warning: Large message requested and CQ moderation enabled", "Warning: It can lead to inaccurate results",
            PerftestOutput.LINE, " CQ Moderation   : 2");
    }

    @Test
    void shouldCutUdSizesToTheMtuOnStderrAsCheckLinkAndCheckMtuDo() throws Exception {
        // the peer's MTU (1024) is below jrxe's port's (4096): -a says both on stderr and runs 2 .. 1024
        Script s = new Script(PerftestTest.SEND_BW, false, all(1024), true, false, null, 3, true);
        Jrxe jrxe = against(s, 0, "-a", "-c", "UD");
        assertThat(jrxe.err().toString().lines()).as("stderr").containsSubsequence(
            " Max msg size in UD is MTU 4096", " Changing to this MTU", " Max msg size in UD is MTU 1024", " Changing to this MTU");
        assertThat(jrxe.out().toString()).doesNotContain("Max msg size");
        assertThat(jrxe.rows()).as("%s", jrxe.out()).hasSize(10);
        assertThat(jrxe.rows().get(9)).startsWith(" 1024 ");
    }

    @Test
    void shouldFailAUdSizeGivenAboveTheSettledMtuAsCheckMtuDoes() throws Exception {
        // -s 2048 fits jrxe's port (4096) but not the peer's 1024: perftest fails after the MTU exchange
        Script s = new Script(PerftestTest.SEND_BW, false, List.of(), false, false, null, 3, true);
        Jrxe jrxe = against(s, Main.EXIT_FAILURE, "-c", "UD", "-s", "2048");
        assertThat(jrxe.err().toString()).contains("Max message size in UD cannot be greater than MTU");
        assertThat(jrxe.out().toString()).doesNotContain("Max msg size");
    }
}
