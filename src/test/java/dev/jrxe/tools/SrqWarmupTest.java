package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Mtu;
import dev.jrxe.internal.Internals;
import dev.jrxe.transport.TransportCounters;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import org.junit.jupiter.api.Test;

/**
 * srq-pingpong's untimed warm-up (issue 15): QPs of the tool's own device, receiving through shared
 * receive queues, exchange the run's messages in episodes that each end with nothing in flight.
 */
class SrqWarmupTest {
    @Test
    void shouldExchangeOnEveryQpThroughSharedReceiveQueuesAndLeaveNothingBehind() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            TransportCounters c = Internals.transportCounters(dev);
            long recvsBefore = c.get(TransportCounters.RDMA_RECVS);
            int episodes = 3;
            int roundTrips = episodes * HotPathWarmup.SHORT_EPISODE;
            HotPathWarmup.Result r = SrqWarmup.run(dev, 4, 16, 4096, Mtu.MTU_1024, roundTrips, 30_000_000_000L);
            // every exchange of every episode completed: none left a message behind for the next
            assertThat(r.roundTrips()).isEqualTo(roundTrips);
            // and each side sent exactly its episodes' messages, where srq_pingpong's client (and
            // the tool, as it) may post up to one more per QP at the end of a run
            assertThat(c.get(TransportCounters.RDMA_RECVS) - recvsBefore).isEqualTo(2L * roundTrips);
            assertThat(dev.liveQps()).isZero();
        }
    }

    @Test
    void shouldWaitForCompletionEventsAsARunWithEventsDoes() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            int roundTrips = 2 * HotPathWarmup.SHORT_EPISODE;
            HotPathWarmup.Result r = SrqWarmup.run(dev, 4, 16, 4096, Mtu.MTU_1024, roundTrips, 30_000_000_000L,
                HotPathWarmup.Memory.PINNED, true);
            assertThat(r.roundTrips()).isEqualTo(roundTrips);
            // each side woke for its completions (an event may bring several)
            assertThat(r.events()).isPositive();
            assertThat(dev.liveQps()).isZero();
        }
    }

    @Test
    void shouldCompleteAnEpisodeShorterThanItsFirstPings() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            // 8 exchanges on 16 QPs: the first pings go on 8 of them only, and all 8 complete
            HotPathWarmup.Result r = SrqWarmup.run(dev, 16, 32, 64, Mtu.MTU_1024, 8, 30_000_000_000L);
            assertThat(r.roundTrips()).isEqualTo(8);
            assertThat(Internals.transportCounters(dev).get(TransportCounters.RDMA_RECVS)).isEqualTo(16);
            assertThat(dev.liveQps()).isZero();
        }
    }

    @Test
    void shouldTouchOdpMemoryAfreshInEveryEpisode() throws Exception {
        int udp = FreePorts.udp("127.0.0.2");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(udp))) {
            HotPathWarmup.Memory odp = new HotPathWarmup.Memory(Access.LOCAL_WRITE | Access.ON_DEMAND, false);
            int episodes = 3;
            HotPathWarmup.Result r = SrqWarmup.run(dev, 4, 16, 4096, Mtu.MTU_1024,
                episodes * HotPathWarmup.SHORT_EPISODE, 30_000_000_000L, odp);
            assertThat(r.roundTrips()).isEqualTo(episodes * HotPathWarmup.SHORT_EPISODE);
            assertThat(Internals.keys(dev).counters().pageFaults()).isGreaterThanOrEqualTo(2L * episodes);
            assertThat(dev.liveQps()).isZero();
        }
    }

    @Test
    void shouldBeTheDefaultAndSkippedWithNoWarmup() {
        SrqPingpongCommand c = new SrqPingpongCommand();
        new picocli.CommandLine(c).parseArgs("--no-warmup");
        assertThat(c.noWarmup).isTrue();
        SrqPingpongCommand d = new SrqPingpongCommand();
        new picocli.CommandLine(d).parseArgs();
        assertThat(d.noWarmup).as("the warm-up is the default").isFalse();
    }
}
