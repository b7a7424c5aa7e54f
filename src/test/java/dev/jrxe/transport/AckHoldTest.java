package dev.jrxe.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The ACK hold policy on a clock of its own (defaults: 20 us hold, 100 us lazy). */
class AckHoldTest {
    private static final long HOLD = AckHold.HOLD_NANOS;
    private static final long LAZY = AckHold.LAZY_NANOS;

    @Test
    void shouldUseTheDefaults() {
        assertThat(HOLD).isEqualTo(20_000);
        assertThat(LAZY).isEqualTo(100_000);
    }

    @Test
    void shouldHoldAnAckUntilPacketsLeaveOrTheHoldRunsOut() {
        AckHold h = new AckHold();
        h.owe(true, false, 0, 10);
        assertThat(h.sendNow(1_000, false, true)).isFalse();
        assertThat(h.sendNow(2_000, true, true)).as("rides with the answer").isTrue();
        // the hold counts from the decision to hold (the cycle that would have sent the ACK)
        h.owe(true, false, 10_000, 11);
        assertThat(h.sendNow(10_500, false, true)).isFalse();
        assertThat(h.sendNow(10_500 + HOLD - 1, false, true)).isFalse();
        assertThat(h.sendNow(10_500 + HOLD, false, true)).as("no answer came").isTrue();
    }

    @Test
    void shouldCountTheHoldFromTheEndOfTheCycleThatKeptTheAck() {
        AckHold h = new AckHold();
        h.owe(true, false, 0, 10);
        assertThat(h.sendNow(0, false, true)).isFalse();
        assertThat(h.holdBegan).isTrue();
        h.restartHold(7_000); // the receive call and decoding took 7 us of that cycle
        assertThat(h.sendNow(HOLD, false, true)).as("7 us of the hold are left").isFalse();
        h.restartHold(9_999_999); // only the cycle that began a hold may restart it
        assertThat(h.sendNow(7_000 + HOLD, false, true)).isTrue();
    }

    @Test
    void shouldNeverHoldForTheBackgroundThreadOrForOtherAcks() {
        AckHold h = new AckHold();
        h.owe(true, false, 0, 10);
        assertThat(h.sendNow(1, false, false)).as("background thread").isTrue();
        h.owe(false, false, 0, 11);
        assertThat(h.sendNow(1, false, true)).as("a WRITE's ACK").isTrue();
        h.owe(true, false, 0, 12);
        h.owe(false, true, 1, 13);
        assertThat(h.sendNow(2, false, true)).as("mixed with a WRITE's").isTrue();
        assertThat(h.lazy).isFalse();
    }

    @Test
    void shouldProbeNowAndThenAndBackOffWhileTheRequesterWaits() {
        AckHold h = new AckHold();
        long t = 0;
        int probes = 0;
        int[] probeAt = new int[3];
        for (int ack = 1; ack <= AckHold.FIRST_PROBE * 7 && probes < 3; ack++) {
            t += 50_000;
            h.owe(true, false, t, ack);
            if (!h.sendNow(t + 1_000, true, true)) {
                probeAt[probes++] = ack;
                // the requester waits: nothing comes until the hold runs out
                assertThat(h.sendNow(t + 1_000 + HOLD - 1, false, true)).isFalse();
                assertThat(h.sendNow(t + 1_000 + HOLD, false, true)).isTrue();
            }
            assertThat(h.lazy).isFalse();
        }
        assertThat(probeAt).containsExactly(AckHold.FIRST_PROBE, 3 * AckHold.FIRST_PROBE,
            7 * AckHold.FIRST_PROBE);
    }

    @Test
    void shouldEndAProbeWhoseAckGoesAnotherWay() {
        AckHold h = new AckHold();
        long t = 0;
        for (int ack = 1; ack < AckHold.FIRST_PROBE; ack++) {
            t += 50_000;
            h.owe(true, false, t, ack);
            assertThat(h.sendNow(t + 1_000, true, true)).isTrue();
        }
        t += 50_000;
        h.owe(true, false, t, 100);
        assertThat(h.sendNow(t + 1_000, true, true)).as("the probe holds over the answer").isFalse();
        // the thread goes on to drive the requester's device: the held ACK is released (and sent)
        assertThat(h.sendNow(t + 2_000, false, false)).isTrue();
        h.sent();
        assertThat(h.probing).as("the probe is over").isFalse();
        assertThat(h.untilProbe).as("as if the requester waited").isEqualTo(2 * AckHold.FIRST_PROBE);
        // the same when a NAK or a duplicate flushes the probed ACK (the responder's sendPendingAck)
        int next = h.untilProbe;
        for (int ack = 1; ack < next; ack++) {
            t += 50_000;
            h.owe(true, false, t, 200 + ack);
            assertThat(h.sendNow(t + 1_000, true, true)).isTrue();
        }
        t += 50_000;
        h.owe(true, false, t, 300);
        assertThat(h.sendNow(t + 1_000, true, true)).as("the second probe").isFalse();
        h.sent();
        assertThat(h.probing).as("flushed: the probe is over").isFalse();
        // so the next ACK rides with the answer again (before, it stayed held: a call of its own)
        t += 50_000;
        h.owe(true, false, t, 101);
        assertThat(h.sendNow(t + 1_000, true, true)).as("rides with the answer").isTrue();
    }

    @Test
    void shouldTurnLazyWhenTheRequesterSendsWhileAnAckIsOwedAndCoalesce() {
        AckHold h = new AckHold();
        h.owe(true, false, 0, 100);
        h.owe(true, true, 5_000, 101);
        assertThat(h.lazy).isTrue();
        long t = 5_000;
        int psn = 101;
        while (h.messages < AckHold.LAZY_MESSAGES) {
            assertThat(h.sendNow(t + 100, true, true)).as("not due after %d messages", h.messages).isFalse();
            t += 1_000;
            h.owe(true, true, t, ++psn);
        }
        assertThat(h.sendNow(t + 100, false, true)).as("due, waits for packets that leave").isFalse();
        assertThat(h.sendNow(t + 200, true, true)).isTrue();
        assertThat(h.lazy).isTrue();
    }

    @Test
    void shouldSendALazyAckAloneWhenNothingLeaves() {
        AckHold h = lazyHold();
        long t = h.lastMessage;
        h.owe(true, true, t + LAZY - 1, 3);
        assertThat(h.sendNow(t + LAZY + 1, false, true)).as("due: waits for packets that leave").isFalse();
        assertThat(h.sendNow(h.since + LAZY + HOLD - 1, false, true)).isFalse();
        assertThat(h.sendNow(h.since + LAZY + HOLD, false, true)).isTrue();
        assertThat(h.lazy).as("the requester kept sending").isTrue();
    }

    @Test
    void shouldGoBackToEagerWhenALazyRequesterWaitsForItsAcks() {
        AckHold h = lazyHold();
        assertThat(h.sendNow(h.since + LAZY, false, true)).as("due: waits for packets that leave").isFalse();
        // a requester with a window of 2: quiet until the ACK comes, every time
        assertThat(h.sendNow(h.since + LAZY + HOLD, false, true)).isTrue();
        assertThat(h.lazy).as("once may be a pause").isTrue();
        long t = h.since + LAZY + HOLD + 1_000;
        h.owe(true, false, t, 3);
        h.owe(true, true, t + 1_000, 4);
        assertThat(h.sendNow(h.since + LAZY + HOLD, false, true)).isTrue();
        assertThat(h.lazy).as("twice in two ACKs is a window").isFalse();
        assertThat(h.untilProbe).as("next probe later").isEqualTo(2 * AckHold.FIRST_PROBE);
    }

    @Test
    void shouldStayLazyWhenARequesterOnlyPausesNowAndThen() {
        AckHold h = lazyHold();
        long t = h.lastMessage;
        int psn = 2;
        for (int ack = 1; ack <= 3 * AckHold.LAZY_WINDOW; ack++) {
            while (h.messages < AckHold.LAZY_MESSAGES) {
                t += 1_000;
                h.owe(true, true, t, ++psn);
            }
            if (ack % 8 == 0) {
                // the requester pauses: the ACK goes alone, overdue
                assertThat(h.sendNow(h.since + LAZY + HOLD + 50_000, false, true)).isTrue();
                t = h.since + LAZY + HOLD + 60_000;
            } else {
                assertThat(h.sendNow(t + 10, true, true)).isTrue();
            }
            assertThat(h.lazy).as("after %d ACKs", ack).isTrue();
            t += 1_000;
            h.owe(true, false, t, ++psn); // the next message starts the next ACK
        }
    }

    @Test
    void shouldCapALazyAckByPsns() {
        AckHold h = lazyHold();
        h.owe(true, true, h.lastMessage + 10, 1 + AckHold.LAZY_PSNS);
        assertThat(h.sendNow(h.lastMessage + 20, false, true)).isFalse();
        assertThat(h.sendNow(h.lastMessage + 20, true, true)).isTrue();
        h = lazyHold();
        h.owe(true, true, h.lastMessage + 10, 2 * AckHold.LAZY_PSNS);
        assertThat(h.sendNow(h.lastMessage + 20, false, true)).as("half the window at most").isTrue();
    }

    @Test
    void shouldForgetEverythingOnReset() {
        AckHold h = lazyHold();
        h.reset();
        assertThat(h.lazy).isFalse();
        assertThat(h.untilProbe).isEqualTo(AckHold.FIRST_PROBE);
    }

    /** Lazy, owing an ACK for PSNs 1 and 2 since 1 ms. */
    private static AckHold lazyHold() {
        AckHold h = new AckHold();
        h.owe(true, false, 1_000_000, 1);
        h.owe(true, true, 1_001_000, 2);
        assertThat(h.lazy).isTrue();
        return h;
    }
}
