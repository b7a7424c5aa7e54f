package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command refuses bad values before any work starts (issue 17): one line on stderr naming
 * the option and what is wrong, then one pointing at --help, exit status 2, nothing on stdout and
 * no stack trace. One test per command, each with the inputs users were seen to type and more of
 * the same kinds (out of range, not a number, a name that does not exist, a file that cannot be
 * written).
 */
class BadInputTest {
    /** One bad command line and what its first error line must contain (the option, as picocli names it). */
    private record Case(String mentions, String... args) {
    }

    private static Case bad(String mentions, String... args) {
        return new Case(mentions, args);
    }

    private static void assertRefused(List<Case> cases) {
        for (Case c : cases) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cl = Main.commandLine();
            cl.setOut(new PrintWriter(out, true));
            cl.setErr(new PrintWriter(err, true));
            long start = System.nanoTime();
            int rc = Main.execute(cl, c.args());
            String line = String.join(" ", c.args());
            assertThat(rc).as("%s: %s", line, err).isEqualTo(Main.EXIT_USAGE);
            List<String> lines = err.toString().lines().toList();
            assertThat(lines).as("%s: %s", line, err).hasSize(2);
            assertThat(lines.get(0)).as(line).startsWith("jrxe " + c.args()[0]).contains(c.mentions())
                .doesNotContain("Exception");
            assertThat(lines.get(1)).as(line).contains("--help");
            assertThat(err.toString()).as(line).doesNotContain("\tat ");
            assertThat(out.toString()).as("%s printed on stdout", line).isEmpty();
        }
    }

    private static List<Case> pingpongCommon(String tool) {
        return List.of(bad("'--port'", tool, "-p", "70000"), bad("'--port'", tool, "-p", "-1"),
            bad("'--ib-dev'", tool, "-d", "mlx5_0"), bad("'--ib-port'", tool, "-i", "0"),
            bad("'--ib-port'", tool, "-i", "2"), bad("'--rx-depth'", tool, "-r", "0"),
            bad("'--iters'", tool, "-n", "0"), bad("'--iters'", tool, "-n", "many"), bad("'--sl'", tool, "-l", "16"),
            bad("'--gid-idx'", tool, "-g", "5"), bad("'--gid-idx'", tool, "-g", "-7"), bad("'--gid-idx'", tool, "-g", "0"),
            bad("'--ip'", tool, "--ip", "0.0.0.0"), bad("'--ip'", tool, "--ip", "1.2.3"),
            bad("'--ip'", tool, "--ip", "10.255.255.1"), bad("'--udp-port'", tool, "--udp-port", "0"),
            bad("'--pcap'", tool, "--pcap", "/nonexistent/x.pcapng"), bad("'--jfr'", tool, "--jfr", "/nonexistent/x.jfr"),
            bad("'--idle-timeout'", tool, "--idle-timeout", "-1"), bad("--bogus", tool, "--bogus"));
    }

    private static List<Case> plus(List<Case> a, Case... more) {
        List<Case> all = new java.util.ArrayList<>(a);
        all.addAll(List.of(more));
        return all;
    }

    @Test
    void shouldRefuseBadRcPingpongInput() {
        assertRefused(plus(pingpongCommon("rc-pingpong"), bad("'--size'", "rc-pingpong", "-s", "-1"),
            bad("'--mtu'", "rc-pingpong", "-m", "1000"), bad("'--size'", "rc-pingpong", "-s", "4Q"),
            bad("prefetch", "rc-pingpong", "-P")));
    }

    @Test
    void shouldRefuseBadUcPingpongInput() {
        assertRefused(plus(pingpongCommon("uc-pingpong"), bad("'--mtu'", "uc-pingpong", "-m", "8192"),
            bad("-o", "uc-pingpong", "-o")));
    }

    @Test
    void shouldRefuseBadUdPingpongInput() {
        assertRefused(plus(pingpongCommon("ud-pingpong"), bad("'--size'", "ud-pingpong", "-s", "-5")));
    }

    @Test
    void shouldRefuseBadSrdPingpongInput() {
        assertRefused(plus(pingpongCommon("srd-pingpong"), bad("'--size'", "srd-pingpong", "-s", "-5")));
    }

    @Test
    void shouldRefuseBadSrqPingpongInput() {
        assertRefused(plus(pingpongCommon("srq-pingpong"), bad("'--num-qp'", "srq-pingpong", "-q", "0"),
            bad("'--size'", "srq-pingpong", "-s", "0"), bad("'--mtu'", "srq-pingpong", "-m", "3000")));
    }

    @Test
    void shouldRefuseBadDevinfoInput() {
        assertRefused(List.of(bad("'--udp-port'", "devinfo", "--udp-port", "70000"),
            bad("'--udp-port'", "devinfo", "--udp-port", "-5"), bad("'--ib-port'", "devinfo", "-i", "0"),
            bad("'--ib-port'", "devinfo", "-i", "2"), bad("wasn't found", "devinfo", "-d", "mlx5_0"),
            bad("'--ip'", "devinfo", "--ip", "1.2.3"), bad("'--ip'", "devinfo", "--ip", "256.1.1.1")));
    }

    @Test
    void shouldRefuseBadDemoInput() {
        assertRefused(List.of(bad("'--loss'", "demo", "--loss", "2"), bad("'--loss'", "demo", "--loss", "-0.5"),
            bad("'--size'", "demo", "-s", "0"), bad("'--iters'", "demo", "-n", "0"),
            bad("'--link-mode'", "demo", "--link-mode", "FOO"), bad("'--udp-port'", "demo", "--udp-port", "65536"),
            bad("'--pcap'", "demo", "--pcap", "/nonexistent/x")));
    }

    @Test
    void shouldRefuseBadBenchLinkInput() {
        assertRefused(List.of(bad("'--paths'", "bench", "link", "--paths", "FOO"),
            bad("'--payload'", "bench", "link", "--payload", "70000"),
            bad("'--seconds'", "bench", "link", "--seconds", "-1"), bad("'--batch'", "bench", "link", "--batch", "0"),
            bad("'--batch'", "bench", "link", "--batch", "2000"), bad("'--repeat'", "bench", "link", "--repeat", "0")));
    }

    @Test
    void shouldRefuseBadBenchPingpongInput() {
        assertRefused(List.of(bad("'--ip-a'", "bench", "pingpong", "--ip-a", "10.255.255.1"),
            bad("'--sizes'", "bench", "pingpong", "--sizes", "4K,0"), bad("'--mtu'", "bench", "pingpong", "-m", "100"),
            bad("'--iters'", "bench", "pingpong", "--iters", "0"), bad("'--rounds'", "bench", "pingpong", "--rounds", "0"),
            bad("--send-window", "bench", "pingpong", "--send-window", "65"),
            bad("--memory", "bench", "pingpong", "--memory", "heap"),
            bad("--sizes", "bench", "pingpong", "--sizes", "70000")));
    }

    @Test
    void shouldRefuseBadBenchMkeyInput() {
        assertRefused(List.of(bad("--size", "bench", "mkey", "-s", "1000"), bad("--depth", "bench", "mkey", "--depth", "65"),
            bad("'--messages'", "bench", "mkey", "--messages", "0")));
    }

    @Test
    void shouldRefuseBadRegBenchInputBeforeMeasuring() {
        assertRefused(List.of(bad("'--csv'", "reg-bench", "--csv", "/nonexistent/x.csv"),
            bad("'--svg'", "reg-bench", "--svg", "/nonexistent/x.svg"), bad("'--runs'", "reg-bench", "--runs", "0"),
            bad("'--sizes'", "reg-bench", "--sizes", "4Q"), bad("unknown kind", "reg-bench", "--kinds", "hugepage"),
            bad("'--mtu'", "reg-bench", "--mtu", "1000"), bad("'--bw-seconds'", "reg-bench", "--bw-seconds", "0")));
    }

    @Test
    void shouldRefuseBadRcStreamInput() {
        assertRefused(List.of(bad("--size", "rc-stream", "-s", "4"), bad("'--messages'", "rc-stream", "-n", "0"),
            bad("--window", "rc-stream", "-w", "0"), bad("'--mtu'", "rc-stream", "-m", "1000"),
            bad("--retry-cnt", "rc-stream", "--retry-cnt", "8"), bad("'--udp-port'", "rc-stream", "--udp-port", "0")));
    }

    @Test
    void shouldRefuseBadRpingInput() {
        assertRefused(List.of(bad("Invalid size", "rping", "-s", "-S", "5"), bad("'-C'", "rping", "-s", "-C", "-1"),
            bad("exactly one of -s", "rping", "-s", "-c"), bad("needs -a", "rping", "-c"),
            bad("'-p'", "rping", "-s", "-p", "99999")));
    }

    @Test
    void shouldRefuseBadSimInputAndUnknownHelpTopics() {
        assertRefused(List.of(bad("'--seeds'", "sim", "--seeds", "0"), bad("'--ops'", "sim", "--ops", "-3"),
            bad("no such command 'nope'", "help", "bench", "nope")));
    }
}
