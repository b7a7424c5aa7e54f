package dev.jrxe.transport;

import dev.jrxe.Configuration;

/**
 * The numbers one device's engine runs by (each the default of a {@code jrxe.*} property in
 * {@link Configuration}; a device may set its own through {@code DeviceConfig}).
 *
 * @param appActiveNanos  how long after an application thread last drove the engine the progress
 *                        thread stays out of its way (looking every this long whether an ACK the
 *                        application held is past its hold, when it sends it)
 * @param spinRounds      empty rounds the progress thread makes (yielding) before it sleeps in poll(2)
 * @param maxSleepNanos   the longest such a sleep lasts
 * @param pollYieldEvery  an application thread that polls an empty CQ yields every this many
 *                        empty polls (0: never)
 * @param ackHoldNanos    how long an owed ACK may wait for an answer to ride with (0: never held)
 * @param lazyAckNanos    how long one coalesced ACK may wait for more messages (0: no lazy ACKs)
 * @param srdPaths        UDP source ports (paths) an SRD QP spreads its packets over
 * @param srdTimeoutNanos SRD retransmit timeout
 * @param srdMaxPeers     most peers an SRD QP keeps per-peer state for
 * @param maxPayload      largest RoCE payload accepted per packet (larger ones are dropped, counted)
 * @param waitServes      a thread waiting for a completion event serves the engine meanwhile
 *                        ({@link Engine#serveUntil}), sleeping in poll(2) itself
 */
public record EngineTuning(long appActiveNanos, int spinRounds, long maxSleepNanos, int pollYieldEvery,
                           long ackHoldNanos, long lazyAckNanos, int srdPaths, long srdTimeoutNanos, int srdMaxPeers,
                           int maxPayload, boolean waitServes) {
    public EngineTuning {
        check(appActiveNanos > 0, "appActiveNanos", appActiveNanos);
        check(spinRounds >= 0, "spinRounds", spinRounds);
        check(maxSleepNanos > 0, "maxSleepNanos", maxSleepNanos);
        check(pollYieldEvery >= 0, "pollYieldEvery", pollYieldEvery);
        check(ackHoldNanos >= 0, "ackHoldNanos", ackHoldNanos);
        check(lazyAckNanos >= 0, "lazyAckNanos", lazyAckNanos);
        check(srdPaths >= 1 && srdPaths <= 16, "srdPaths (1..16)", srdPaths);
        check(srdTimeoutNanos > 0, "srdTimeoutNanos", srdTimeoutNanos);
        check(srdMaxPeers >= 1, "srdMaxPeers", srdMaxPeers);
        check(maxPayload >= 256 && maxPayload <= 65536, "maxPayload (256..65536)", maxPayload);
    }

    private static void check(boolean ok, String what, long value) {
        if (!ok) {
            throw new IllegalArgumentException(what + " out of range: " + value);
        }
    }

    /** Every value from {@link Configuration}: its system property, else its default. */
    public static EngineTuning fromConfiguration() {
        return new EngineTuning(Configuration.engineAppActiveNanos(), Configuration.engineSpinRounds(),
            Configuration.engineMaxSleepNanos(), Configuration.enginePollYieldEvery(),
            Configuration.engineAckHoldNanos(), Configuration.engineLazyAckNanos(), Configuration.srdPaths(),
            Configuration.srdTimeoutMillis() * 1_000_000L, Configuration.srdMaxPeers(),
            Configuration.wireMaxPayload(), Configuration.engineWaitServes());
    }
}
