package dev.jrxe.transport;

/**
 * What an SRD responder keeps for one peer QP (docs/SRD.md §3): the peer's epoch, the window
 * base the peer last announced and one status byte per PSN of the window. Fixed size; engine
 * thread only.
 */
final class SrdRecvContext {
    /** Status of a PSN not seen yet. */
    static final byte UNSEEN = 0;
    /** Status of a PSN executed (and acknowledged). */
    static final byte DONE = 1;
    // any other status is the AETH syndrome of the NAK the PSN got (0x61..0x63)

    final long key;
    final int addr;
    final int qpn;
    int epoch;
    /** The epoch before this one: never accepted again (its stragglers are stale). */
    int previousEpoch;
    /** Window base (24-bit PSN): every PSN before it is resolved at the sender. */
    int base;
    final byte[] status = new byte[SrdState.WINDOW];
    long lastActive;
    /** An ACK is owed at the end of this receive batch. */
    boolean ackPending;
    /** The packet that made the ACK owed: its PSN, timestamp and path, echoed. */
    int ackPsn;
    int ackTimestamp;
    int ackPath;

    SrdRecvContext(long key, int addr, int qpn) {
        this.key = key;
        this.addr = addr;
        this.qpn = qpn;
    }

    /** Starts over for a (new) epoch whose sender's base is {@code base}. */
    void restart(int newEpoch, int newBase) {
        previousEpoch = epoch;
        epoch = newEpoch;
        base = newBase;
        java.util.Arrays.fill(status, UNSEEN);
        // an ACK already owed stays on the QP's list: it goes once, with the new epoch's state
    }

    byte status(int psn) {
        return status[psn & (SrdState.WINDOW - 1)];
    }

    void status(int psn, byte s) {
        status[psn & (SrdState.WINDOW - 1)] = s;
    }

    /** Moves the window base forward to {@code newBase}, forgetting the PSNs it leaves. */
    void slide(int newBase) {
        int n = dev.jrxe.wire.Psn.diff(newBase, base);
        if (n >= SrdState.WINDOW) {
            java.util.Arrays.fill(status, UNSEEN);
        } else {
            for (int i = 0; i < n; i++) {
                status[(base + i) & (SrdState.WINDOW - 1)] = UNSEEN;
            }
        }
        base = newBase;
    }

    /** Heap bytes of this context: its object and status array. */
    long footprint() {
        return SrdState.object(10 * 8) + SrdState.array(status.length, 1);
    }
}
