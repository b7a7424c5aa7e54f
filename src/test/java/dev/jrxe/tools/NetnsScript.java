package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * One of the scripts/netns-*.sh checks, run from a test: jrxe is started from the test class path
 * through JRXE_CMD (the jar is built after the tests). The tools a script needs must be there (CI
 * installs them); the check is skipped only when not root.
 */
final class NetnsScript {
    private final Path script;
    private final long timeoutSeconds;

    /** The output and exit status of one run. */
    record Result(int exit, String output) {
        /** The two namespaces a line "NAME: NS (ADDR) <-> NS (ADDR)" of the script names. */
        List<String> namespaces(String name) {
            Matcher m = Pattern.compile(Pattern.quote(name) + ": (\\S+) \\(\\S+\\) <-> (\\S+) \\(\\S+\\)").matcher(output);
            assertThat(m.find()).as("script names its namespaces: %s", output).isTrue();
            return List.of(m.group(1), m.group(2));
        }
    }

    NetnsScript(String fileName, long timeoutSeconds) {
        this.script = Path.of(System.getProperty("basedir", "."), "scripts", fileName);
        this.timeoutSeconds = timeoutSeconds;
    }

    /** Fails when one of {@code tools} is missing; skips the test class when not root. */
    static void require(String... tools) throws IOException {
        for (String t : tools) {
            assertThat(findOnPath(t)).as("'%s' is needed for the netns checks (CI installs it)", t).isNotNull();
        }
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
    Result run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("bash", script.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("JRXE_CMD",
            String.join(" ", ChildJvm.command(List.of("-XX:+UseSerialGC", "-Xmx256m"), List.of())));
        Path out = Files.createTempFile("netns", ".out");
        try {
            Process p = pb.redirectOutput(out.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroy(); // TERM: the script's trap still removes its namespaces
                p.waitFor(10, TimeUnit.SECONDS);
                p.destroyForcibly().waitFor();
                throw new AssertionError("script did not end in " + timeoutSeconds + " s:\n" + Files.readString(out));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    static void assertNamespacesRemoved(List<String> names) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
        String list = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        for (String n : names) {
            assertThat(list).as("namespace %s removed", n).doesNotContain(n);
        }
    }
}
