package dev.jrxe.tools;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A jrxe command in a child JVM whose stdout and stderr lines are collected as they come. */
final class ToolProcess implements AutoCloseable {
    private final ChildJvm jvm;
    private final List<String> lines = new ArrayList<>();
    private final CountDownLatch drained = new CountDownLatch(1);

    private ToolProcess(ChildJvm jvm) {
        this.jvm = jvm;
        Thread.ofVirtual().start(this::drain);
    }

    static ToolProcess start(String... args) throws IOException {
        return new ToolProcess(ChildJvm.start(List.of(), List.of(args), true));
    }

    private void drain() {
        try {
            for (String line; (line = jvm.readLine()) != null; ) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        } catch (IOException e) {
            // the process is gone
        } finally {
            drained.countDown();
        }
    }

    /** Waits until a line starting with {@code prefix} appeared; false on timeout. */
    boolean awaitLine(String prefix, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lines) {
            while (lines.stream().noneMatch(l -> l.startsWith(prefix))) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
            return true;
        }
    }

    /** Exit code, or -1 after killing it when it did not exit within the timeout. */
    int await(long timeout, TimeUnit unit) throws InterruptedException {
        int rc = jvm.waitFor(timeout, unit);
        drained.await(10, TimeUnit.SECONDS);
        return rc;
    }

    /** SIGKILL, as a crash or {@code kill -9} would end it: no shutdown hook, no goodbye on the wire. */
    void kill() throws InterruptedException {
        jvm.process().destroyForcibly();
        jvm.process().waitFor(10, TimeUnit.SECONDS);
    }

    List<String> lines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    String output() {
        return String.join("\n", lines());
    }

    @Override
    public void close() throws InterruptedException {
        jvm.close();
    }
}
