package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code jrxe rping}: rping's options and refusals, its output with -v, 1,000 verified iterations
 * between two processes (server on 127.0.0.2, client on 127.0.0.3), both exiting 0 after the
 * disconnect events rping prints.
 */
class RpingCommandTest {
    private record Run(int rc, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new RpingCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(args);
        return new Run(rc, out.toString(), err.toString());
    }

    @Test
    void shouldRefuseWhatRpingRefuses() {
        assertThat(run("-s", "-S", "10").err()).contains("Invalid size 10 (valid range is 26 to 65536)");
        assertThat(run("-c", "-a", "127.0.0.2", "-C", "-1").err()).contains("'-C': -1 is not 0 or more");
        assertThat(run("-s", "-c").rc()).as("a usage error (issue 17)").isEqualTo(2);
        assertThat(run("-c").err()).contains("needs -a");
        assertThat(run("--help").out()).contains("-a=addr", "-C=count", "-S=size", "-V", "-P");
    }

    @Test
    void shouldPingInOneProcessWithVerboseOutput() throws Exception {
        int udp = FreePorts.udp("127.0.0.2", "127.0.0.3");
        int port = 20000 + (int) (ProcessHandle.current().pid() % 20000);
        Run[] server = new Run[1];
        Thread s = Thread.ofPlatform().start(() -> server[0] = run("-s", "-a", "127.0.0.2", "-p", Integer.toString(port),
            "--udp-port", Integer.toString(udp), "-v"));
        Thread.sleep(1500);
        Run c = run("-c", "-a", "127.0.0.2", "--ip", "127.0.0.3", "-p", Integer.toString(port),
            "--udp-port", Integer.toString(udp), "-C", "3", "-v", "-V");
        s.join(30_000);
        assertThat(c.rc()).as(c.err()).isZero();
        assertThat(c.out().lines().toList()).containsExactly(
            "ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr",
            "ping data: rdma-ping-1: BCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrs",
            "ping data: rdma-ping-2: CDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrst");
        assertThat(c.err()).contains("client DISCONNECT EVENT...");
        assertThat(server[0].rc()).as(server[0].err()).isZero();
        assertThat(server[0].out().lines().toList()).hasSize(3).allMatch(l -> l.startsWith("server ping data: rdma-ping-"));
        assertThat(server[0].err()).contains("server DISCONNECT EVENT...");
    }

    @Test
    void shouldKeepTheServerWaitingForItsClientAsRpingDoes() throws Exception {
        int udp = FreePorts.udp("127.0.0.2", "127.0.0.3");
        int port = 22000 + (int) (ProcessHandle.current().pid() % 20000);
        RpingCommand serverCommand = new RpingCommand();
        serverCommand.waitMs = 100; // every other wait of the server gives up after 100 ms
        StringWriter serverErr = new StringWriter();
        int[] serverRc = {-1};
        Thread s = Thread.ofPlatform().start(() -> {
            CommandLine cl = new CommandLine(serverCommand);
            cl.setErr(new PrintWriter(serverErr, true));
            serverRc[0] = cl.execute("-s", "-a", "127.0.0.2", "-p", Integer.toString(port), "--udp-port", Integer.toString(udp));
        });
        s.join(1500); // 15 times that wait without a client
        assertThat(s.isAlive()).as("the server still waits for a connect request: " + serverErr).isTrue();
        Run c = run("-c", "-a", "127.0.0.2", "--ip", "127.0.0.3", "-p", Integer.toString(port),
            "--udp-port", Integer.toString(udp), "-C", "2", "-V");
        s.join(30_000);
        assertThat(c.rc()).as(c.err()).isZero();
        assertThat(serverRc[0]).as(serverErr.toString()).isZero();
    }

    @Test
    void shouldPingAThousandVerifiedIterationsBetweenTwoProcesses() throws Exception {
        int udp = FreePorts.udp("127.0.0.2", "127.0.0.3");
        String port = Integer.toString(21000 + (int) (ProcessHandle.current().pid() % 20000));
        try (ToolProcess s = ToolProcess.start("rping", "-s", "-a", "127.0.0.2", "-p", port, "--udp-port",
            Integer.toString(udp), "-d")) {
            assertThat(s.awaitLine("rping: listening on", 60, TimeUnit.SECONDS)).as(s.output()).isTrue();
            try (ToolProcess c = ToolProcess.start("rping", "-c", "-a", "127.0.0.2", "--ip", "127.0.0.3", "-p", port,
                "--udp-port", Integer.toString(udp), "-C", "1000", "-V")) {
                assertThat(c.await(120, TimeUnit.SECONDS)).as(c.output()).isZero();
                assertThat(s.await(60, TimeUnit.SECONDS)).as(s.output()).isZero();
                List<String> cl = c.lines();
                assertThat(cl).contains("client DISCONNECT EVENT...").noneMatch(l -> l.contains("mismatch"));
                assertThat(s.lines()).contains("server DISCONNECT EVENT...");
            }
        }
    }
}
