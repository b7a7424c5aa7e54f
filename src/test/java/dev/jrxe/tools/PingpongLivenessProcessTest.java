package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Nothing hangs silently (issue 17), two JVM processes on 127.0.0.2/3: a peer killed with
 * {@code kill -9} on either side, and a {@code --udp-port} mismatch, end the survivor(s) with exit
 * status 1 and a line naming the likely causes, in poll and in {@code -e} mode, within the idle
 * timeout (RC's retries end a side with a send in flight sooner, as RETRY_EXC_ERR); and the
 * rdma-core habit {@code rc-pingpong &} then {@code rc-pingpong localhost} runs with {@code -c}.
 */
class PingpongLivenessProcessTest {
    private static final String SERVER_IP = "127.0.0.2";
    private static final String CLIENT_IP = "127.0.0.3";
    /** --idle-timeout of these runs: short, so that the suite does not wait the default 10 s. */
    private static final int IDLE_SECONDS = 4;
    /** The survivor must be gone this long after the kill: the idle timeout plus JVM slack. */
    private static final long EXIT_BOUND_SECONDS = IDLE_SECONDS + 20;
    private static final String CAUSES = "the peer may have exited, or its --udp-port is not ";

    private static List<String> side(String mode, int tcp, int udp, String ip, String... more) {
        List<String> args = new ArrayList<>(List.of("rc-pingpong", "-p", Integer.toString(tcp), "--udp-port",
            Integer.toString(udp), "--ip", ip, "--idle-timeout", Integer.toString(IDLE_SECONDS), "-n", "100000000"));
        if (mode.equals("events")) {
            args.add("-e");
        }
        args.addAll(List.of(more));
        return args;
    }

    private static void assertGaveUpNamingTheCauses(ToolProcess p, String who) throws InterruptedException {
        int rc = p.await(EXIT_BOUND_SECONDS, TimeUnit.SECONDS);
        assertThat(rc).as("%s exit status (-1: still running after %d s), output:%n%s", who, EXIT_BOUND_SECONDS,
            p.output()).isEqualTo(1);
        assertThat(p.output()).as(who).contains(CAUSES).doesNotContain("\tat ").doesNotContain("Exception");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"poll", "events"})
    void shouldEndTheServerWithAReasonWhenTheClientIsKilled(String mode) throws Exception {
        killOneSide(mode, false);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"poll", "events"})
    void shouldEndTheClientWithAReasonWhenTheServerIsKilled(String mode) throws Exception {
        killOneSide(mode, true);
    }

    private static void killOneSide(String mode, boolean killServer) throws Exception {
        int tcp = FreePorts.tcp();
        int udp = FreePorts.udp(SERVER_IP, CLIENT_IP);
        try (ToolProcess s = ToolProcess.start(side(mode, tcp, udp, SERVER_IP).toArray(String[]::new))) {
            assertThat(s.awaitLine("  local address:", 60, TimeUnit.SECONDS)).as(s.output()).isTrue();
            try (ToolProcess c = ToolProcess.start(side(mode, tcp, udp, CLIENT_IP, SERVER_IP).toArray(String[]::new))) {
                assertThat(c.awaitLine("  remote address:", 60, TimeUnit.SECONDS)).as(c.output()).isTrue();
                Thread.sleep(1000); // the ping-pong is under way
                ToolProcess victim = killServer ? s : c;
                ToolProcess survivor = killServer ? c : s;
                victim.kill();
                assertGaveUpNamingTheCauses(survivor, killServer ? "client" : "server");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"poll", "events"})
    void shouldEndBothSidesOfAUdpPortMismatchWithAReason(String mode) throws Exception {
        int tcp = FreePorts.tcp();
        int udpServer = FreePorts.udp(SERVER_IP, CLIENT_IP);
        int udpClient = FreePorts.udp(SERVER_IP, CLIENT_IP);
        if (udpClient == udpServer) {
            udpClient = FreePorts.udp(SERVER_IP, CLIENT_IP);
        }
        assertThat(udpClient).isNotEqualTo(udpServer);
        try (ToolProcess s = ToolProcess.start(side(mode, tcp, udpServer, SERVER_IP).toArray(String[]::new))) {
            assertThat(s.awaitLine("  local address:", 60, TimeUnit.SECONDS)).as(s.output()).isTrue();
            try (ToolProcess c = ToolProcess.start(side(mode, tcp, udpClient, CLIENT_IP, SERVER_IP).toArray(String[]::new))) {
                // the client's SEND is never acknowledged: RETRY_EXC_ERR; the server never hears a thing
                assertGaveUpNamingTheCauses(c, "client");
                assertThat(c.output()).contains("transport retry counter exceeded");
                assertGaveUpNamingTheCauses(s, "server");
                assertThat(s.output()).contains("no completion and no packet for " + IDLE_SECONDS + " s: giving up");
            }
        }
    }

    /**
     * What every ibv_rc_pingpong user types first: a server at the default address, then a client
     * given {@code localhost} on the same machine. The client's own default address is the
     * server's, so it moves to a free loopback address, says which, and the run checks out.
     */
    @Test
    void shouldRunAClientGivenLocalhostBesideAServerAtTheDefaultAddress() throws Exception {
        int tcp = FreePorts.tcp();
        int udp = FreePorts.udp("127.0.0.1", "127.0.0.2", "127.0.0.3");
        String[] common = {"rc-pingpong", "-p", Integer.toString(tcp), "--udp-port", Integer.toString(udp), "-c"};
        try (ToolProcess s = ToolProcess.start(common)) {
            assertThat(s.awaitLine("  local address:", 60, TimeUnit.SECONDS)).as(s.output()).isTrue();
            List<String> client = new ArrayList<>(List.of(common));
            client.add("localhost");
            try (ToolProcess c = ToolProcess.start(client.toArray(String[]::new))) {
                assertThat(c.await(120, TimeUnit.SECONDS)).as(c.output()).isZero();
                assertThat(s.await(60, TimeUnit.SECONDS)).as(s.output()).isZero();
                assertThat(c.output()).contains("127.0.0.1 UDP " + udp + " is taken")
                    .containsPattern("this client's device uses 127\\.0\\.0\\.\\d+")
                    .contains("1000 iters in ");
                assertThat(s.output()).contains("GID ::ffff:127.0.0.1").contains("1000 iters in ")
                    .doesNotContain("invalid data");
            }
        }
    }
}
