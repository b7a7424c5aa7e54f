package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs scripts/netns-odp-pingpong.sh: {@code rc-pingpong -g 1 -O} between two network namespaces
 * joined by a veth pair (10.77.0.1 and 10.77.0.2, inside those namespaces only). jrxe is started
 * from the test class path through JRXE_CMD, since the jar is built after the tests. Fails when
 * iproute2 is missing (CI installs it); skipped only when not root.
 */
class NetnsOdpPingpongTest {
    private static final Path SCRIPT = Path.of(System.getProperty("basedir", "."), "scripts", "netns-odp-pingpong.sh");
    private static final long TIMEOUT_SECONDS = 300;
    private static final Pattern NAMESPACES = Pattern.compile("netns-odp-pingpong: (\\S+) \\(10\\.77\\.0\\.1\\) <-> "
        + "(\\S+) \\(10\\.77\\.0\\.2\\)");

    @BeforeAll
    static void requireIpAndRoot() throws IOException {
        assertThat(findOnPath("ip")).as("iproute2's 'ip' is needed for the netns check (CI installs it)").isNotNull();
        Assumptions.assumeTrue(effectiveUid() == 0, "network namespaces need root; skipping the netns check");
    }

    private static Path findOnPath(String name) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin:/usr/bin:/bin";
        for (String d : path.split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
                return Path.of(d, name);
            }
        }
        return null;
    }

    private static long effectiveUid() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("Uid:")) {
                return Long.parseLong(line.split("\\s+")[2]); // real, effective, saved, fs
            }
        }
        throw new IOException("no Uid line in /proc/self/status");
    }

    /** Runs the script with {@code args}; returns its exit status and combined output. */
    private static Result runScript(String... args) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("JRXE_CMD", String.join(" ", ChildJvm.command(List.of("-XX:+UseSerialGC", "-Xmx256m"), List.of())));
        Path out = Files.createTempFile("netns-odp", ".out");
        try {
            Process p = pb.redirectOutput(out.toFile()).start();
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroy(); // TERM: the script's trap still removes its namespaces
                p.waitFor(10, TimeUnit.SECONDS);
                p.destroyForcibly().waitFor();
                throw new AssertionError("script did not end in " + TIMEOUT_SECONDS + " s:\n" + Files.readString(out));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    record Result(int exit, String output) {
        List<String> namespaces() {
            Matcher m = NAMESPACES.matcher(output);
            assertThat(m.find()).as("script names its namespaces: %s", output).isTrue();
            return List.of(m.group(1), m.group(2));
        }
    }

    private static void assertNamespacesRemoved(List<String> names) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
        String list = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        for (String n : names) {
            assertThat(list).as("namespace %s removed", n).doesNotContain(n);
        }
    }

    @Test
    void shouldPingPongWithImplicitOdpBetweenTwoNamespaces() throws Exception {
        Result r = runScript("-n", "200");
        assertThat(r.exit()).as(r.output()).isZero();
        for (String side : List.of("server", "client")) {
            assertThat(r.output().lines().filter(l -> l.matches(side + ": 200 iters in \\S+ seconds = \\S+ usec/iter")))
                .as(r.output()).hasSize(1);
            assertThat(r.output().lines().filter(l -> l.matches(side + ": 1638400 bytes in \\S+ seconds = \\S+ Mbit/sec")))
                .as(r.output()).hasSize(1);
        }
        assertThat(r.output()).contains("server:   local address:  LID 0x0000", "GID ::ffff:10.77.0.1",
            "GID ::ffff:10.77.0.2");
        assertNamespacesRemoved(r.namespaces());
    }

    @Test
    void shouldFailAndStillRemoveTheNamespacesWhenASideFails() throws Exception {
        Result r = runScript("-m", "1000"); // not an MTU: both sides print usage and exit 1
        assertThat(r.exit()).as(r.output()).isNotZero();
        assertNamespacesRemoved(r.namespaces());
    }
}
