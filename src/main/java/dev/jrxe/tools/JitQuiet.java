package dev.jrxe.tools;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the JIT has been idle for {@link #QUIET_NANOS}: it compiled for at most
 * {@link #QUIET_COMPILE_MILLIS} meanwhile (small compilations of other code, the JVM's own or a
 * timer's, keep coming now and then). Two measures: the compilation MXBean's total, which counts
 * a compilation once it is done (a long one looks like quiet while it runs), or
 * ({@link #byCompilerThreads}) the CPU time of the threads the JVM names "C1 CompilerThread" and
 * "C2 CompilerThread" (Linux's /proc/self/task), which counts it while it runs. Compilations still queued when a tool's measured loop starts take a core from two
 * busy processes on a small machine: the tools' warm-ups ({@link HotPathWarmup},
 * {@link PerftestWarmup}) run until the JIT is quiet.
 */
final class JitQuiet {
    /** How long the JIT must have (almost) not compiled. */
    static final long QUIET_NANOS = 300_000_000L;
    /** What it may compile meanwhile. */
    static final long QUIET_COMPILE_MILLIS = 5;

    private static final Path TASKS = Path.of("/proc/self/task");
    private final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    private final boolean threads;
    /** The total to report instead of measuring one (tests of what waits for the quiet). */
    private final java.util.function.LongSupplier given;
    private long lastTotal = -1;
    private long since = System.nanoTime();

    /** By the compilation MXBean. */
    JitQuiet() {
        this(false, null);
    }

    private JitQuiet(boolean threads, java.util.function.LongSupplier given) {
        this.threads = threads;
        this.given = given;
    }

    /** A JIT whose compilation total (ms) is {@code millis}'s: tests set when it compiles. */
    static JitQuiet reporting(java.util.function.LongSupplier millis) {
        return new JitQuiet(false, millis);
    }

    /** A JIT that compiles for ever: {@link #quiet} is always false. */
    static JitQuiet never() {
        long[] total = {0};
        return reporting(() -> total[0] += 2 * QUIET_COMPILE_MILLIS);
    }

    /** By the compiler threads' CPU time where /proc tells it, else by the MXBean. */
    static JitQuiet byCompilerThreads() {
        return new JitQuiet(compilerThreadNanos() >= 0, null);
    }

    /** Compiling so far (ms): the compiler threads' CPU time, or the MXBean's total; -1 without either. */
    long total() {
        if (given != null) {
            return given.getAsLong();
        }
        if (threads) {
            return compilerThreadNanos() / 1_000_000;
        }
        return jit == null || !jit.isCompilationTimeMonitoringSupported() ? -1 : jit.getTotalCompilationTime();
    }

    /** Looks at the JIT now: whether it has been quiet for {@link #QUIET_NANOS} (never without a measure). */
    boolean quiet() {
        long total = total();
        if (total < 0) {
            return false;
        }
        long t = System.nanoTime();
        if (lastTotal < 0 || total - lastTotal > QUIET_COMPILE_MILLIS) {
            lastTotal = total;
            since = t;
            return false;
        }
        return t - since >= QUIET_NANOS;
    }

    /** The CPU time (ns, schedstat) of this process's compiler threads, or -1 where /proc does not tell. */
    static long compilerThreadNanos() {
        long sum = 0;
        boolean found = false;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    String comm = Files.readString(task.resolve("comm")).strip();
                    if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
                        String stat = Files.readString(task.resolve("schedstat"));
                        sum += Long.parseLong(stat.substring(0, stat.indexOf(' ')));
                        found = true;
                    }
                } catch (IOException | RuntimeException e) {
                    // a thread that ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return found ? sum : -1;
    }
}
