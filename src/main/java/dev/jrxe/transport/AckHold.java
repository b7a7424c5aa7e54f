package dev.jrxe.transport;

import dev.jrxe.Configuration;
import dev.jrxe.wire.Psn;

/**
 * When a QP's responder sends the ACK it owes for messages that completed receives (the ACK of a
 * WRITE, READ, atomic, duplicate or NAK never waits). The aim is fewer packets and system calls
 * without ever keeping a requester that waits for its send completions waiting long.
 *
 * <p>Eager (the start): the ACK waits for packets that leave anyway, typically the application's
 * answer to the message (one {@code sendmmsg} for both), at most {@code jrxe.engine.ackHoldNanos}
 * longer than it would have waited otherwise (counted from the end of the cycle that kept it).
 * Every {@link #FIRST_PROBE} ACKs (backing off to {@link #MAX_PROBE} while the answer is no) it is
 * held over the answer instead, to learn whether the requester waits for it.
 *
 * <p>Lazy, once the requester has sent a message while an ACK was owed (it does not wait for
 * them): one ACK covers several messages, as NICs coalesce ACKs. It is due after
 * {@code jrxe.engine.lazyAckNanos} or {@link #LAZY_MESSAGES} messages or {@link #LAZY_PSNS} PSNs,
 * and then goes with the next packets that leave; it goes alone at twice those counts or one hold
 * time later. If by then the requester has been quiet for a hold time, it may have been waiting
 * for the ACK; when that happens for at least two and a quarter of the recent lazy ACKs, its window
 * is smaller than what a lazy ACK covers: back to eager, and the next probe comes later. (Now and
 * then is only a pause, say its thread descheduled.) All of this stays far inside the 128-PSN window
 * and below any ACK timeout worth using (4.096 us x 2^timeout: 67 ms at rxe's usual 14).
 *
 * <p>Only an application thread's duty cycle holds, and when that thread goes on to drive another
 * device (one thread serving two devices) it sends the held ACKs first ({@code Engine}); the
 * background thread sends owed ACKs at once, so an ACK never waits for a thread that has stopped
 * polling longer than the progress thread's look (1 to 4 ms, {@code Engine}), and not at all for
 * one that says so ({@code Engine.appStopsDriving}). Engine thread only.
 */
final class AckHold {
    /** The default hold and lazy times ({@code Configuration}); a device may set its own. */
    static final long HOLD_NANOS = Configuration.engineAckHoldNanos();
    static final long LAZY_NANOS = Configuration.engineLazyAckNanos();
    /** This QP's hold time and lazy time ({@link EngineTuning}). */
    private final long holdNanos;
    private final long lazyNanos;
    static final int LAZY_MESSAGES = 16;
    static final int LAZY_PSNS = 32;
    /** Lazy ACKs over which the share of those the requester waited for is judged. */
    static final int LAZY_WINDOW = 64;
    static final int FIRST_PROBE = 64;
    static final int MAX_PROBE = 4096;

    /** The owed ACK only acknowledges completed receives: it may be held. */
    boolean holdable;
    /** Engine clock when the oldest message the owed ACK covers arrived. */
    long since;
    /** Engine clock when the newest did. */
    long lastMessage;
    /**
     * Clock when the eager hold began: the end of the cycle that first kept the ACK, i.e. when it
     * would otherwise have left. The hold's budget is the delay it adds, so it does not count the
     * receive call and decoding that came before the decision ({@link #restartHold}).
     */
    long heldAt;
    /** An eager hold is running (since {@link #heldAt}). */
    boolean holding;
    /** The last {@link #sendNow} began an eager hold. */
    boolean holdBegan;
    /** Messages the owed ACK covers, and the PSN of the oldest. */
    int messages;
    int firstPsn;
    int lastPsn;
    boolean lazy;
    /** Lazy ACKs in the current judging window, and those of them that found the requester waiting. */
    int lazyAcks;
    int lazyWaits;
    /** Eager: this ACK is held over the answer to learn whether the requester waits for it. */
    boolean probing;
    int probePeriod = FIRST_PROBE;
    int untilProbe = FIRST_PROBE;

    /** With the default times. */
    AckHold() {
        this(HOLD_NANOS, LAZY_NANOS);
    }

    AckHold(long holdNanos, long lazyNanos) {
        this.holdNanos = holdNanos;
        this.lazyNanos = lazyNanos;
    }

    /** A message that asked for an ACK arrived; {@code wasOwed}: an ACK was owed already. */
    void owe(boolean holdableMessage, boolean wasOwed, long now, int psn) {
        if (wasOwed) {
            if (holdable && holdableMessage && !lazy && lazyNanos > 0) {
                // the requester sent again without having the ACK: it does not wait for them
                probing = false;
                lazy = true;
                lazyAcks = 0;
                lazyWaits = 0;
                probePeriod = FIRST_PROBE;
                untilProbe = FIRST_PROBE;
            }
            holdable &= holdableMessage;
        } else {
            holdable = holdableMessage;
            holding = false;
            since = now;
            messages = 0;
            firstPsn = psn;
        }
        messages++;
        lastPsn = psn;
        lastMessage = now;
    }

    /**
     * The owed ACK went, whichever way (the responder calls this for every ACK it sends). A probe
     * whose ACK went before its hold ran out (released for the thread's other device, sent by the
     * background thread, flushed by a NAK or duplicate) is over all the same: learning nothing,
     * assume the requester waits. Left running, it would hold every later ACK over its answer, so
     * each went in a system call of its own.
     */
    void sent() {
        holding = false;
        if (probing) {
            probing = false;
            backOff();
        }
    }

    /**
     * Whether the owed ACK goes in this flush. {@code piggyback}: packets leave anyway;
     * {@code mayHold}: an application thread drives, which comes back soon.
     */
    boolean sendNow(long now, boolean piggyback, boolean mayHold) {
        holdBegan = false;
        if (!mayHold || !holdable || holdNanos <= 0) {
            return true;
        }
        long age = now - since;
        if (lazy) {
            int psns = Psn.diff(lastPsn, firstPsn) + 1;
            if (age < lazyNanos && messages < LAZY_MESSAGES && psns < LAZY_PSNS) {
                return false;
            }
            if (!piggyback
                && age < lazyNanos + holdNanos && messages < 2 * LAZY_MESSAGES && psns < 2 * LAZY_PSNS) {
                return false;
            }
            boolean waited = !piggyback && now - lastMessage >= holdNanos;
            if (lazyAcks == LAZY_WINDOW) {
                lazyAcks = 0;
                lazyWaits = 0;
            }
            lazyAcks++;
            if (waited && ++lazyWaits >= 2 && lazyWaits * 4 >= lazyAcks) {
                // overdue with the requester quiet, for a quarter of the recent ACKs: it waits for
                // them (its window is smaller than what a lazy ACK covers), not just now and then
                // (its thread descheduled, say)
                lazy = false;
                backOff();
            }
            return true;
        }
        if (!holding) {
            holding = true;
            holdBegan = true;
            heldAt = now;
        }
        long held = now - heldAt;
        if (probing) {
            if (held < holdNanos) {
                return false;
            }
            // the hold ran out before the requester sent again: it waits for ACKs
            probing = false;
            backOff();
            return true;
        }
        if (piggyback) {
            if (lazyNanos > 0 && --untilProbe <= 0) {
                probing = true;
                return false;
            }
            return true;
        }
        return held >= holdNanos;
    }

    /**
     * The hold that {@link #sendNow} just began counts from {@code t}, the end of the cycle that
     * kept the ACK (when it would otherwise have left), rather than from that cycle's start.
     */
    void restartHold(long t) {
        if (holdBegan) {
            heldAt = t;
            holdBegan = false;
        }
    }

    private void backOff() {
        probePeriod = Math.min(MAX_PROBE, probePeriod * 2);
        untilProbe = probePeriod;
    }

    void reset() {
        holdable = false;
        holding = false;
        holdBegan = false;
        messages = 0;
        lazy = false;
        probing = false;
        probePeriod = FIRST_PROBE;
        untilProbe = FIRST_PROBE;
    }
}
