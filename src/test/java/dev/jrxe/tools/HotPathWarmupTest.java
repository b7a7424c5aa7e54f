package dev.jrxe.tools;

import dev.jrxe.internal.Internals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpType;
import dev.jrxe.transport.TransportCounters;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import org.junit.jupiter.api.Test;

/**
 * The pingpong tools' untimed warm-up (issue 15): two QPs of the tool's own device ping-pong
 * through the device's own socket, and leave nothing behind for the run that follows.
 */
class HotPathWarmupTest {
    @Test
    void shouldPingPongBetweenTwoQpsOfOneDeviceAndLeaveNothingBehind() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            int qpsBefore = dev.liveQps();
            for (int qpType : new int[] {QpType.RC, QpType.UC}) {
                HotPathWarmup.Result r = HotPathWarmup.run(dev, qpType, 4096, Mtu.MTU_1024, 300, 30_000_000_000L);
                // bounded by the round trips asked for, not the time: every one of them completed
                assertThat(r.roundTrips()).as("QP type %d", qpType).isEqualTo(300);
                assertThat(dev.liveQps()).isEqualTo(qpsBefore);
            }
            // data went through the device's own socket: its counters saw the packets
            assertThat(Internals.link(dev).counters().rxPackets()).isGreaterThanOrEqualTo(2L * 300 * 4);
        }
    }

    @Test
    void shouldWarmDatagramToolsThroughTheirOwnKindOfQp() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            int qpsBefore = dev.liveQps();
            long before = Internals.transportCounters(dev).get(TransportCounters.RDMA_RECVS);
            for (HotPathWarmup.Pair pair : new HotPathWarmup.Pair[] {new UdPingpongCommand().warmupPair(),
                new SrdPingpongCommand().warmupPair()}) {
                HotPathWarmup.Result r = HotPathWarmup.run(dev, pair, 1024, 300, 30_000_000_000L);
                assertThat(r.roundTrips()).isEqualTo(300);
                assertThat(dev.liveQps()).isEqualTo(qpsBefore);
            }
            // UD (its receive buffers with the 40-byte GRH area) and SRD: 2 x 300 receives each way
            assertThat(Internals.transportCounters(dev).get(TransportCounters.RDMA_RECVS) - before)
                .isGreaterThanOrEqualTo(2L * 2 * 300);
            assertThat(Internals.transportCounters(dev).get(TransportCounters.SRD_ACKS_SENT)).isPositive();
        }
        UdPingpongCommand u = new UdPingpongCommand();
        new picocli.CommandLine(u).parseArgs("--no-warmup");
        assertThat(u.noWarmup).isTrue();
        SrdPingpongCommand d = new SrdPingpongCommand();
        new picocli.CommandLine(d).parseArgs();
        assertThat(d.noWarmup).as("the warm-up is the default").isFalse();
    }

    @Test
    void shouldMeetSrdPeersAfreshInEveryEpisode() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            HotPathWarmup.Pair srd = new SrdPingpongCommand().warmupPair();
            assertThat(srd.renews()).isTrue();
            assertThat(new UdPingpongCommand().warmupPair().renews()).as("UD has no peer state").isFalse();
            java.util.concurrent.atomic.AtomicInteger renewals = new java.util.concurrent.atomic.AtomicInteger();
            HotPathWarmup.Pair counting = new HotPathWarmup.Pair() {
                @Override
                public dev.jrxe.verbs.QueuePair create(dev.jrxe.verbs.ProtectionDomain pd,
                                                       dev.jrxe.verbs.CompletionQueue cq, dev.jrxe.verbs.QpCap cap) {
                    return srd.create(pd, cq, cap);
                }

                @Override
                public void join(Device d, dev.jrxe.verbs.ProtectionDomain pd, dev.jrxe.verbs.QueuePair a,
                                 dev.jrxe.verbs.QueuePair b) {
                    srd.join(d, pd, a, b);
                }

                @Override
                public void address(dev.jrxe.verbs.SendWr wr, dev.jrxe.verbs.QueuePair to) {
                    srd.address(wr, to);
                }

                @Override
                public int headroom() {
                    return srd.headroom();
                }

                @Override
                public void close() {
                    srd.close();
                }

                @Override
                public boolean renews() {
                    return true;
                }

                @Override
                public void renew(dev.jrxe.verbs.QueuePair a, dev.jrxe.verbs.QueuePair b) {
                    renewals.incrementAndGet();
                    srd.renew(a, b);
                }
            };
            int episodes = 3;
            HotPathWarmup.Result r = HotPathWarmup.run(dev, counting, 64, episodes * HotPathWarmup.SHORT_EPISODE,
                30_000_000_000L);
            // every round trip of every episode completed, each episode after the first between
            // QPs that had just forgotten their peer (RESET and back: new SRD contexts)
            assertThat(r.roundTrips()).isEqualTo(episodes * HotPathWarmup.SHORT_EPISODE);
            assertThat(renewals.get()).isEqualTo(episodes - 1);
            assertThat(Internals.transportCounters(dev).get(TransportCounters.SRD_PEER_TIMEOUTS)).isZero();
            assertThat(dev.liveQps()).isZero();
        }
    }

    @Test
    void shouldRegisterAsTheRunDoesAndTouchOdpMemoryAfreshInEveryEpisode() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            HotPathWarmup.Memory odp = new HotPathWarmup.Memory(Access.LOCAL_WRITE | Access.ON_DEMAND, false);
            assertThat(odp.renews()).isTrue();
            assertThat(HotPathWarmup.Memory.PINNED.renews()).isFalse();
            int episodes = 3;
            HotPathWarmup.Result r = HotPathWarmup.run(dev, HotPathWarmup.connected(QpType.RC, Mtu.MTU_1024), 4096,
                episodes * HotPathWarmup.SHORT_EPISODE, 30_000_000_000L, odp);
            assertThat(r.roundTrips()).isEqualTo(episodes * HotPathWarmup.SHORT_EPISODE);
            // a first touch of fresh ODP memory on each side in every episode, as the run's first
            // message takes on its own region (one region for the whole warm-up: 2 faults in all)
            assertThat(Internals.keys(dev).counters().pageFaults()).isGreaterThanOrEqualTo(2L * episodes);
            assertThat(dev.liveQps()).isZero();
        }
    }

    /** Three short episodes of an RC warm-up with completion events ({@code -e}), and time stamps ({@code -t}) when asked. */
    private static HotPathWarmup.Result threeEpisodesWithEvents(boolean timestamps) throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            int episodes = 3;
            HotPathWarmup.Result r = HotPathWarmup.run(dev, HotPathWarmup.connected(QpType.RC, Mtu.MTU_1024), 4096,
                episodes * HotPathWarmup.SHORT_EPISODE, 30_000_000_000L, HotPathWarmup.Memory.PINNED, new JitQuiet(),
                true, timestamps);
            assertThat(r.roundTrips()).isEqualTo(episodes * HotPathWarmup.SHORT_EPISODE);
            assertThat(dev.liveQps()).isZero();
            return r;
        }
    }

    @Test
    void shouldWaitForCompletionEventsAsARunWithEventsDoes() throws Exception {
        HotPathWarmup.Result r = threeEpisodesWithEvents(false);
        // each side woke for its completions: at least one event per round trip and side
        // (a receive and a send completion may share one)
        assertThat(r.events()).isGreaterThanOrEqualTo(2 * r.roundTrips());
        // polling, it takes none
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(FreePorts.udp("127.0.0.2")))) {
            HotPathWarmup.Result polled = HotPathWarmup.run(dev, QpType.RC, 64, Mtu.MTU_1024, 300, 30_000_000_000L);
            assertThat(polled.events()).isZero();
        }
    }

    @Test
    void shouldWaitForEventsAndReadTimestampsAsARunWithBothDoes() throws Exception {
        HotPathWarmup.Result r = threeEpisodesWithEvents(true);
        // -e -t's loop in every episode: woken by events, every completion read with its time stamp
        assertThat(r.events()).isGreaterThanOrEqualTo(2 * r.roundTrips());
        assertThat(r.timestamped()).isEqualTo(4L * r.roundTrips());
    }

    @Test
    void shouldReadCompletionTimestampsAsARunWithTsDoes() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            // a budget (1.8 s) whose busy reserve (the last 1.5 s) begins during the deep-sleep
            // episodes: the busy episodes after them read the extended CQs until the budget ends
            HotPathWarmup.Result r = HotPathWarmup.run(dev, HotPathWarmup.connected(QpType.RC, Mtu.MTU_1024), 4096,
                1_000_000, 1_800_000_000L, HotPathWarmup.Memory.PINNED, JitQuiet.never(), false, true);
            assertThat(r.roundTrips()).isLessThan(1_000_000);
            assertThat(r.busyRoundTrips()).isPositive();
            // a receive and a send completion per round trip and side, each with its time stamp
            assertThat(r.timestamped()).isEqualTo(4L * r.busyRoundTrips());
            assertThat(dev.liveQps()).isZero();
        }
    }

    @Test
    void shouldTakeTheBufferOfAnImplicitRunFromJrxesAllocatorAndGiveItBack() {
        HotPathWarmup.Memory implicit = new HotPathWarmup.Memory(Access.LOCAL_WRITE | Access.ON_DEMAND, true);
        HotPathWarmup.Memory explicit = new HotPathWarmup.Memory(Access.LOCAL_WRITE | Access.ON_DEMAND, false);
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            // an implicit region reaches jrxe's own memory directly, any other through a system call
            java.lang.foreign.MemorySegment a = implicit.allocate(arena, 4096);
            assertThat(dev.jrxe.memory.NativeMemory.owns(a.address(), 4096)).isTrue();
            implicit.free(a);
            assertThat(dev.jrxe.memory.NativeMemory.owns(a.address(), 4096)).isFalse();
            java.lang.foreign.MemorySegment b = explicit.allocate(arena, 4096);
            assertThat(dev.jrxe.memory.NativeMemory.owns(b.address(), 4096)).isFalse();
            assertThat(b.address() % PingpongCommand.PAGE_SIZE).isZero();
        }
    }

    @Test
    void shouldStopAtItsTimeBudget() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            // a budget already spent: it stops at its first look at the clock (the end of its first
            // episode) instead of running 10 million
            HotPathWarmup.Result r = HotPathWarmup.run(dev, QpType.RC, 8, Mtu.MTU_1024, 10_000_000, 1);
            assertThat(r.roundTrips()).isEqualTo(HotPathWarmup.SHORT_EPISODE);
            assertThat(dev.liveQps()).isZero();
        }
    }

    @Test
    void shouldBusyPollAsTheRunDoesBeforeItsBudgetEndsWhenTheJitNeverQuietens() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            // a JIT that keeps compiling (as beside a peer's warm-up on 2 cores): the yielding
            // episodes never end on their own, and the measured loop would start uncompiled
            HotPathWarmup.Result r = HotPathWarmup.run(dev, HotPathWarmup.connected(QpType.RC, Mtu.MTU_1024), 8,
                10_000_000, 3_500_000_000L, HotPathWarmup.Memory.PINNED, JitQuiet.never());
            assertThat(r.busyRoundTrips()).isPositive();
            assertThat(r.roundTrips()).isLessThan(10_000_000);
            assertThat(dev.liveQps()).isZero();
        }
    }

    /**
     * The lengths of the episodes two sides play until the plan stops them, with a JIT whose
     * compilation total is {@code total}'s; {@code onConfirming} runs before each confirming
     * episode (of {@link HotPathWarmup#CONFIRMING_EPISODE} round trips) the initiator starts.
     */
    private static java.util.List<Integer> plannedEpisodes(java.util.concurrent.atomic.AtomicLong total,
                                                           Runnable onConfirming) throws Exception {
        HotPathWarmup.Episodes episodes = new HotPathWarmup.Episodes(1_000_000, System.nanoTime() + 20_000_000_000L,
            JitQuiet.reporting(total::get));
        java.util.List<Integer> lengths = new java.util.ArrayList<>();
        Thread responder = new Thread(() -> {
            while (episodes.length() > 0 && episodes.next(true)) {
                // (plays no round trips: only the plan is under test)
            }
        });
        responder.start();
        int length;
        while ((length = episodes.length()) > 0) {
            lengths.add(length);
            if (length == HotPathWarmup.CONFIRMING_EPISODE) {
                onConfirming.run();
            }
            if (!episodes.next(true)) {
                break;
            }
        }
        responder.join(30_000);
        assertThat(responder.isAlive()).isFalse();
        return lengths;
    }

    @Test
    void shouldConfirmItsEndWithEpisodesLongEnoughForTheJitToCompileAgain() throws Exception {
        java.util.List<Integer> lengths = plannedEpisodes(new java.util.concurrent.atomic.AtomicLong(), () -> { });
        // a method a trap sent back to the interpreter is compiled again after some 5,000 calls:
        // a confirming episode shorter than that ends before the compilation it must see
        assertThat(HotPathWarmup.CONFIRMING_EPISODE).isGreaterThanOrEqualTo(5_000);
        assertThat(lengths).hasSizeGreaterThan(2);
        assertThat(lengths.subList(lengths.size() - 2, lengths.size()))
            .containsOnly(HotPathWarmup.CONFIRMING_EPISODE);
    }

    @Test
    void shouldGoOnWhenAConfirmingEpisodeCompiled() throws Exception {
        java.util.concurrent.atomic.AtomicLong total = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicInteger confirming = new java.util.concurrent.atomic.AtomicInteger();
        java.util.List<Integer> lengths = plannedEpisodes(total, () -> {
            if (confirming.incrementAndGet() == 1) {
                total.addAndGet(20); // the first confirming episode compiles (a trap's recompilation)
            }
        });
        // it did not end after the two confirmations that followed the quiet: the compilation
        // sent it back to busy episodes, and two more confirmations that compiled nothing ended it
        assertThat(confirming.get()).isGreaterThanOrEqualTo(3);
        assertThat(lengths.subList(lengths.size() - 2, lengths.size()))
            .containsOnly(HotPathWarmup.CONFIRMING_EPISODE);
        assertThat(lengths.indexOf(HotPathWarmup.CONFIRMING_EPISODE))
            .isLessThan(lengths.lastIndexOf(HotPathWarmup.SHORT_EPISODE));
    }

    @Test
    void shouldBeSkippedWithNoWarmup() {
        RcPingpongCommand c = new RcPingpongCommand();
        new picocli.CommandLine(c).parseArgs("--no-warmup");
        assertThat(c.noWarmup).isTrue();
        RcPingpongCommand d = new RcPingpongCommand();
        new picocli.CommandLine(d).parseArgs();
        assertThat(d.noWarmup).as("the warm-up is the default").isFalse();
    }
}
