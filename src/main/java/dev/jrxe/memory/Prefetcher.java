package dev.jrxe.memory;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Runs asynchronous (best-effort) prefetches on one daemon thread, like rxe's work queue. */
final class Prefetcher {
    private static final ExecutorService EXECUTOR = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jrxe-prefetch");
        t.setDaemon(true);
        return t;
    });

    private Prefetcher() {
    }

    static void submit(Runnable work) {
        EXECUTOR.execute(work);
    }
}
