package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command line as {@code ./jrxe} runs it (part of issue 17): usage errors are one line naming
 * the problem plus a pointer to --help, exit status 2; failures while running one line, exit 1, no
 * stack trace; an unknown command is an error even with --help; every subcommand has -V.
 */
class MainErrorsTest {
    private record Run(int rc, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = Main.execute(cl, args);
        return new Run(rc, out.toString(), err.toString());
    }

    @Test
    void shouldReportAUsageErrorInOneLineWithExitStatusTwo() {
        for (String[] bad : new String[][] {{"rc-pingpong", "--bogus"}, {"demo", "--loss", "x"},
            {"rping", "-p", "notaport"}, {"bench", "pingpong", "--nope"}, {"devinfo", "--udp-port", "x"}}) {
            Run r = run(bad);
            assertThat(r.rc()).as(String.join(" ", bad)).isEqualTo(Main.EXIT_USAGE);
            assertThat(r.err().lines().toList()).as(r.err()).hasSize(2);
            assertThat(r.err()).startsWith("jrxe " + bad[0]).contains("--help").doesNotContain("\tat ");
            assertThat(r.out()).isEmpty();
        }
    }

    @Test
    void shouldRefuseAnUnknownCommandEvenWithHelp() {
        Run r = run("frobnicate", "--help");
        assertThat(r.rc()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.err()).contains("no such command 'frobnicate'");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void shouldReportAFailureInOneLineWithExitStatusOneAndNoStackTrace() {
        // a run that fails: the device's UDP port is already taken
        int port = 29000 + (int) (ProcessHandle.current().pid() % 1000);
        try (dev.jrxe.verbs.Device held = dev.jrxe.verbs.Device.open(dev.jrxe.verbs.DeviceConfig.of("held", "127.0.0.2")
            .udpPort(port))) {
            Run r = run("demo", "-n", "1", "--udp-port", Integer.toString(port));
            assertThat(r.rc()).as(r.err()).isEqualTo(Main.EXIT_FAILURE);
            assertThat(r.err()).contains("jrxe demo: ").doesNotContain("\tat ").doesNotContain("Exception");
        }
    }

    @Test
    void shouldPrintTheVersionFromEverySubcommand() {
        for (String[] v : new String[][] {{"-V"}, {"rc-pingpong", "-V"}, {"demo", "--version"}, {"bench", "pingpong", "-V"},
            {"rping", "--version"}}) {
            Run r = run(v);
            assertThat(r.rc()).as(String.join(" ", v)).isZero();
            assertThat(r.out().strip()).as(String.join(" ", v)).isEqualTo("jrxe 0.1.0");
        }
    }

    /** Ports and device addresses are refused with a reason naming the option (issue 17's cases). */
    @Test
    void shouldRefuseBadPortsAndAddressesNamingTheOption() {
        String[][] cases = {
            {"devinfo", "--udp-port", "70000"}, {"devinfo", "--udp-port", "-5"}, {"devinfo", "--ip", "1.2.3"},
            {"rc-pingpong", "-p", "70000"}, {"rc-pingpong", "--ip", "0.0.0.0"}, {"ud-pingpong", "--ip", "224.1.1.1"},
            {"rc-stream", "--udp-port", "0"}, {"rping", "-p", "99999"}, {"demo", "--udp-port", "65536"},
            {"demo", "--loss", "2"}, {"demo", "--loss", "-0.5"}, {"demo", "-s", "0"}, {"demo", "--link-mode", "FOO"},
            {"rc-pingpong", "-n", "0"}};
        for (String[] c : cases) {
            Run r = run(c);
            assertThat(r.rc()).as(String.join(" ", c)).isEqualTo(Main.EXIT_USAGE);
            String first = r.err().lines().findFirst().orElse("");
            // picocli names the option by its long name: -p is '--port' where the tool has one
            assertThat(first).as(String.join(" ", c)).contains("Invalid value for option '").contains(c[2])
                .doesNotContain("Exception");
        }
        assertThat(run("devinfo", "--ip", "1.2.3").err()).contains("is not an IPv4 address");
    }

    @Test
    void shouldPrintTheStackTraceOfAFailureOnlyWithDebug() {
        int port = 29000 + (int) (ProcessHandle.current().pid() % 1000) + 1;
        try (dev.jrxe.verbs.Device held = dev.jrxe.verbs.Device.open(dev.jrxe.verbs.DeviceConfig.of("held", "127.0.0.2")
            .udpPort(port))) {
            Run quiet = run("demo", "-n", "1", "--udp-port", Integer.toString(port));
            Run debug = run("demo", "--debug", "-n", "1", "--udp-port", Integer.toString(port));
            assertThat(quiet.err()).doesNotContain("\tat ");
            assertThat(debug.rc()).isEqualTo(Main.EXIT_FAILURE);
            assertThat(debug.err()).contains("jrxe demo: ").contains("VerbsException").contains("\tat ");
        }
    }

    @Test
    void shouldSayWhatTheExitStatusesMeanInEveryHelp() {
        for (String[] h : new String[][] {{"--help"}, {"rc-pingpong", "--help"}, {"bench", "link", "--help"},
            {"help", "reg-bench"}}) {
            Run r = run(h);
            assertThat(r.rc()).as(String.join(" ", h)).isZero();
            assertThat(r.out().replaceAll("\\s+", " ")).as(String.join(" ", h))
                .contains("Exit status: 0 done, 1 failed while running (one line on stderr says why), 2 bad command line.");
        }
    }

    @Test
    void shouldShowTheHelpOfASubcommandAtAnyDepth() {
        Run r = run("help", "bench", "pingpong");
        assertThat(r.rc()).isZero();
        assertThat(r.out()).startsWith("Usage: jrxe bench pingpong").contains("--send-window");
        assertThat(run("help", "rc-pingpong").out()).startsWith("Usage: jrxe rc-pingpong");
    }

    @Test
    void shouldDrawAReadableRegBenchSynopsis() {
        // picocli wraps the synopsis: compare with the line breaks taken out
        String synopsis = run("reg-bench", "--help").out().replaceAll("\\s+", " ").replace(", ", ",");
        assertThat(synopsis).contains("[--kinds=KIND[,KIND...]]...").contains("[--sizes=SIZE[,SIZE...]]...")
            .doesNotContain("KIND...]...]");
    }
}
