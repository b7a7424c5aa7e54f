package dev.jrxe.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.net.BindException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every link mode between 127.0.0.2 and 127.0.0.3 over real UDP sockets. */
class LinkTest {
    private static final int QP = 0x000123;

    /** Datagram lengths: GSO trains of equal size (some longer than one GSO message), odd sizes, a shorter tail. */
    static List<Integer> mixedLengths() {
        List<Integer> lengths = new ArrayList<>();
        int[] trains = {20, 1, 3, 15, 16, 40, 2};
        for (int t : trains) {
            for (int i = 0; i < t; i++) {
                lengths.add(TestRoce.DATAGRAM_4K);
            }
            lengths.add(TestRoce.datagramLength(100 + t * 4));
        }
        for (int p = 0; p <= 4096; p += 128) {
            lengths.add(TestRoce.datagramLength(p));
        }
        for (int i = 0; i < 30; i++) {
            lengths.add(TestRoce.datagramLength(1024));
        }
        return lengths;
    }

    /** A thread that runs {@code action} once {@code millis} have passed. */
    private static Thread afterMillis(long millis, Runnable action) {
        return Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            action.run();
        });
    }

    private static int sendSendOnly(Link from, int dstAddr, int dstPort, int srcPort, int psn, int length) {
        MemorySegment buf = from.claim();
        int len = TestRoce.writeSendOnly(buf, QP, psn, TestRoce.payloadOf(length));
        from.commit(len, dstAddr, dstPort, srcPort);
        return len;
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"MMSG", "GSO"})
    void shouldWaitOnBuffersOfItsOwnArenaAndFreeThemOnClose(LinkMode mode) throws Exception {
        MemorySegment.Scope[] scopes;
        try (LinkPair p = LinkPair.open(mode, TestRoce.SEALER)) {
            scopes = ((NativeLink) p.a).waitAndSendScopes();
            // a downcall holds the arena of each segment it passes: a waiter's ppoll must not
            // contend with the driving thread's sendmmsg/recvmmsg for one counter
            assertThat(scopes[0]).isNotEqualTo(scopes[1]);
            assertThat(p.a.awaitReadable(1_000_000L)).isFalse();
        }
        assertThat(scopes[0].isAlive()).isFalse();
        assertThat(scopes[1].isAlive()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldDeliverEveryDatagramWithItsContentsInOrder(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, TestRoce.SEALER)) {
            assertThat(p.a.mode()).isEqualTo(mode);
            List<Integer> lengths = mixedLengths();
            Collector got = new Collector();
            long bytes = 0;
            int psn = 0;
            for (int round = 0; round < 5; round++) {
                for (int len : lengths) {
                    bytes += sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, psn++, len);
                }
                p.a.flush();
                got.receive(p.b, psn);
            }
            got.drain(p.b);

            assertThat(got.size()).isEqualTo(psn);
            for (int i = 0; i < psn; i++) {
                Collector.Datagram d = got.datagrams.get(i);
                int expectedLen = lengths.get(i % lengths.size());
                assertThat(d.data().length).isEqualTo(expectedLen);
                assertThat(d.psn()).isEqualTo(i);
                MemorySegment s = MemorySegment.ofArray(d.data());
                for (int j = 0; j < TestRoce.payloadOf(expectedLen); j++) {
                    if (s.get(JAVA_BYTE, TestRoce.BTH + j) != TestRoce.patternByte(i, j)) {
                        throw new AssertionError("datagram " + i + " byte " + j + " differs");
                    }
                }
                int icrc = s.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED
                        .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), expectedLen - 4);
                // sealed for the headers it travelled under: IP ID 0, or its GSO segment index
                int maxId = mode == LinkMode.GSO ? 64 : 1;
                boolean sealed = false;
                for (int id = 0; id < maxId && !sealed; id++) {
                    sealed = icrc == TestRoce.icrc(s, 0, expectedLen, p.addrA(), p.addrB(),
                            p.a.localPort(), p.b.localPort(), id);
                }
                assertThat(sealed).as("ICRC of datagram %d", i).isTrue();
                assertThat(d.srcAddr()).isEqualTo(p.addrA());
                assertThat(d.srcPort()).isEqualTo(p.a.localPort());
                assertThat(d.dstAddr()).isEqualTo(p.addrB());
            }
            LinkCounters tx = p.a.counters();
            LinkCounters rx = p.b.counters();
            assertThat(tx.txPackets()).isEqualTo(psn);
            assertThat(tx.txBytes()).isEqualTo(bytes);
            assertThat(rx.rxPackets()).isEqualTo(psn);
            assertThat(rx.rxBytes()).isEqualTo(bytes);
            assertThat(tx.totalDrops()).isZero();
            assertThat(rx.totalDrops()).isZero();
            if (mode != LinkMode.CHANNEL) {
                // batched: far fewer system calls than datagrams
                assertThat(tx.txCalls()).isLessThan(psn / 8);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG"})
    void shouldSealEveryDatagramWithIpIdZeroWithoutGso(LinkMode mode) throws Exception {
        List<Integer> ids = new ArrayList<>();
        DatagramSealer recording = (b, o, l, s, d, sp, dp, id) -> {
            ids.add(id);
            TestRoce.SEALER.seal(b, o, l, s, d, sp, dp, id);
        };
        try (LinkPair p = LinkPair.open(mode, recording)) {
            for (int i = 0; i < 40; i++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, i, TestRoce.DATAGRAM_4K);
            }
            p.a.flush();
            new Collector().receive(p.b, 40);
        }
        assertThat(ids).hasSize(40).containsOnly(0);
    }

    @Test
    void shouldSealGsoTrainsWithTheSegmentIndexAsIpId() throws Exception {
        List<Integer> ids = new ArrayList<>();
        DatagramSealer recording = (b, o, l, s, d, sp, dp, id) -> {
            ids.add(id);
            TestRoce.SEALER.seal(b, o, l, s, d, sp, dp, id);
        };
        try (LinkPair p = LinkPair.open(LinkMode.GSO, recording)) {
            int psn = 0;
            for (int i = 0; i < 20; i++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, psn++, TestRoce.DATAGRAM_4K);
            }
            sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, psn++, TestRoce.datagramLength(200));
            // a different destination port starts a new train
            sendSendOnly(p.a, p.addrB(), p.b.localPort() ^ 1, 0, psn++, TestRoce.datagramLength(200));
            sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, psn++, TestRoce.datagramLength(200));
            sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, psn++, TestRoce.datagramLength(200));
            p.a.flush();
            Collector got = new Collector().receive(p.b, psn - 1);
            assertThat(got.size()).isEqualTo(psn - 1);
        }
        int perMessage = NativeLink.GSO_MAX_BYTES / TestRoce.DATAGRAM_4K;
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add(i % perMessage);
        }
        expected.add(20 % perMessage); // the shorter tail ends the second train
        expected.add(0);
        expected.add(0);
        expected.add(1);
        assertThat(ids).isEqualTo(expected);
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldSendFromTheConnectionSourcePort(LinkMode mode) throws Exception {
        int[] sealedPort = new int[1];
        DatagramSealer recording = (b, o, l, s, d, sp, dp, id) -> {
            sealedPort[0] = sp;
            TestRoce.SEALER.seal(b, o, l, s, d, sp, dp, id);
        };
        try (LinkPair p = LinkPair.open(mode, recording)) {
            int sport = 0xC000 | (int) (ProcessHandle.current().pid() % 0x3000) + mode.ordinal();
            for (int i = 0; i < 3; i++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), sport, i, TestRoce.DATAGRAM_4K);
            }
            p.a.flush();
            Collector got = new Collector().receive(p.b, 3);
            assertThat(got.datagrams).hasSize(3).allSatisfy(d -> assertThat(d.srcPort()).isEqualTo(sport));
            assertThat(sealedPort[0]).isEqualTo(sport);
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldReachEveryPeerFromOneSourcePort(LinkMode mode) throws Exception {
        // one source port's socket serves every peer, in order per peer
        try (LinkPair p = LinkPair.open(mode, TestRoce.SEALER);
             Link c = Links.open(LinkConfig.builder("127.0.0.4").port(0).mode(mode).build(), TestRoce.SEALER)) {
            int sport = 0xC100 | (int) (ProcessHandle.current().pid() % 0x3000) + mode.ordinal();
            int addrC = c.localAddress();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 3; i++) {
                    sendSendOnly(p.a, p.addrB(), p.b.localPort(), sport, i, TestRoce.DATAGRAM_4K);
                }
                sendSendOnly(p.a, addrC, c.localPort(), sport, 9, 100);
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), sport, 3, 100);
                p.a.flush();
                Collector toB = new Collector().receive(p.b, 4);
                Collector toC = new Collector().receive(c, 1);
                assertThat(toB.datagrams).hasSize(4).allSatisfy(d -> assertThat(d.srcPort()).isEqualTo(sport));
                assertThat(toB.datagrams).extracting(Collector.Datagram::psn).containsExactly(0, 1, 2, 3);
                assertThat(toC.datagrams).hasSize(1).allSatisfy(d -> assertThat(d.srcPort()).isEqualTo(sport));
            }
            assertThat(p.a.counters().drops(DropReason.SEND_FAILED)).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"MMSG", "GSO"})
    void shouldOpenSourcePortsFromSeveralThreadsAtOnce(LinkMode mode) throws Exception {
        // a source port's socket opens when a QP takes the port (any thread) or, for a port
        // nobody holds, in the send path: both through one call state and scratch of the link,
        // under its monitor, and every datagram must leave from its own port
        try (LinkPair p = LinkPair.open(mode, TestRoce.SEALER)) {
            int base = 0xC200 | (int) (ProcessHandle.current().pid() % 0x1000) + 128 * mode.ordinal();
            int rounds = 8;
            int perRound = 8;
            int held = rounds * perRound;
            CountDownLatch start = new CountDownLatch(1);
            Thread taker = Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int port = base; port < base + held; port++) {
                    p.a.retainSourcePort(port);
                }
            });
            start.countDown();
            List<Integer> unheld = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < perRound; i++) {
                    int port = base + held + r * perRound + i;
                    unheld.add(port);
                    sendSendOnly(p.a, p.addrB(), p.b.localPort(), port, i, 100);
                }
                p.a.flush();
            }
            taker.join();
            for (int port = base; port < base + held; port++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), port, 0, 100);
            }
            p.a.flush();
            Collector got = new Collector().receive(p.b, 2 * held);
            assertThat(got.datagrams).extracting(Collector.Datagram::srcPort).containsExactlyInAnyOrderElementsOf(
                java.util.stream.IntStream.range(base, base + 2 * held).boxed().toList());
            assertThat(p.a.counters().drops(DropReason.SEND_FAILED)).isZero();
            for (int port = base; port < base + held; port++) {
                p.a.releaseSourcePort(port);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldKeepSendingFromASourcePortWhosePeerWentAway(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, TestRoce.SEALER)) {
            int sport = 0xC200 | (int) (ProcessHandle.current().pid() % 0x3000) + mode.ordinal();
            int gonePort;
            int goneAddr;
            try (Link gone = Links.open(LinkConfig.builder("127.0.0.4").port(0).mode(mode).build(), TestRoce.SEALER)) {
                gonePort = gone.localPort();
                goneAddr = gone.localAddress();
                sendSendOnly(p.a, gone.localAddress(), gonePort, sport, 0, 100);
                p.a.flush();
                assertThat(new Collector().receive(gone, 1).datagrams).hasSize(1);
            }
            // nobody listens there now: the kernel answers with port unreachable
            sendSendOnly(p.a, goneAddr, gonePort, sport, 1, 100);
            p.a.flush();
            int got = 0;
            for (int attempt = 0; attempt < 4 && got == 0; attempt++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), sport, 2, 100);
                p.a.flush();
                got = new Collector().receive(p.b, 1).datagrams.size();
            }
            assertThat(got).as("a datagram to a live peer got through").isEqualTo(1);
            assertThat(p.a.counters().drops(DropReason.SEND_FAILED)).as("sends refused").isLessThanOrEqualTo(2);
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldReturnFromAwaitReadableWhenWokenFromAnotherThread(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            CountDownLatch waiting = new CountDownLatch(1);
            Thread waker = Thread.ofPlatform().start(() -> {
                try {
                    waiting.await();
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                p.b.wakeup();
            });
            waiting.countDown();
            // would block for a day without the wakeup; the @Timeout fails the test then
            boolean readable = p.b.awaitReadable(TimeUnit.DAYS.toNanos(1));
            waker.join();
            assertThat(readable).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"MMSG", "GSO"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldFireTheWatchdogWhenNobodyPushesItBack(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            assertThat(p.b.hasWatchdog()).isTrue();
            // armed for 1 ms, awaited for up to a day: only its firing ends the wait (or the @Timeout fails)
            assertThat(p.b.awaitWatchdog(1_000_000L, TimeUnit.DAYS.toNanos(1))).isTrue();
            // fired and read: not armed again, the next wait times out
            assertThat(p.b.awaitWatchdog(0, 20_000_000L)).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"MMSG", "GSO"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldNotFireTheWatchdogWhileTheDrivingThreadPushesItBack(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            p.b.armWatchdog(TimeUnit.SECONDS.toNanos(50));
            java.util.concurrent.atomic.AtomicBoolean fired = new java.util.concurrent.atomic.AtomicBoolean();
            Thread waiter = Thread.ofPlatform().start(() -> fired.set(p.b.awaitWatchdog(0, 300_000_000L)));
            // pushed back every 5 ms to 50 ms ahead, for 400 ms: the waiter's 300 ms end first
            long end = System.nanoTime() + 400_000_000L;
            while (System.nanoTime() < end) {
                p.b.armWatchdog(50_000_000L);
                Thread.sleep(5);
            }
            waiter.join();
            assertThat(fired.get()).as("fired although pushed back").isFalse();
            // no longer pushed back: it fires 50 ms after the last push (not 50 s after the first)
            assertThat(p.b.awaitWatchdog(0, TimeUnit.SECONDS.toNanos(20))).as("fired once the pushes stopped").isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"MMSG", "GSO"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldWakeTheWatchdogsWaiterFromAnotherThreadAndLeaveTheEventFdAlone(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            p.b.armWatchdog(TimeUnit.DAYS.toNanos(1));
            Thread waker = afterMillis(50, p.b::wakeWatchdog);
            assertThat(p.b.awaitWatchdog(0, TimeUnit.DAYS.toNanos(1))).isTrue();
            waker.join();
            // a wakeup() meant for the awaitReadable waiter stays for it
            p.b.wakeup();
            assertThat(p.b.awaitWatchdog(0, 20_000_000L)).as("the watchdog's waiter took the eventfd's wakeup").isFalse();
            assertThat(p.b.awaitReadable(TimeUnit.DAYS.toNanos(1))).as("not readable: a wakeup").isFalse();
        }
    }

    @Test
    void shouldHaveNoWatchdogOnAChannelLink() throws Exception {
        try (LinkPair p = LinkPair.open(LinkMode.CHANNEL, DatagramSealer.NONE)) {
            assertThat(p.b.hasWatchdog()).isFalse();
            p.b.armWatchdog(1);
            assertThat(p.b.awaitWatchdog(1, TimeUnit.DAYS.toNanos(1))).as("returns at once").isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldReportReadableWhenADatagramWaits(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            assertThat(p.b.awaitReadable(0)).isFalse();
            sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, 1, 64);
            p.a.flush();
            assertThat(p.b.awaitReadable(TimeUnit.DAYS.toNanos(1))).isTrue();
            assertThat(p.b.poll(new Collector(), 10)).isEqualTo(1);
        }
    }

    /**
     * The engine's progress thread waits in awaitReadable without holding the engine, while an
     * application thread polls and flushes: the wait must see what the poller left buffered and
     * change nothing the poller relies on (here: the recvmmsg it skips right after a short batch).
     */
    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"MMSG", "GSO"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldLetAnotherThreadAwaitWithoutChangingWhatPollDoes(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            for (int i = 0; i < 3; i++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, i, 64);
            }
            p.a.flush();
            assertThat(p.b.awaitReadable(TimeUnit.DAYS.toNanos(1))).isTrue();
            Collector got = new Collector();
            assertThat(p.b.poll(got, 1)).isEqualTo(1);
            assertThat(awaitOnAnotherThread(p.b)).as("datagrams the poller left buffered").isTrue();
            assertThat(p.b.poll(got, 2)).isEqualTo(2);

            long receiveCalls = p.b.counters().rxCalls();
            assertThat(awaitOnAnotherThread(p.b)).isFalse();
            assertThat(p.b.poll(got, 64)).isZero();
            assertThat(p.b.counters().rxCalls())
                    .as("the poll right after a short batch skips recvmmsg, whatever another thread awaited")
                    .isEqualTo(receiveCalls);
            assertThat(got.datagrams).extracting(Collector.Datagram::psn).containsExactly(0, 1, 2);
        }
    }

    private static boolean awaitOnAnotherThread(Link link) throws InterruptedException {
        boolean[] readable = new boolean[1];
        Thread t = Thread.ofPlatform().start(() -> readable[0] = link.awaitReadable(0));
        t.join();
        return readable[0];
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldDropDatagramsLongerThanMaxDatagram(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE, c -> c.maxDatagram(9000), c -> c)) {
            sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, 1, 8000);
            sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, 2, p.b.maxDatagram() + 4);
            sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, 3, p.b.maxDatagram());
            p.a.flush();
            Collector got = new Collector().receive(p.b, 1).drain(p.b);
            assertThat(got.datagrams).extracting(Collector.Datagram::psn).containsExactly(3);
            assertThat(p.b.counters().drops(DropReason.OVERSIZED)).isEqualTo(2);
            assertThat(p.b.counters().rxPackets()).isEqualTo(3);
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldTakeAtMostLimitDatagramsPerPoll(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            for (int i = 0; i < 45; i++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, i, TestRoce.DATAGRAM_4K);
            }
            p.a.flush();
            Collector got = new Collector();
            int idle = 0;
            while (got.size() < 45 && idle < 10) {
                int n = p.b.poll(got, 7);
                assertThat(n).isBetween(0, 7);
                if (n == 0 && !p.b.awaitReadable(200_000_000L)) {
                    idle++;
                }
            }
            assertThat(got.datagrams).extracting(Collector.Datagram::psn)
                    .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 45).boxed().toList());
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldReceiveEverythingWhenBusyPollingWithoutEverWaiting(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            Collector got = new Collector();
            int psn = 0;
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 1 + round; i++) {
                    sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, psn++, i % 2 == 0 ? TestRoce.DATAGRAM_4K : 300);
                }
                p.a.flush();
                while (got.size() < psn) {
                    p.b.poll(got, 64);
                }
            }
            assertThat(got.datagrams).extracting(Collector.Datagram::psn)
                    .containsExactlyElementsOf(java.util.stream.IntStream.range(0, psn).boxed().toList());
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldSendTheRestOfTheBatchThenRethrowWhenTheSealerThrows(LinkMode mode) throws Exception {
        DatagramSealer failing = (b, o, l, s, d, sp, dp, id) -> {
            if (TestRoce.psn(b, o) == 2) {
                throw new IllegalStateException("sealer bug");
            }
        };
        try (LinkPair p = LinkPair.open(mode, failing)) {
            for (int i = 1; i <= 3; i++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, i, TestRoce.DATAGRAM_4K);
            }
            assertThatThrownBy(p.a::flush).hasMessage("sealer bug");
            Collector got = new Collector().receive(p.b, 2);
            assertThat(got.datagrams).extracting(Collector.Datagram::psn).containsExactly(1, 3);
            assertThat(p.a.counters().drops(DropReason.OTHER)).isEqualTo(1);
            assertThat(p.a.flush()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldHandTheRestOfTheBatchThenRethrowWhenTheHandlerThrows(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            for (int i = 1; i <= 3; i++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, i, TestRoce.DATAGRAM_4K);
            }
            p.a.flush();
            assertThat(p.b.awaitReadable(TimeUnit.SECONDS.toNanos(10))).isTrue();
            List<Integer> seen = new ArrayList<>();
            DatagramHandler failing = (buf, off, len, s, sp, d) -> {
                int psn = TestRoce.psn(buf, off);
                seen.add(psn);
                if (psn == 1) {
                    throw new IllegalArgumentException("handler bug");
                }
                return -1;
            };
            int idle = 0;
            boolean thrown = false;
            while (seen.size() < 3 && idle < 10) {
                try {
                    if (p.b.poll(failing, 64) == 0 && !p.b.awaitReadable(200_000_000L)) {
                        idle++;
                    }
                } catch (IllegalArgumentException e) {
                    assertThat(e).hasMessage("handler bug");
                    thrown = true;
                }
            }
            assertThat(thrown).isTrue();
            assertThat(seen).containsExactly(1, 2, 3);
            assertThat(p.b.counters().drops(DropReason.OTHER)).isEqualTo(1);
        }
    }

    @Test
    void shouldPickAConcreteModeForAuto() throws Exception {
        try (LinkPair p = LinkPair.open(LinkMode.AUTO, DatagramSealer.NONE)) {
            assertThat(p.a.mode()).isNotEqualTo(LinkMode.AUTO).isEqualTo(Links.resolve(LinkMode.AUTO));
            if (Links.supported(LinkMode.GSO)) {
                assertThat(p.a.mode()).isEqualTo(LinkMode.GSO);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldRefuseASecondLinkOnTheSameAddressAndPort(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            LinkConfig again = LinkConfig.builder(LinkPair.A).port(p.a.localPort()).mode(mode).build();
            assertThatThrownBy(() -> Links.open(again, DatagramSealer.NONE)).isInstanceOf(BindException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldRejectMisuse(LinkMode mode) throws Exception {
        LinkPair p = LinkPair.open(mode, DatagramSealer.NONE);
        try {
            assertThatThrownBy(() -> p.a.commit(10, p.addrB(), 1, 0)).isInstanceOf(IllegalStateException.class);
            p.a.claim();
            assertThatThrownBy(() -> p.a.commit(p.a.maxDatagram() + 1, p.addrB(), 1, 0))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> p.a.commit(10, p.addrB(), 70000, 0)).isInstanceOf(IllegalArgumentException.class);
        } finally {
            p.close();
        }
        assertThatThrownBy(p.a::claim).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> p.a.poll(new Collector(), 1)).isInstanceOf(IllegalStateException.class);
        p.a.wakeup(); // harmless after close
        p.a.close(); // and so is a second close
    }

    @Test
    void shouldFallBackToSingleDatagramsResealedWithIdZeroWhenTheRouteRefusesGso() throws Exception {
        List<Integer> ids = new ArrayList<>();
        DatagramSealer recording = (b, o, l, s, d, sp, dp, id) -> {
            ids.add(id);
            TestRoce.SEALER.seal(b, o, l, s, d, sp, dp, id);
        };
        try (LinkPair p = LinkPair.open(LinkMode.GSO, recording)) {
            NativeLink a = (NativeLink) p.a;
            // the kernel refuses UDP GSO (EINVAL) on a socket that sends without UDP checksums
            assertThat(a.setOption(dev.jrxe.sys.Sockets.SOL_SOCKET, dev.jrxe.sys.Sockets.SO_NO_CHECK, 1)).isZero();
            for (int i = 0; i < 5; i++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, i, TestRoce.DATAGRAM_4K);
            }
            assertThat(p.a.flush()).isEqualTo(5);
            assertThat(a.gsoActive()).isFalse();
            Collector got = new Collector().receive(p.b, 5);
            assertThat(got.datagrams).extracting(Collector.Datagram::psn).containsExactly(0, 1, 2, 3, 4);
            for (Collector.Datagram d : got.datagrams) {
                MemorySegment s = MemorySegment.ofArray(d.data());
                int wire = s.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN),
                        d.data().length - 4);
                assertThat(wire).isEqualTo(TestRoce.icrc(s, 0, d.data().length, p.addrA(), p.addrB(),
                        p.a.localPort(), p.b.localPort(), 0));
            }
            assertThat(p.a.counters().drops(DropReason.SEND_FAILED)).isZero();
        }
        // first sealed as one train, then again one by one with ID 0
        assertThat(ids).containsExactly(0, 1, 2, 3, 4, 0, 0, 0, 0, 0);
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldFlushByItselfWhenTheBatchIsFull(LinkMode mode) throws Exception {
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE, c -> c.batch(8), c -> c)) {
            for (int i = 0; i < 20; i++) {
                sendSendOnly(p.a, p.addrB(), p.b.localPort(), 0, i, 256);
            }
            // 16 went out on their own from claim(); 4 wait for flush()
            assertThat(p.a.counters().txPackets()).isEqualTo(16);
            assertThat(p.a.flush()).isEqualTo(4);
            assertThat(new Collector().receive(p.b, 20).size()).isEqualTo(20);
        }
    }
}
