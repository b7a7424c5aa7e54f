package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.SendFlags;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * An idle device costs next to nothing: its progress thread sleeps in the kernel for up to
 * {@code jrxe.engine.idleSleepNanos} (100 ms) when nothing is under way, so over two idle seconds
 * it wakes a few dozen times, not the two thousand times a 1 ms sleep would (docs/BENCHMARKS.md:
 * 2.1% of a core before, 0.3% after). A post to an idle device still gets its timers served: the
 * post wakes the sleeper, and a lost packet's retransmission is not held up by the long sleep.
 */
class IdleCostTest {
    private static long voluntarySwitches(Thread t) throws IOException {
        for (Path task : Files.list(Path.of("/proc/self/task")).toList()) {
            String comm = Files.readString(task.resolve("comm")).trim();
            // comm holds the first 15 characters of the thread's name
            if (t.getName().startsWith(comm)) {
                for (String line : Files.readAllLines(task.resolve("status"))) {
                    if (line.startsWith("voluntary_ctxt_switches:")) {
                        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    }
                }
            }
        }
        throw new AssertionError("no task for " + t.getName());
    }

    @Test
    void shouldSleepLongWhenIdleAndStillServeTimersAfterAPost() throws Exception {
        try (RcFixture f = new RcFixture(DeviceConfig.of("idle-a", "127.0.0.2"), DeviceConfig.of("idle-b", "127.0.0.3"),
            1 << 16)) {
            f.connect();
            Thread progress = f.a.engine().progressThread();
            Thread.sleep(300); // whatever connecting left to do settles
            long before = voluntarySwitches(progress);
            Thread.sleep(2000);
            long wakeups = voluntarySwitches(progress) - before;
            System.out.printf("idle device: %d progress-thread wakeups in 2 s%n", wakeups);
            assertThat(wakeups).as("wakeups of an idle progress thread in 2 s").isLessThan(200);

            // now a SEND whose first transmission is lost, posted to the idle device: its
            // retransmission timer (RC timeout 14, 67 ms) must fire while the application does not
            // drive the engine, so the progress thread must not sleep through it
            f.a.engine().withEngine(() -> f.a.link().dropFromSourcePort(f.qa.qp().srcPort, 1.0));
            f.qb.postRecv(new RecvWr().sge(f.bufB.address(), 64, f.mrb.lkey()));
            SendWr w = new SendWr().sge(f.bufA.address(), 64, f.mra.lkey());
            w.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(w);
            f.a.engine().withEngine(() -> f.a.link().dropFromSourcePort(f.qa.qp().srcPort, 0));
            Thread.sleep(500); // the application does not drive the engine: the progress thread must
            WorkCompletion[] one = {new WorkCompletion()};
            assertThat(f.cqb.poll(one)).as("delivered by the progress thread's retransmission").isEqualTo(1);
        }
    }
}
