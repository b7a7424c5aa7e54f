package dev.jrxe.net;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per-device link counters: packets and bytes each way, system calls each way, and drops by
 * {@link DropReason}.
 *
 * <p>Single writer: only the thread that drives the link (and the transport on that thread)
 * updates them, so an update is a plain read plus an opaque write, no locked instruction. Any
 * thread may read them.
 */
public final class LinkCounters {
    private static final int TX_PACKETS = 0;
    private static final int TX_BYTES = 1;
    private static final int RX_PACKETS = 2;
    private static final int RX_BYTES = 3;
    private static final int TX_CALLS = 4;
    private static final int RX_CALLS = 5;
    private static final int TX_BY_REFERENCE = 6;
    private static final int FIRST_DROP = 7;
    private static final DropReason[] REASONS = DropReason.values();

    private final AtomicLongArray values = new AtomicLongArray(FIRST_DROP + REASONS.length);

    private void add(int index, long delta) {
        values.setOpaque(index, values.getPlain(index) + delta);
    }

    /** One datagram of {@code bytes} (UDP payload) went to the kernel. */
    public void sent(int bytes) {
        add(TX_PACKETS, 1);
        add(TX_BYTES, bytes);
    }

    /** One datagram that went to the kernel had its payload sent from where it lies ({@link Link#commitByReference}). */
    public void sentByReference() {
        add(TX_BY_REFERENCE, 1);
    }

    /** Datagrams sent with their payload by reference (a subset of {@link #txPackets}). */
    public long txByReference() {
        return values.getOpaque(TX_BY_REFERENCE);
    }

    /** One datagram of {@code bytes} (UDP payload) came from the kernel. */
    public void received(int bytes) {
        add(RX_PACKETS, 1);
        add(RX_BYTES, bytes);
    }

    /** One send system call was made. */
    public void sendCall() {
        add(TX_CALLS, 1);
    }

    /** One receive system call was made (including ones that found nothing). */
    public void receiveCall() {
        add(RX_CALLS, 1);
    }

    /** One packet was dropped for {@code reason}. */
    public void drop(DropReason reason) {
        add(FIRST_DROP + reason.ordinal(), 1);
    }

    public long txPackets() {
        return values.getOpaque(TX_PACKETS);
    }

    public long txBytes() {
        return values.getOpaque(TX_BYTES);
    }

    public long rxPackets() {
        return values.getOpaque(RX_PACKETS);
    }

    public long rxBytes() {
        return values.getOpaque(RX_BYTES);
    }

    /** Send system calls (sendmmsg, or one per datagram for the channel link). */
    public long txCalls() {
        return values.getOpaque(TX_CALLS);
    }

    /** Receive system calls (recvmmsg, or one per receive() of the channel link). */
    public long rxCalls() {
        return values.getOpaque(RX_CALLS);
    }

    public long drops(DropReason reason) {
        return values.getOpaque(FIRST_DROP + reason.ordinal());
    }

    public long totalDrops() {
        long sum = 0;
        for (DropReason r : REASONS) {
            sum += drops(r);
        }
        return sum;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder()
                .append("tx ").append(txPackets()).append(" pkts ").append(txBytes()).append(" B ")
                .append(txCalls()).append(" calls, rx ").append(rxPackets()).append(" pkts ")
                .append(rxBytes()).append(" B ").append(rxCalls()).append(" calls");
        for (DropReason r : REASONS) {
            long d = drops(r);
            if (d != 0) {
                sb.append(", ").append(r).append(' ').append(d);
            }
        }
        return sb.toString();
    }
}
