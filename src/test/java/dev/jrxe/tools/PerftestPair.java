package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A jrxe perftest server and its client, each in a JVM of its own, as a user starts them. */
final class PerftestPair {
    private PerftestPair() {
    }

    /**
     * Runs {@code command} (e.g. "perftest write-bw" or "ib_send_lat") with {@code options} as a
     * server on 127.0.0.2, then as its client on 127.0.0.3, on fresh ports; both must exit 0.
     * Without the untimed warm-up (PerftestWarmupTest has the runs with it): it would add seconds
     * to every test and change nothing they check.
     *
     * @return {server lines, client lines}
     */
    static List<List<String>> run(String command, String... options) throws Exception {
        return run(FreePorts.tcp(), command, options);
    }

    /** {@link #run(String, String...)} with {@code -p tcp}. */
    static List<List<String>> run(int tcp, String command, String... options) throws Exception {
        return run(tcp, false, command, options);
    }

    /** {@link #run(String, String...)} with the warm-up, as a user runs the tool. */
    static List<List<String>> runWithWarmup(String command, String... options) throws Exception {
        return run(FreePorts.tcp(), true, command, options);
    }

    /**
     * {@link #run(String, String...)} with options for one side only as well: {@code serverOnly}
     * and {@code clientOnly} follow {@code options}.
     */
    static List<List<String>> run(String command, List<String> serverOnly, List<String> clientOnly, String... options)
            throws Exception {
        return run(FreePorts.tcp(), false, command, serverOnly, clientOnly, options);
    }

    private static List<List<String>> run(int tcp, boolean warmUp, String command, String... options) throws Exception {
        return run(tcp, warmUp, command, List.of(), List.of(), options);
    }

    private static List<List<String>> run(int tcp, boolean warmUp, String command, List<String> serverOnly,
                                          List<String> clientOnly, String... options) throws Exception {
        int udp = FreePorts.udp(PingpongHarness.SERVER_IP, PingpongHarness.CLIENT_IP);
        List<String> common = new ArrayList<>(List.of(command.split(" ")));
        common.addAll(List.of("-p", Integer.toString(tcp), "--udp-port", Integer.toString(udp)));
        if (!warmUp) {
            common.add("--no-warmup");
        }
        common.addAll(List.of(options));
        List<String> server = new ArrayList<>(common);
        server.addAll(serverOnly);
        server.addAll(List.of("--ip", PingpongHarness.SERVER_IP));
        List<String> client = new ArrayList<>(common);
        client.addAll(clientOnly);
        client.addAll(List.of("--ip", PingpongHarness.CLIENT_IP, PingpongHarness.SERVER_IP));
        try (ToolProcess s = ToolProcess.start(server.toArray(String[]::new))) {
            assertThat(s.awaitLine("* Waiting for client", 60, TimeUnit.SECONDS)).as("server up: %s", s.output()).isTrue();
            try (ToolProcess c = ToolProcess.start(client.toArray(String[]::new))) {
                int clientRc = c.await(120, TimeUnit.SECONDS);
                int serverRc = s.await(120, TimeUnit.SECONDS);
                // each side's failure is often the other's doing: both outputs, whichever failed
                assertThat(clientRc).as("client exit code, output:%n%s%nserver (exit %d), output:%n%s", c.output(),
                    serverRc, s.output()).isZero();
                assertThat(serverRc).as("server exit code, output:%n%s%nclient output:%n%s", s.output(),
                    c.output()).isZero();
                return List.of(s.lines(), c.lines());
            }
        }
    }

    /** The first line of {@code side} that starts with {@code prefix}; fails the test when there is none. */
    static String row(List<String> side, String prefix) {
        return side.stream().filter(l -> l.startsWith(prefix)).findFirst()
            .orElseThrow(() -> new AssertionError("no line starting with '" + prefix + "' in:\n" + String.join("\n", side)));
    }
}
