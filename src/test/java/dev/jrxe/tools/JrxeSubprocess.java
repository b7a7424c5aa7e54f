package dev.jrxe.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code dev.jrxe.tools.Main} in a child JVM started from the test classpath (the jar does not
 * exist yet when {@code mvn verify} runs the tests), its stdout and stderr going to one file.
 */
final class JrxeSubprocess implements AutoCloseable {
    private final Process process;
    private final Path output;

    private JrxeSubprocess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /** The command line that starts jrxe's CLI in a child JVM, without the subcommand. */
    static List<String> command() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // surefire's own class path property lists the real entries (java.class.path may be a booter jar)
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC", "-Xmx256m", "-cp", cp,
            Main.class.getName());
    }

    static JrxeSubprocess start(Path output, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(command());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        return new JrxeSubprocess(p, output);
    }

    String output() throws IOException {
        return Files.exists(output) ? Files.readString(output, StandardCharsets.UTF_8) : "";
    }

    /** Waits until a line starting with {@code prefix} was printed; false if the process ended or time ran out. */
    boolean awaitLine(String prefix, long timeout, TimeUnit unit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (System.nanoTime() < deadline) {
            if (output().lines().anyMatch(l -> l.startsWith(prefix))) {
                return true;
            }
            if (!process.isAlive()) {
                return output().lines().anyMatch(l -> l.startsWith(prefix));
            }
            Thread.sleep(50);
        }
        return false;
    }

    /** Exit status, or -1 (after killing the process) when it did not end in time. */
    int await(long timeout, TimeUnit unit) throws InterruptedException {
        if (!process.waitFor(timeout, unit)) {
            process.destroyForcibly().waitFor();
            return -1;
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly().waitFor();
        }
    }
}
