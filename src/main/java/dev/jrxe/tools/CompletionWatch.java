package dev.jrxe.tools;

import dev.jrxe.internal.Internals;
import dev.jrxe.transport.TransportCounters;
import dev.jrxe.verbs.Device;
import java.io.PrintWriter;

/**
 * How long a pingpong tool has waited for its next completion, so that it never waits silently:
 * after {@link #NOTICE_NANOS} it says once that it is still waiting and why that may be; after
 * its idle timeout it gives up with the likely causes (the peer exited, or it listens on another
 * UDP port) instead of spinning forever, as the C tools do. A completion starts the wait over, and
 * so does a packet the device received (a long message still arriving is progress, not silence).
 */
final class CompletionWatch {
    /** When the tool first says it is waiting: 3 s. */
    static final long NOTICE_NANOS = 3_000_000_000L;
    /** Empty polls between two looks at the clock while busy-polling. */
    private static final int POLLS_PER_LOOK = 256;

    private final PrintWriter err;
    private final String tool;
    private final int udpPort;
    private final long giveUpNanos;
    private final java.util.function.LongSupplier packets;
    private long lastPackets;
    private long completions;
    private long seenCompletions;
    private long since;
    private boolean noticed;
    private int spins;

    /**
     * @param idleSeconds seconds without a completion or a packet before giving up; 0 waits
     *                    forever (and still says it is waiting)
     * @param packets     the packets the device received so far
     */
    CompletionWatch(PrintWriter err, String tool, int udpPort, int idleSeconds,
                    java.util.function.LongSupplier packets) {
        this.err = err;
        this.tool = tool;
        this.udpPort = udpPort;
        this.giveUpNanos = idleSeconds * 1_000_000_000L;
        this.packets = packets;
        this.lastPackets = packets.getAsLong();
        this.since = System.nanoTime();
    }

    /**
     * A watch over the packets {@code device} receives. The tools and their warm-up make their
     * watches here, so that the JIT meets one supplier class in both (another class in the measured
     * loop would undo the code compiled in the warm-up).
     */
    static CompletionWatch of(PrintWriter err, String tool, int udpPort, int idleSeconds,
                              Device device) {
        return new CompletionWatch(err, tool, udpPort, idleSeconds,
            () -> Internals.transportCounters(device).get(TransportCounters.RCVD_PKTS));
    }

    /**
     * A completion arrived: the wait starts over. Only counted here (the measured loop calls this
     * for every completion); the clock is read when the tool next looks at its wait.
     */
    void completed() {
        completions++;
    }

    /** For a busy-poll loop after an empty poll: false once the tool gives up (the reason printed). */
    boolean keepPolling() {
        return ++spins % POLLS_PER_LOOK != 0 || keepWaiting();
    }

    /** False once the wait passed the idle timeout (after printing why the tool gives up). */
    boolean keepWaiting() {
        long received = packets.getAsLong();
        long now = System.nanoTime();
        if (received != lastPackets || completions != seenCompletions) {
            lastPackets = received;
            seenCompletions = completions;
            since = now;
            noticed = false;
            return true;
        }
        long waited = now - since;
        if (giveUpNanos > 0 && waited >= giveUpNanos) {
            err.printf("%s: no completion and no packet for %d s: giving up (%s)%n", tool,
                giveUpNanos / 1_000_000_000L, causes());
            err.flush();
            return false;
        }
        if (!noticed && waited >= NOTICE_NANOS) {
            noticed = true;
            err.printf("%s: no completion and no packet for %d s, still waiting%s (%s)%n", tool,
                NOTICE_NANOS / 1_000_000_000L,
                giveUpNanos > 0 ? "; giving up after " + giveUpNanos / 1_000_000_000L + " s" : "", causes());
            err.flush();
        }
        return true;
    }

    /** The likely causes of a peer that does not answer, also after RETRY_EXC_ERR. */
    String causes() {
        return "the peer may have exited, or its --udp-port is not " + udpPort + " as this side's";
    }
}
