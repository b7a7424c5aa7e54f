package common;

import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.WorkCompletion;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * What the examples share and is not RDMA: flags, waiting for a completion with a deadline,
 * running the parties of a demo side by side, and latency percentiles. Everything RDMA is in the
 * examples themselves, through jrxe's exported API only.
 */
public final class Example {
    private Example() {
    }

    /** A command line that cannot be used: the example prints why, then its usage (exit 2). */
    public static final class UsageError extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public UsageError(String message) {
            super(message);
        }
    }

    /** {@code --name value} flags and {@code --flag} switches, then positional words. */
    public static final class Args {
        private final Map<String, String> flags = new HashMap<>();
        private final List<String> words = new ArrayList<>();

        public static Args parse(String[] argv, String... switches) {
            Args a = new Args();
            List<String> sw = Arrays.asList(switches);
            for (int i = 0; i < argv.length; i++) {
                String s = argv[i];
                if (s.startsWith("--")) {
                    String name = s.substring(2);
                    int eq = name.indexOf('=');
                    if (eq >= 0) {
                        a.flags.put(name.substring(0, eq), name.substring(eq + 1));
                    } else if (sw.contains(name)) {
                        a.flags.put(name, "true");
                    } else if (i + 1 < argv.length) {
                        a.flags.put(name, argv[++i]);
                    } else {
                        throw new UsageError("--" + name + " needs a value");
                    }
                } else {
                    a.words.add(s);
                }
            }
            return a;
        }

        public String get(String name, String def) {
            return flags.getOrDefault(name, def);
        }

        public int getInt(String name, int def) {
            String v = flags.get(name);
            try {
                return v == null ? def : Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new UsageError("--" + name + " wants a number, not '" + v + "'");
            }
        }

        public boolean has(String name) {
            return flags.containsKey(name);
        }

        /** The first positional word (the role), or {@code def}. */
        public String role(String def) {
            return words.isEmpty() ? def : words.get(0);
        }
    }

    /** {@code host:port} or {@code host} (then {@code port}). */
    public static InetSocketAddress address(String text, int port) {
        int colon = text.lastIndexOf(':');
        return colon < 0 ? new InetSocketAddress(text, port)
            : new InetSocketAddress(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
    }

    /**
     * Polls {@code cq} (which drives the device: no progress thread needed) until one completion
     * is there, and fails on an error status or when nothing came within {@code timeoutMillis}.
     */
    public static WorkCompletion await(CompletionQueue cq, WorkCompletion[] one, long timeoutMillis) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (cq.poll(one) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("no completion within " + timeoutMillis + " ms");
            }
            Thread.onSpinWait();
        }
        WorkCompletion wc = one[0];
        if (wc.status != WcStatus.SUCCESS) {
            throw new IOException("work request " + wc.wrId + " failed: " + WcStatus.str(wc.status)
                + " (opcode " + wc.opcode + ")");
        }
        return wc;
    }

    /**
     * Polls until a completion with {@code opcode} is there, passing over SEND completions (an
     * earlier send's may come after the answer it asked for); any other opcode is a failure.
     */
    public static WorkCompletion awaitOpcode(CompletionQueue cq, WorkCompletion[] one, int opcode, long timeoutMillis)
        throws IOException {
        while (true) {
            WorkCompletion wc = await(cq, one, timeoutMillis);
            if (wc.opcode == opcode) {
                return wc;
            }
            if (wc.opcode != WcOpcode.SEND) {
                throw new IOException("unexpected completion, opcode " + wc.opcode);
            }
        }
    }

    /** Runs the parties of a demo on their own threads; the first failure fails the demo. */
    public static void together(long timeoutSeconds, List<Callable<Void>> parties) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(parties.size());
        try {
            List<Future<Void>> running = new ArrayList<>();
            for (var p : parties) {
                running.add(pool.submit(p));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            for (Future<Void> f : running) {
                try {
                    f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof Exception x ? x : e;
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** "p50 12.3 us, p99 45.6 us, max 78.9 us" of nanosecond samples (sorted in place). */
    public static String percentiles(long[] nanos, int n) {
        Arrays.sort(nanos, 0, n);
        return String.format("p50 %.1f us, p99 %.1f us, max %.1f us",
            nanos[(n - 1) / 2] / 1e3, nanos[(int) ((n - 1) * 0.99)] / 1e3, nanos[n - 1] / 1e3);
    }

    /** An example's work once its command line is parsed: returns the exit code. */
    public interface Body {
        int run(Args args, PrintStream out) throws Exception;
    }

    /**
     * Parses {@code argv} and runs {@code body}: {@code --help} prints {@code usage} (exit 0);
     * a {@link UsageError} (a bad flag, value or role) prints why and the usage (exit 2).
     */
    public static int run(String[] argv, PrintStream out, String usage, Body body) throws Exception {
        try {
            Args a = Args.parse(argv, "help");
            if (a.has("help")) {
                out.print(usage);
                return 0;
            }
            return body.run(a, out);
        } catch (UsageError e) {
            out.println(e.getMessage());
            out.print(usage);
            return 2;
        }
    }

    /** The role word was none of the example's. */
    public static UsageError unknownRole(Args a) {
        return new UsageError("unknown role '" + a.role("") + "'");
    }

    /** Fails the command line with {@code message} unless {@code ok}. */
    public static void check(boolean ok, String message) {
        if (!ok) {
            throw new UsageError(message);
        }
    }
}
