package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Runs an ibv_*_pingpong-like tool's server on 127.0.0.2 and client on 127.0.0.3 on free TCP and
 * UDP ports, either as two threads of this JVM or as two JVMs, and checks their output against
 * the C tools' line formats.
 */
final class PingpongHarness {
    static final String SERVER_IP = "127.0.0.2";
    static final String CLIENT_IP = "127.0.0.3";
    private static final long TIMEOUT_SECONDS = 120;
    private static final String HEX4 = "0x([0-9a-f]{4})";
    private static final String HEX6 = "0x([0-9a-f]{6})";
    private static final Pattern LOCAL = Pattern.compile(
        "  local address:  LID " + HEX4 + ", QPN " + HEX6 + ", PSN " + HEX6 + "([:,]) GID (\\S+)");
    private static final Pattern REMOTE = Pattern.compile(
        "  remote address: LID " + HEX4 + ", QPN " + HEX6 + ", PSN " + HEX6 + ", GID (\\S+)");
    private static final Pattern BYTES = Pattern.compile("(\\d+) bytes in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d Mbit/sec");
    private static final Pattern ITERS = Pattern.compile("(\\d+) iters in \\d+\\.\\d\\d seconds = \\d+\\.\\d\\d usec/iter");

    private PingpongHarness() {
    }

    /** One QP's address as a side printed it. */
    record Address(String qpn, String psn, String gid) {
    }

    /** One side's successful run, parsed. */
    record Run(List<Address> local, List<Address> remote, char beforeGid, long bytes, int iters) {
    }

    /** Exit code and output of a tool run in this JVM. */
    record Side(int rc, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }
    }

    /** Runs {@code tool}'s server and client as threads; returns {server, client}, both checked to exit 0. */
    static List<List<String>> inProcess(Supplier<Object> tool, String... options) throws Exception {
        Arguments args = arguments(options);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Side> server = pool.submit(() -> execute(tool.get(), args.server()));
            // the client retries its TCP connect until the server listens
            Future<Side> client = pool.submit(() -> execute(tool.get(), args.client()));
            Side c = client.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            Side s = server.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            assertThat(c.rc()).as("client exit code, stdout:%n%s%nstderr:%n%s", c.out(), c.err()).isZero();
            assertThat(s.rc()).as("server exit code, stdout:%n%s%nstderr:%n%s", s.out(), s.err()).isZero();
            return List.of(s.lines(), c.lines());
        } finally {
            pool.shutdownNow();
        }
    }

    /** Runs one command object with {@code args}, capturing what it prints. */
    static Side execute(Object command, List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(args.toArray(String[]::new));
        return new Side(rc, out.toString(), err.toString());
    }

    /**
     * Runs {@code ./jrxe COMMAND} server and client in two JVMs; returns {server lines, client
     * lines}, both checked to exit 0.
     */
    static List<List<String>> twoProcesses(String command, String... options) throws Exception {
        Arguments args = arguments(options);
        args.server().addFirst(command);
        args.client().addFirst(command);
        try (ToolProcess s = ToolProcess.start(args.server().toArray(String[]::new))) {
            assertThat(s.awaitLine("  local address:", 60, TimeUnit.SECONDS)).as("server up: %s", s.output()).isTrue();
            try (ToolProcess c = ToolProcess.start(args.client().toArray(String[]::new))) {
                int clientRc = c.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                int serverRc = s.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertThat(clientRc).as("client exit code, output:%n%s", c.output()).isZero();
                assertThat(serverRc).as("server exit code, output:%n%s", s.output()).isZero();
                return List.of(s.lines(), c.lines());
            }
        }
    }

    /** The two sides' command lines. */
    private record Arguments(List<String> server, List<String> client) {
    }

    /** Server and client arguments on fresh free ports. */
    private static Arguments arguments(String... options) throws IOException {
        int tcp = FreePorts.tcp();
        int udp = FreePorts.udp(SERVER_IP, CLIENT_IP);
        List<String> common = new ArrayList<>(List.of("-p", Integer.toString(tcp), "--udp-port", Integer.toString(udp)));
        common.addAll(List.of(options));
        List<String> server = new ArrayList<>(common);
        server.addAll(List.of("--ip", SERVER_IP));
        List<String> client = new ArrayList<>(common);
        client.addAll(List.of("--ip", CLIENT_IP, SERVER_IP));
        return new Arguments(server, client);
    }

    /**
     * Parses one side's lines: its local address lines, then as many remote ones, then the two
     * result lines, in that order and nothing else of theirs in between.
     */
    static Run parse(List<String> lines) {
        List<Address> local = new ArrayList<>();
        List<Address> remote = new ArrayList<>();
        char beforeGid = 0;
        Long bytes = null;
        Integer iters = null;
        List<String> order = new ArrayList<>();
        for (String l : lines) {
            Matcher m;
            if ((m = LOCAL.matcher(l)).matches()) {
                assertThat(m.group(1)).as("RoCE LID").isEqualTo("0000");
                local.add(new Address(m.group(2), m.group(3), m.group(5)));
                beforeGid = m.group(4).charAt(0);
                order.add("local");
            } else if ((m = REMOTE.matcher(l)).matches()) {
                remote.add(new Address(m.group(2), m.group(3), m.group(4)));
                order.add("remote");
            } else if ((m = BYTES.matcher(l)).matches()) {
                bytes = Long.parseLong(m.group(1));
                order.add("bytes");
            } else if ((m = ITERS.matcher(l)).matches()) {
                iters = Integer.parseInt(m.group(1));
                order.add("iters");
            }
        }
        List<String> expected = new ArrayList<>();
        local.forEach(a -> expected.add("local"));
        remote.forEach(a -> expected.add("remote"));
        expected.addAll(List.of("bytes", "iters"));
        assertThat(order).as("the C tools' line order in %s", lines).isEqualTo(expected);
        assertThat(remote).as("a remote line per local one, in %s", lines).hasSameSizeAs(local);
        return new Run(local, remote, beforeGid, bytes, iters);
    }

    /**
     * Checks that server and client each printed {@code qps} local and remote addresses, that each
     * side's remote address i is the other's local address i, GIDs of the two device addresses,
     * the C tools' separator before "GID" in local lines, the byte and iteration counts, and no
     * "invalid data" line.
     */
    static void assertPaired(List<List<String>> outputs, int qps, char beforeGid, int size, int iters) {
        Run server = parse(outputs.get(0));
        Run client = parse(outputs.get(1));
        for (Run r : List.of(server, client)) {
            assertThat(r.local()).hasSize(qps);
            assertThat(r.beforeGid()).isEqualTo(beforeGid);
            assertThat(r.iters()).isEqualTo(iters);
            assertThat(r.bytes()).isEqualTo(2L * size * iters);
        }
        assertThat(server.local()).allMatch(a -> a.gid().equals("::ffff:" + SERVER_IP));
        assertThat(client.local()).allMatch(a -> a.gid().equals("::ffff:" + CLIENT_IP));
        assertThat(server.remote()).isEqualTo(client.local());
        assertThat(client.remote()).isEqualTo(server.local());
        assertThat(server.local().stream().map(Address::qpn).distinct()).hasSize(qps);
        for (List<String> lines : outputs) {
            assertThat(lines).noneMatch(l -> l.contains("invalid data"));
        }
    }
}
