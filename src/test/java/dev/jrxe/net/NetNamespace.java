package dev.jrxe.net;

import dev.jrxe.sys.Namespaces;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A network namespace a test creates for itself (needs root): only its own lo, up, with
 * 127.0.0.0/8. Sockets opened by {@link #call} live in it, so tests can use port 4791 and change
 * lo's offloads without touching the host.
 */
final class NetNamespace implements AutoCloseable {
    private static final AtomicInteger COUNTER = new AtomicInteger();

    final String name;

    NetNamespace() throws IOException, InterruptedException {
        name = "jrxe-t" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
        check(Tools.run("ip", "netns", "add", name), "ip netns add (the capture tests need root)");
        check(exec("ip", "link", "set", "lo", "up"), "lo up");
    }

    private static void check(Tools.Result r, String what) {
        if (r.exit() != 0) {
            throw new IllegalStateException(what + " failed: " + r.out());
        }
    }

    Tools.Result exec(String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", name));
        cmd.addAll(List.of(command));
        return Tools.run(cmd);
    }

    /** Turns off UDP segmentation offload on the namespace's lo, so GSO trains are cut before the capture tap. */
    void segmentBeforeTap() throws IOException, InterruptedException {
        check(exec("ethtool", "-K", "lo", "tx-udp-segmentation", "off"), "ethtool -K lo tx-udp-segmentation off");
    }

    /** Starts tcpdump on the namespace's lo writing {@code file}; returns once it listens. */
    Process tcpdump(Path file, String filter) throws IOException {
        return tcpdump(List.of(), file, filter);
    }

    /** Like {@link #tcpdump(Path, String)}, but tcpdump exits by itself after {@code count} frames. */
    Process tcpdumpCounting(Path file, String filter, int count) throws IOException {
        return tcpdump(List.of("-c", Integer.toString(count)), file, filter);
    }

    private Process tcpdump(List<String> extra, Path file, String filter) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", name, "tcpdump", "-i", "lo", "-n", "-U",
                "--immediate-mode", "-s", "0", "-B", "16384", "-w", file.toString()));
        cmd.addAll(extra);
        cmd.add(filter);
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = err.readLine()) != null) {
            seen.append(line).append('\n');
            if (line.contains("listening on")) {
                Thread.ofPlatform().daemon().start(() -> {
                    try {
                        err.transferTo(java.io.Writer.nullWriter());
                    } catch (IOException ignored) {
                        // tcpdump ended
                    }
                });
                return p;
            }
        }
        throw new IllegalStateException("tcpdump did not start: " + seen);
    }

    /** Runs {@code task} on a thread that entered this namespace (sockets it opens stay in it). */
    <T> T call(Callable<T> task) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            int r = Namespaces.enterNetwork(Path.of("/run/netns", name));
            if (r != 0) {
                failure.set(new IllegalStateException("setns " + name + ": errno " + -r));
                return;
            }
            try {
                result.set(task.call());
            } catch (Exception e) {
                failure.set(e);
            }
        });
        t.join();
        if (failure.get() != null) {
            throw failure.get();
        }
        return result.get();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        Tools.run("ip", "netns", "del", name);
    }
}
