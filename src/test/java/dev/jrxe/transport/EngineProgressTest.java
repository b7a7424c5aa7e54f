package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.net.DatagramHandler;
import dev.jrxe.net.DatagramSealer;
import dev.jrxe.net.Link;
import dev.jrxe.net.LinkConfig;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.net.LinkMode;
import dev.jrxe.net.Links;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How the engine shares the CPU and the clock with the threads around it: its progress thread
 * must not spin against a thread that holds the engine nor on an idle device (measured as its CPU
 * time against wall time), and a QP's ACK timeout must start when
 * its packets have left, not when the duty cycle that built them began. Both once made a busy
 * 2-core machine retransmit although nothing was lost.
 */
class EngineProgressTest {
    private static final String ADDRESS = "127.0.0.4";

    /**
     * CPU time the progress thread uses over {@code millis} of wall time, as a fraction. A thread
     * that spins uses close to all of it (when it has a core); one that parks or sleeps in the
     * kernel uses little.
     */
    private static double cpuShare(Thread t, long millis) throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cpu0 = mx.getThreadCpuTime(t.threadId());
        long wall0 = System.nanoTime();
        Thread.sleep(millis);
        long cpu = mx.getThreadCpuTime(t.threadId()) - cpu0;
        return cpu / (double) (System.nanoTime() - wall0);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldParkTheProgressThreadWhileAnotherThreadHoldsTheEngine() throws Exception {
        try (Link link = realLink();
             Engine engine = new Engine("park", link, key -> null, (qp, type) -> { }, () -> { })) {
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread holder = Thread.ofPlatform().start(() -> engine.withEngine(() -> {
                held.countDown();
                awaitQuietly(release);
            }));
            held.await();
            double share = cpuShare(engine.progressThread(), 500);
            release.countDown();
            holder.join();
            assertThat(share).as("CPU share of the progress thread while another thread holds the engine")
                .isLessThan(0.2);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldSleepTheProgressThreadOfAnIdleDevice() throws Exception {
        try (Link link = realLink();
             Engine engine = new Engine("idle", link, key -> null, (qp, type) -> { }, () -> { })) {
            Thread.sleep(50); // past its first rounds
            assertThat(cpuShare(engine.progressThread(), 500)).as("CPU share of an idle device's progress thread")
                .isLessThan(0.2);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldNotWakeTheProgressThreadWhileAnApplicationKeepsDriving() throws Exception {
        // each look of the progress thread preempted a busy poller on a full machine (the
        // ping-pong's p99, docs/BENCHMARKS.md): with the link's watchdog it waits instead
        try (Link link = realLink();
             Engine engine = new Engine("driven", link, key -> null, (qp, type) -> { }, () -> { })) {
            assertThat(link.hasWatchdog()).isTrue();
            long start = System.nanoTime();
            long measuredFrom = start + 200_000_000L;
            long end = measuredFrom + 1_000_000_000L;
            long roundsAtStart = -1;
            while (System.nanoTime() < end) {
                engine.driveFromApp();
                if (roundsAtStart < 0 && System.nanoTime() >= measuredFrom) {
                    roundsAtStart = engine.progressRounds();
                }
            }
            long rounds = engine.progressRounds() - roundsAtStart;
            // looks every 4 ms would be about 250 rounds in the second; the watchdog's wait ends
            // for housekeeping every 100 ms (10), or when the driving thread lost the engine to
            // the progress thread for a moment and it armed one look itself
            assertThat(rounds).as("progress rounds in a second of an application driving all the time").isLessThan(60);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldTakeOverFromAnApplicationThatStopsDrivingWithoutSayingSo() throws Exception {
        try (Link link = realLink();
             Engine engine = new Engine("silent", link, key -> null, (qp, type) -> { }, () -> { })) {
            withoutBackstop(engine);
            driveFor(engine, 100_000_000L); // then stops, without appStopsDriving
            awaitTakenByTheProgressThread(link);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldTakeOverFromAnApplicationThatDroveOnceMoreAfterSayingItStopped() throws Exception {
        // appStopsDriving fires the watchdog early; a drive right after must not leave the
        // progress thread waiting on a watchdog it believes pushed back but nobody armed
        try (Link link = realLink();
             Engine engine = new Engine("stops-twice", link, key -> null, (qp, type) -> { }, () -> { })) {
            withoutBackstop(engine);
            driveFor(engine, 100_000_000L);
            engine.appStopsDriving();
            engine.driveFromApp(); // once more, within the push interval, then silence
            awaitTakenByTheProgressThread(link);
        }
    }

    /** A link on {@link #ADDRESS}, a free port, the best mode the machine has. */
    private static Link realLink() throws java.io.IOException {
        return Links.open(LinkConfig.builder(ADDRESS).port(0).mode(LinkMode.AUTO).build(), DatagramSealer.NONE);
    }

    /** This thread drives the engine, polling as an application does, for {@code nanos}. */
    private static void driveFor(Engine engine, long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            engine.driveFromApp();
        }
    }

    /**
     * The progress thread's wait on the watchdog without its 100 ms backstop, so that only the
     * watchdog firing can end it (else the @Timeout fails the test); past any wait begun before.
     */
    private static void withoutBackstop(Engine engine) throws InterruptedException {
        engine.watchdogBackstopNanos = TimeUnit.HOURS.toNanos(1);
        Thread.sleep(2 * Engine.HOUSEKEEPING_NANOS / 1_000_000);
    }

    /** A datagram from a peer, which only the progress thread can take: nobody else drives. */
    private static void awaitTakenByTheProgressThread(Link link) throws Exception {
        try (java.net.DatagramSocket peer = new java.net.DatagramSocket(0, java.net.InetAddress.getByName("127.0.0.1"))) {
            byte[] junk = new byte[40];
            peer.send(new java.net.DatagramPacket(junk, junk.length, java.net.InetAddress.getByName(ADDRESS),
                link.localPort()));
            while (link.counters().rxPackets() == 0) {
                Thread.sleep(1);
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldLetAnIdleDeviceSleepDeeplyThoughAnApplicationPollsItNowAndThen() throws Exception {
        // as the CM agent does before each of its waits: a poll that finds nothing every 20 ms
        try (Link link = realLink();
             Engine engine = new Engine("sporadic", link, key -> null, (qp, type) -> { }, () -> { })) {
            long end = System.nanoTime() + Engine.DEEP_IDLE_NANOS + 1_500_000_000L;
            long roundsAtStart = -1;
            long measuredFrom = System.nanoTime() + Engine.DEEP_IDLE_NANOS + 500_000_000L;
            while (System.nanoTime() < end) {
                engine.driveFromApp();
                if (roundsAtStart < 0 && System.nanoTime() >= measuredFrom) {
                    roundsAtStart = engine.progressRounds();
                }
                Thread.sleep(20);
            }
            long rounds = engine.progressRounds() - roundsAtStart;
            // 1 s at the idle sleep of 1 ms would be about 1,000 rounds; deep sleeps of 50 ms, 20
            assertThat(rounds).as("progress rounds in the last second of an idle device polled every 20 ms")
                .isLessThan(200);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldStartTheAckTimeoutWhenThePacketsHaveLeft() throws Exception {
        long flushStall = TimeUnit.MILLISECONDS.toNanos(100);
        try (SlowFlushLink link = new SlowFlushLink(Links.open(
                LinkConfig.builder(ADDRESS).port(0).mode(LinkMode.AUTO).build(), DatagramSealer.NONE), flushStall);
             Engine engine = new Engine("timer", link, key -> null, (qp, type) -> { }, () -> { });
             Arena arena = Arena.ofShared()) {
            CompletionRing cq = new CompletionRing(16, new CompletionRing.Listener() {
                @Override
                public void onCompletionEvent(CompletionRing ring) {
                }

                @Override
                public void onOverflow(CompletionRing ring) {
                }
            });
            Qp qp = new Qp(engine, QpType.RC, 1, new SendQueue(4, 1, 64, arena), new RecvQueue(4, 1), null,
                cq, cq, true, arena);
            engine.register(qp);
            engine.withEngine(() -> {
                // to a QP nobody has: the packet goes out and nothing ever answers
                qp.destAddr = link.localAddress();
                qp.destPort = link.localPort();
                qp.destQpn = 18;
                qp.timeout = 20; // 4.3 s: no retransmission while the test looks
                qp.retryCnt = 7;
                qp.rnrRetry = 7;
                QpControl.enter(qp, QpState.INIT, false);
                QpControl.enter(qp, QpState.RTR, false);
                QpControl.enter(qp, QpState.RTS, false);
            });

            EngineHarness.postInlineSend(qp, 1);
            engine.kick();

            assertThat(link.sent.await(30, TimeUnit.SECONDS)).isTrue();
            long[] deadline = new long[1];
            engine.withEngine(() -> deadline[0] = qp.retransmitDeadline);
            assertThat(deadline[0]).as("timer armed").isNotZero();
            assertThat(deadline[0] - link.sentAt)
                .as("ACK timeout counted from when the packet left (the flush took %d ms)", flushStall / 1_000_000)
                .isGreaterThanOrEqualTo(RnrTimer.ackTimeoutNanos(qp.timeout));
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldSendAnAckHeldByAnApplicationThreadThatStoppedDrivingAtTheProgressThreadsNextLook()
            throws Exception {
        EngineTuning tuning = EngineTuning.fromConfiguration();
        long hold = tuning.ackHoldNanos();
        assertThat(tuning.appActiveNanos() / 4).as("the case needs a hold shorter than a quarter of the app's grace")
            .isGreaterThan(2 * hold);
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        MemorySegment mem = dev.jrxe.memory.NativeMemory.map(64 * 1024);
        try (EngineHarness h = new EngineHarness(null, clock::get, true)) {
            // the clock stands still: the application's drive is always "just now" to the progress
            // thread, which keeps out of its way, so only the application's own thread takes the SEND
            sendToAnApplicationThatDrives(h, mem);
            while (h.cq.peek() == null) {
                h.engine.driveFromApp();
            }
            awaitRounds(h.engine, 3);
            assertThat(h.sent()).as("the ACK waits for the application's answer, inside the hold").isEmpty();

            // past the hold the application may only seem away (the progress thread's own wake-up
            // preempted it): its ACK stays with it
            clock.addAndGet(2 * hold);
            awaitRounds(h.engine, 3);
            assertThat(h.sent()).as("a brief absence leaves the ACK to the application").isEmpty();

            // the application never drives again (a run's last message); the hold is over but the
            // application's grace (appActiveNanos) is not: the progress thread sends the ACK anyway.
            // Without that it would wait out the grace, and here, on a clock that stands, forever
            clock.addAndGet(h.engine.heldTakeoverNanos() - 2 * hold);
            List<EngineHarness.Sent> sent = awaitSent(h);
            assertThat(sent).extracting(EngineHarness.Sent::opcode).containsExactly(dev.jrxe.wire.Opcodes.RC_ACKNOWLEDGE);
            assertThat(sent.get(0).psn()).isEqualTo(0x100);
        } finally {
            dev.jrxe.memory.NativeMemory.unmap(mem);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldLetTheProgressThreadTakeOverAtOnceWhenTheApplicationStopsDriving() throws Exception {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        MemorySegment mem = dev.jrxe.memory.NativeMemory.map(64 * 1024);
        try (EngineHarness h = new EngineHarness(null, clock::get, true)) {
            // the clock stands still: the application's drive stays "just now" to the progress thread
            sendToAnApplicationThatDrives(h, mem);
            awaitRounds(h.engine, 3);
            assertThat(h.cq.peek()).as("the progress thread keeps out of a driving application's way").isNull();

            h.engine.appStopsDriving(); // the application goes to wait for an event
            for (int i = 0; i < 1000 && h.cq.peek() == null; i++) {
                awaitRounds(h.engine, 1);
            }
            assertThat(h.cq.peek()).as("the progress thread took the SEND").isNotNull();
            assertThat(awaitSent(h)).extracting(EngineHarness.Sent::opcode)
                .containsExactly(dev.jrxe.wire.Opcodes.RC_ACKNOWLEDGE);
        } finally {
            dev.jrxe.memory.NativeMemory.unmap(mem);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldChangeNothingWhenAThreadThatDidNotDriveLastStopsDriving() throws Exception {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        MemorySegment mem = dev.jrxe.memory.NativeMemory.map(64 * 1024);
        try (EngineHarness h = new EngineHarness(null, clock::get, true)) {
            sendToAnApplicationThatDrives(h, mem); // this thread drives, on a clock that stands
            Thread other = Thread.ofPlatform().start(h.engine::appStopsDriving);
            other.join();
            awaitRounds(h.engine, 5);
            assertThat(h.cq.peek()).as("the thread that drives may still poll: the progress thread keeps away").isNull();

            h.engine.appStopsDriving(); // now the thread that drove
            for (int i = 0; i < 1000 && h.cq.peek() == null; i++) {
                awaitRounds(h.engine, 1);
            }
            assertThat(h.cq.peek()).as("the progress thread took the SEND").isNotNull();
        } finally {
            dev.jrxe.memory.NativeMemory.unmap(mem);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldSendTheAcksAThreadHeldWhenItStopsDriving() throws Exception {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        MemorySegment mem = dev.jrxe.memory.NativeMemory.map(64 * 1024);
        // no progress thread: nobody but the application's thread can send the ACK
        try (EngineHarness h = new EngineHarness(null, clock::get, false)) {
            Qp qp = connectWithReceive(h, mem);
            injectSend(h, qp);
            while (h.cq.peek() == null) {
                h.engine.driveFromApp();
            }
            h.engine.driveFromApp();
            assertThat(h.sent()).as("the ACK waits for the application's answer").isEmpty();

            h.engine.appStopsDriving();
            assertThat(h.sent()).extracting(EngineHarness.Sent::opcode).containsExactly(dev.jrxe.wire.Opcodes.RC_ACKNOWLEDGE);
        } finally {
            dev.jrxe.memory.NativeMemory.unmap(mem);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldLookLessOftenTheLongerTheApplicationKeepsDriving() throws Exception {
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        try (EngineHarness h = new EngineHarness(null, clock::get, true)) {
            long grace = EngineTuning.fromConfiguration().appActiveNanos();
            assertThat(grace).as("the case needs a grace below the longest look").isLessThan(Engine.MAX_LOOK_NANOS);
            while (!h.engine.driveFromApp()) {
                Thread.onSpinWait();
            }
            // on a clock that stands the application drove "just now" at every look
            for (int i = 0; i < 1000 && h.engine.lookNanos() < Engine.MAX_LOOK_NANOS; i++) {
                awaitRounds(h.engine, 1);
            }
            assertThat(h.engine.lookNanos()).isEqualTo(Engine.MAX_LOOK_NANOS);

            h.engine.appStopsDriving(); // wakes the progress thread, which finds nobody driving
            for (int i = 0; i < 1000 && h.engine.lookNanos() != grace; i++) {
                awaitRounds(h.engine, 1);
            }
            assertThat(h.engine.lookNanos()).as("back to the grace once the application stopped").isEqualTo(grace);
        }
    }

    /**
     * An RC QP with a receive posted, an application drive of the engine at the clock's "now",
     * then a SEND of 16 bytes from the peer (PSN 0x100, ACK requested) queued on the link.
     */
    private static void sendToAnApplicationThatDrives(EngineHarness h, MemorySegment mem) throws InterruptedException {
        Qp qp = connectWithReceive(h, mem);
        while (!h.engine.driveFromApp()) {
            Thread.onSpinWait(); // the progress thread has the engine: it serves it freely until now
        }
        awaitRounds(h.engine, 2); // a round that began before the drive would not know of it
        injectSend(h, qp);
    }

    /** An RC QP (PSN 0x100 expected) with a receive of {@code mem} posted. */
    static Qp connectWithReceive(EngineHarness h, MemorySegment mem) {
        int all = dev.jrxe.ib.Access.LOCAL_WRITE | dev.jrxe.ib.Access.REMOTE_WRITE;
        dev.jrxe.memory.Region r = dev.jrxe.memory.MemoryRegions.register(h.keys, 3, mem, all);
        Qp qp = h.connect(3, all, 4, 0x100, 0, 1024);
        EngineHarness.postRecv(qp, mem, r);
        return qp;
    }

    /** The peer's SEND of 16 bytes (PSN 0x100, ACK requested), queued on the link. */
    static void injectSend(EngineHarness h, Qp qp) {
        dev.jrxe.wire.PacketWriter p = h.begin(dev.jrxe.wire.Opcodes.RC_SEND_ONLY, qp, 0x100);
        p.bth().ackReq(true);
        h.payload(16).fill((byte) 4);
        h.inject(16);
    }

    /** What the engine sends within its progress thread's next 1,000 rounds, from the first packet on. */
    private static List<EngineHarness.Sent> awaitSent(EngineHarness h) throws InterruptedException {
        List<EngineHarness.Sent> sent = new java.util.ArrayList<>();
        for (int i = 0; i < 1000 && sent.isEmpty(); i++) {
            awaitRounds(h.engine, 1);
            sent.addAll(h.sent());
        }
        return sent;
    }

    /** Waits until the engine's progress thread has run {@code n} more rounds. */
    private static void awaitRounds(Engine engine, int n) throws InterruptedException {
        long target = engine.progressRounds() + n;
        while (engine.progressRounds() < target) {
            Thread.sleep(1);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A link whose first flush with datagrams in it takes {@code stall} (a preempted or cold flush). */
    private static final class SlowFlushLink implements Link {
        private final Link link;
        private final long stall;
        private int committed;
        final CountDownLatch sent = new CountDownLatch(1);
        volatile long sentAt;

        SlowFlushLink(Link link, long stall) {
            this.link = link;
            this.stall = stall;
        }

        @Override
        public int flush() {
            if (committed > 0 && sent.getCount() > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(stall);
                int n = link.flush();
                committed = 0;
                sentAt = System.nanoTime();
                sent.countDown();
                return n;
            }
            committed = 0;
            return link.flush();
        }

        @Override
        public void commit(int length, int dstAddr, int dstPort, int srcPort) {
            link.commit(length, dstAddr, dstPort, srcPort);
            committed++;
        }

        @Override
        public int localAddress() {
            return link.localAddress();
        }

        @Override
        public int localPort() {
            return link.localPort();
        }

        @Override
        public int maxDatagram() {
            return link.maxDatagram();
        }

        @Override
        public MemorySegment claim() {
            return link.claim();
        }

        @Override
        public int poll(DatagramHandler handler, int limit) {
            return link.poll(handler, limit);
        }

        @Override
        public boolean lastPollFull() {
            return link.lastPollFull();
        }

        @Override
        public boolean awaitReadable(long timeoutNanos) {
            return link.awaitReadable(timeoutNanos);
        }

        @Override
        public void wakeup() {
            link.wakeup();
        }

        @Override
        public LinkMode mode() {
            return link.mode();
        }

        @Override
        public LinkCounters counters() {
            return link.counters();
        }

        @Override
        public void close() {
            link.close();
        }
    }
}
