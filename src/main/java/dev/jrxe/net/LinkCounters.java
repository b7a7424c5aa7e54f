package dev.jrxe.net;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per-device link counters: packets and bytes each way, and drops by {@link DropReason}.
 * Written by the progress thread, readable from any thread.
 */
public final class LinkCounters {
    private static final int TX_PACKETS = 0;
    private static final int TX_BYTES = 1;
    private static final int RX_PACKETS = 2;
    private static final int RX_BYTES = 3;
    private static final int FIRST_DROP = 4;

    private final AtomicLongArray values = new AtomicLongArray(FIRST_DROP + DropReason.values().length);

    public void sent(int bytes) {
        values.getAndAdd(TX_PACKETS, 1);
        values.getAndAdd(TX_BYTES, bytes);
    }

    public void received(int bytes) {
        values.getAndAdd(RX_PACKETS, 1);
        values.getAndAdd(RX_BYTES, bytes);
    }

    public void drop(DropReason reason) {
        values.getAndAdd(FIRST_DROP + reason.ordinal(), 1);
    }

    public long txPackets() {
        return values.get(TX_PACKETS);
    }

    public long txBytes() {
        return values.get(TX_BYTES);
    }

    public long rxPackets() {
        return values.get(RX_PACKETS);
    }

    public long rxBytes() {
        return values.get(RX_BYTES);
    }

    public long drops(DropReason reason) {
        return values.get(FIRST_DROP + reason.ordinal());
    }

    public long totalDrops() {
        long sum = 0;
        for (DropReason r : DropReason.values()) {
            sum += drops(r);
        }
        return sum;
    }
}
