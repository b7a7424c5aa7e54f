package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The requester context's steering and congestion control (docs/SRD.md §5), on a clock the test
 * sets: round-robin over good paths, a penalised path avoided until its penalty decays, a slow
 * path avoided, retransmissions on another path, the window halved on loss and trimmed on RTT
 * growth at most once per RTT, grown by 1/cwnd per resolved packet, and bounded.
 */
class SrdSendContextTest {
    private static final long US = 1_000;
    private static final long MS = 1_000_000;

    private static SrdSendContext context(int paths) {
        return new SrdSendContext(1, 0x7F000003, 0x42, 7, 100, paths);
    }

    @Test
    void shouldSpreadNewPacketsOverEveryPathRoundRobin() {
        SrdSendContext c = context(4);
        int[] used = new int[4];
        for (int i = 0; i < 400; i++) {
            used[c.choosePath(0)]++;
        }
        assertThat(used).containsExactly(100, 100, 100, 100);
    }

    @Test
    void shouldAvoidAPathThatTimedOutUntilItsPenaltyDecays() {
        SrdSendContext c = context(4);
        long now = 10 * MS;
        c.timeout(2, now);
        for (int i = 0; i < 100; i++) {
            assertThat(c.choosePath(now)).isNotEqualTo(2);
        }
        // a penalty of 1 halves every 20 ms: below 0.5 after a little more than 20 ms
        boolean back = false;
        for (int i = 0; i < 8; i++) {
            back |= c.choosePath(now + 41 * MS) == 2;
        }
        assertThat(back).as("the path is probed again once its penalty decayed").isTrue();
    }

    @Test
    void shouldAvoidAPathMuchSlowerThanTheBest() {
        SrdSendContext c = context(3);
        for (int i = 0; i < 20; i++) {
            c.rttSample(0, 30 * US, 0);
            c.rttSample(1, 30 * US, 0);
            c.rttSample(2, 5 * MS, 0);
        }
        for (int i = 0; i < 60; i++) {
            assertThat(c.choosePath(0)).isNotEqualTo(2);
        }
    }

    @Test
    void shouldRetransmitOnTheCheapestOtherPath() {
        SrdSendContext c = context(4);
        for (int p = 0; p < 4; p++) {
            c.rttSample(p, (p + 1) * 100 * US, 0);
        }
        assertThat(c.retransmitPath(0, 0)).isEqualTo(1);
        assertThat(c.retransmitPath(0, 1)).isEqualTo(0);
        assertThat(context(1).retransmitPath(0, 0)).as("one path: that one").isZero();
    }

    @Test
    void shouldHalveTheWindowOnLossAtMostOncePerRttAndGrowItBack() {
        SrdSendContext c = context(2);
        c.rttSample(0, 100 * US, 0);
        double start = c.cwnd;
        c.timeout(0, 10 * MS);
        assertThat(c.cwnd).isEqualTo(start / 2);
        c.timeout(0, 10 * MS + 50 * US); // within one RTT: the same loss event
        assertThat(c.cwnd).isEqualTo(start / 2);
        c.timeout(0, 11 * MS);
        assertThat(c.cwnd).isEqualTo(start / 4);
        for (int i = 0; i < 100; i++) {
            c.timeout(0, 20 * MS + i * MS);
        }
        assertThat(c.cwnd).as("never below 2").isEqualTo(2);
        for (int i = 0; i < 100_000; i++) {
            c.resolvedOne();
        }
        assertThat(c.cwnd).as("never above the window").isEqualTo(SrdState.WINDOW);
    }

    @Test
    void shouldTrimTheWindowWhenTheRttGrows() {
        SrdSendContext c = context(1);
        c.rttSample(0, 50 * US, 0);
        double start = c.cwnd;
        for (int i = 0; i < 50; i++) {
            c.rttSample(0, 2 * MS, 5 * MS);
        }
        assertThat(c.cwnd).isEqualTo(start * 0.875);
        c.rttSample(0, 2 * MS, 5 * MS + 3 * MS);
        assertThat(c.cwnd).isLessThan(start * 0.875);
    }

    @Test
    void shouldBackOffRetransmissionTimeoutsUpToTheCap() {
        SrdSendContext c = context(1);
        assertThat(c.rto(0, 0)).as("before any sample").isEqualTo(5 * MS);
        c.rttSample(0, 40 * US, 0);
        assertThat(c.rto(0, 0)).as("at least 2 ms").isEqualTo(2 * MS);
        assertThat(c.rto(0, 1)).isEqualTo(4 * MS);
        assertThat(c.rto(0, 10)).as("at most 64 ms").isEqualTo(64 * MS);
    }

    @Test
    void shouldKeepTheWindowWithinWAndTheCongestionWindow() {
        SrdSendContext c = context(1);
        c.cwnd = 4;
        c.inFlight = 4;
        assertThat(c.canSend()).isFalse();
        c.inFlight = 0;
        c.next = c.base + SrdState.WINDOW;
        assertThat(c.canSend()).isFalse();
        c.next = c.base + SrdState.WINDOW - 1;
        assertThat(c.canSend()).isTrue();
        c.dead = true;
        assertThat(c.canSend()).isFalse();
    }
}
