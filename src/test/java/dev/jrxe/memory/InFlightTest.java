package dev.jrxe.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Access;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * An invalidation waits for the accesses already running through what it invalidates (a device
 * of several engines runs them on two threads at once), and accesses after it are refused.
 */
class InFlightTest {
    private static final int PD = 7;

    /** Runs {@code invalidation} on a thread while an access is counted in; true if it returned before the access ended. */
    private static boolean returnsDuringAccess(InFlight gate, Runnable invalidation) throws InterruptedException {
        gate.enter(); // an access that passed its check and is still copying
        AtomicBoolean returned = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            started.countDown();
            invalidation.run();
            returned.set(true);
        });
        started.await();
        t.join(300); // long enough for an invalidation that does not wait to return
        boolean early = returned.get();
        gate.exit();
        t.join(10_000);
        assertThat(returned).as("the invalidation returns once the access is over").isTrue();
        return early;
    }

    @Test
    void shouldMakeTheWaiterWaitUntilEveryCountedAccessIsOver() throws InterruptedException {
        InFlight gate = new InFlight();
        assertThat(returnsDuringAccess(gate, gate::awaitQuiet)).isFalse();
        assertThat(gate.running()).isZero();
        gate.awaitQuiet(); // nothing running: returns at once
    }

    @Test
    void shouldNotCompleteAWindowsInvalidationWhileAnAccessThroughItRuns() throws InterruptedException {
        KeyTable table = new KeyTable(MemoryConfig.fromConfiguration());
        MemorySegment mem = NativeMemory.map(4096);
        try {
            Region mr = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE | Access.MW_BIND | Access.REMOTE_WRITE);
            MemoryWindow mw = MemoryWindows.alloc(table, PD, MemoryWindow.TYPE_2);
            int rkey = mw.key() ^ 1; // a bind gives the window a new 8-bit key
            assertThat(MemoryWindows.bind(mw, mw.key(), PD, 5, mr, mem.address(), 64, Access.REMOTE_WRITE, rkey)).isZero();
            MemoryWindow.Binding b = mw.binding();
            MemorySegment src = MemorySegment.ofArray(new byte[8]);
            assertThat(b.write(PD, Access.REMOTE_WRITE, mem.address(), src, 0, 8)).isEqualTo(MemStatus.OK);
            assertThat(b.inFlight.running()).as("an access counts itself out").isZero();
            assertThat(returnsDuringAccess(b.inFlight, () -> MemoryWindows.invalidate(mw, PD, rkey))).isFalse();
            assertThat(b.write(PD, Access.REMOTE_WRITE, mem.address(), src, 0, 8))
                .as("an access after the invalidation").isEqualTo(MemStatus.INVALID_STATE);
            assertThat(b.inFlight.running()).isZero();
            MemoryWindows.dealloc(mw);
            mr.close();
        } finally {
            NativeMemory.unmap(mem);
        }
    }
}
