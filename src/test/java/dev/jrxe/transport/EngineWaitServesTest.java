package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread that waits for a completion event serves the engine itself ({@link Engine#serveUntil}):
 * it sleeps in the link, so the packet it waits for wakes it and nobody else, while the progress
 * thread keeps out; it gives the engine up to a thread that polls it and to a newer waiter.
 */
class EngineWaitServesTest {
    /** The default tuning, with idle sleeps as long as {@code maxSleep}. */
    private static EngineTuning tuning(long maxSleep) {
        EngineTuning t = EngineTuning.fromConfiguration();
        return new EngineTuning(t.appActiveNanos(), t.spinRounds(), maxSleep, t.pollYieldEvery(), t.ackHoldNanos(),
            t.lazyAckNanos(), t.srdPaths(), t.srdTimeoutNanos(), t.srdMaxPeers(), t.maxPayload(), true);
    }

    /** A harness with a progress thread on a clock that stands, idle sleeps of {@code maxSleep}. */
    private static EngineHarness harness(long maxSleep) {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        return new EngineHarness(new EngineOptions(true, clock::get, 0, tuning(maxSleep)));
    }

    private static CompletableFuture<Integer> waitServing(Engine engine, BooleanSupplier ready, long nanos) {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        Thread.ofPlatform().name("waiter").start(() -> {
            try {
                result.complete(engine.serveUntil(ready, System.nanoTime() + nanos));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    /** Waits until {@code t} sleeps in the engine's link (the test's timeout bounds it). */
    private static void awaitSleeper(Engine engine, Thread t) throws InterruptedException {
        while (engine.sleeper() != t) {
            Thread.sleep(1);
        }
    }

    private static Thread threadNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst()
            .orElseThrow();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldServeThePacketAThreadWaitsForOnThatThreadWhileTheProgressThreadKeepsOut() throws Exception {
        MemorySegment mem = dev.jrxe.memory.NativeMemory.map(64 * 1024);
        // idle sleeps of 10 minutes: only the packet itself can end the waiter's sleep in the link
        try (EngineHarness h = harness(600_000_000_000L)) {
            Qp qp = EngineProgressTest.connectWithReceive(h, mem);
            AtomicBoolean progressThreadSlept = new AtomicBoolean();
            CompletableFuture<Integer> served = waitServing(h.engine, () -> h.cq.peek() != null, TimeUnit.MINUTES.toNanos(10));
            Thread waiter = threadNamed("waiter");
            awaitSleeper(h.engine, waiter);
            for (int i = 0; i < 100; i++) { // 100 ms of looking: the progress thread never sleeps in the link
                progressThreadSlept.compareAndSet(false, h.engine.sleeper() == h.engine.progressThread());
                Thread.sleep(1);
            }
            EngineProgressTest.injectSend(h, qp); // the memory link unparks the thread sleeping in it
            assertThat(served.get()).isEqualTo(Engine.SERVED_READY);
            assertThat(h.cq.peek()).as("the SEND completed").isNotNull();
            assertThat(progressThreadSlept).as("the progress thread slept in the link").isFalse();
        } finally {
            dev.jrxe.memory.NativeMemory.unmap(mem);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldSendWhatAnotherThreadPostedDuringTheCycleThatEndsTheWait() throws Exception {
        MemorySegment mem = dev.jrxe.memory.NativeMemory.map(64 * 1024);
        try (EngineHarness h = harness(600_000_000_000L)) {
            Qp qp = EngineProgressTest.connectWithReceive(h, mem);
            AtomicBoolean posted = new AtomicBoolean();
            // the post comes while the serving cycle holds the engine: its kick leaves the work to
            // that cycle's thread (on a clock that stands, the progress thread would never take it)
            BooleanSupplier ready = () -> {
                if (h.cq.peek() == null) {
                    return false;
                }
                if (posted.compareAndSet(false, true)) {
                    Thread poster = Thread.ofPlatform().start(() -> {
                        EngineHarness.postInlineSend(qp, 9);
                        h.engine.kick();
                    });
                    joinQuietly(poster);
                }
                return true;
            };
            CompletableFuture<Integer> served = waitServing(h.engine, ready, TimeUnit.MINUTES.toNanos(10));
            awaitSleeper(h.engine, threadNamed("waiter"));
            EngineProgressTest.injectSend(h, qp);
            assertThat(served.get()).isEqualTo(Engine.SERVED_READY);
            assertThat(h.sent()).extracting(EngineHarness.Sent::opcode)
                .as("the SEND posted during the cycle left before the waiter returned")
                .contains(dev.jrxe.wire.Opcodes.RC_SEND_ONLY);
        } finally {
            dev.jrxe.memory.NativeMemory.unmap(mem);
        }
    }

    private static void joinQuietly(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldWakeAServingThreadWhenAnotherThreadMakesItReady() throws Exception {
        try (EngineHarness h = harness(600_000_000_000L)) {
            AtomicBoolean fired = new AtomicBoolean();
            CompletableFuture<Integer> served = waitServing(h.engine, fired::get, TimeUnit.MINUTES.toNanos(10));
            awaitSleeper(h.engine, threadNamed("waiter"));
            fired.set(true);
            h.engine.wakeServer(); // what a channel does after an event fired outside the waiter's cycles
            assertThat(served.get()).isEqualTo(Engine.SERVED_READY);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldHandTheEngineToTheNewestWaitingThread() throws Exception {
        MemorySegment mem = dev.jrxe.memory.NativeMemory.map(64 * 1024);
        try (EngineHarness h = harness(600_000_000_000L)) {
            Qp qp = EngineProgressTest.connectWithReceive(h, mem);
            CompletableFuture<Integer> first = waitServing(h.engine, () -> false, TimeUnit.MINUTES.toNanos(10));
            Thread firstThread = threadNamed("waiter");
            awaitSleeper(h.engine, firstThread);
            firstThread.setName("first");
            CompletableFuture<Integer> second = waitServing(h.engine, () -> h.cq.peek() != null, TimeUnit.MINUTES.toNanos(10));
            assertThat(first.get()).as("the first waiter steps aside").isEqualTo(Engine.NOT_SERVED);
            awaitSleeper(h.engine, threadNamed("waiter"));
            EngineProgressTest.injectSend(h, qp);
            assertThat(second.get()).isEqualTo(Engine.SERVED_READY);
        } finally {
            dev.jrxe.memory.NativeMemory.unmap(mem);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldLeaveTheEngineToAThreadThatPollsIt() throws Exception {
        try (EngineHarness h = harness(600_000_000_000L)) {
            while (!h.engine.driveFromApp()) { // this thread polls, on a clock that stands: "just now" forever
                Thread.onSpinWait();
            }
            assertThat(waitServing(h.engine, () -> false, TimeUnit.MINUTES.toNanos(10)).get())
                .as("a waiter would be woken for nothing by every packet the poller takes").isEqualTo(Engine.NOT_SERVED);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldReturnWhenTheDeadlinePasses() throws Exception {
        try (EngineHarness h = harness(1_000_000)) {
            assertThat(h.engine.serveUntil(() -> false, System.nanoTime() + 20_000_000)).isEqualTo(Engine.SERVED_TIMED_OUT);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldNotServeAnEngineWithoutProgressThreadNorWhenTurnedOff() throws Exception {
        try (EngineHarness manual = new EngineHarness(null, System::nanoTime, false)) {
            assertThat(manual.engine.serveUntil(() -> false, System.nanoTime() + 1_000_000_000L)).isEqualTo(Engine.NOT_SERVED);
        }
        EngineTuning t = tuning(1_000_000);
        EngineTuning off = new EngineTuning(t.appActiveNanos(), t.spinRounds(), t.maxSleepNanos(), t.pollYieldEvery(),
            t.ackHoldNanos(), t.lazyAckNanos(), t.srdPaths(), t.srdTimeoutNanos(), t.srdMaxPeers(), t.maxPayload(), false);
        try (EngineHarness h = new EngineHarness(new EngineOptions(true, System::nanoTime, 0, off))) {
            assertThat(h.engine.serveUntil(() -> false, System.nanoTime() + 1_000_000_000L)).isEqualTo(Engine.NOT_SERVED);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldLetTheDeviceCloseUnderAThreadThatWaitsServingIt() throws Exception {
        CompletableFuture<Integer> served;
        try (EngineHarness h = harness(600_000_000_000L)) {
            served = waitServing(h.engine, () -> false, TimeUnit.MINUTES.toNanos(10));
            awaitSleeper(h.engine, threadNamed("waiter"));
        } // closes the engine: wakes the waiter and waits for it to leave the link
        assertThat(served.get()).isEqualTo(Engine.NOT_SERVED);
    }
}
