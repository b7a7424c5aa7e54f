package dev.jrxe.tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code jrxe} command run in a separate JVM: the same java binary and class path as this one,
 * native access enabled, main class {@link Main}. Benchmarks use it for the second process; tests
 * use it to run two tools against each other. Its stdout is read line by line; stderr is inherited
 * unless {@code captureStderr}.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final BufferedReader stdout;

    private ChildJvm(Process process) {
        this.process = process;
        this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** The command line that runs {@code jrxe args...} in a new JVM with {@code jvmOptions}. */
    public static List<String> command(List<String> jvmOptions, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Main.class.getName());
        cmd.addAll(args);
        return cmd;
    }

    /** Starts {@code jrxe args...}; stderr goes to ours, or into stdout when {@code mergeStderr}. */
    public static ChildJvm start(List<String> jvmOptions, List<String> args, boolean mergeStderr) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command(jvmOptions, args));
        if (mergeStderr) {
            pb.redirectErrorStream(true);
        } else {
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        }
        return new ChildJvm(pb.start());
    }

    public Process process() {
        return process;
    }

    /** The next line of its stdout, or null at its end. Blocks; pair with {@link #close} on a deadline. */
    public String readLine() throws IOException {
        return stdout.readLine();
    }

    /** Waits up to {@code timeout} for the exit code; kills it and returns -1 when it does not exit. */
    public int waitFor(long timeout, TimeUnit unit) throws InterruptedException {
        if (process.waitFor(timeout, unit)) {
            return process.exitValue();
        }
        kill();
        return -1;
    }

    /** Kills it and its children, waiting a little for them to go. */
    public void kill() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
        try {
            stdout.close();
        } catch (IOException ignored) {
            // the pipe is gone with the process
        }
    }
}
