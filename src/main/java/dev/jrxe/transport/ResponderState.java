package dev.jrxe.transport;

import dev.jrxe.memory.MemoryKey;

/** What the responder of one QP remembers between packets. */
final class ResponderState {
    /** Next PSN expected. */
    int ePsn;
    /** Messages completed, 24 bits (goes into AETH). */
    int msn;
    /** A PSN-sequence NAK went out and ePSN has not arrived since. */
    boolean seqNakSent;

    // ---- message in progress
    /** 0 = between messages; else the op class of the message in progress (SEND or WRITE). */
    int inProgress;
    static final int IN_SEND = 1;
    static final int IN_WRITE = 2;
    /**
     * Receive WQE being filled by a SEND (a private copy of the queue's entry, taken off the queue
     * when the message began so that a shared queue can serve other QPs), and bytes placed so far.
     */
    RecvWqe recvWqe;
    RecvWqe taken;
    long recvOffset;
    /** Target of the WRITE in progress. */
    MemoryKey writeKey;
    long writeVa;
    long writeRemaining;
    long writeLength;

    /** A coalesced ACK is owed (PSN of the newest packet that asked for one). */
    boolean ackPending;
    int ackPsn;
    /** When the owed ACK goes. */
    final AckHold hold = new AckHold();

    // ---- READ and ATOMIC resources (rxe's resp.resources), a ring sized max_dest_rd_atomic
    final Resource[] resources = new Resource[MAX_RESOURCES];
    /** The device limit of max_dest_rd_atomic: every outstanding READ/atomic keeps its entry. */
    static final int MAX_RESOURCES = 128;
    int resourceHead;
    int resourceCount;

    ResponderState() {
        for (int i = 0; i < resources.length; i++) {
            resources[i] = new Resource();
        }
    }

    static final class Resource {
        static final int READ = 1;
        static final int ATOMIC = 2;
        int kind;
        int firstPsn;
        int lastPsn;
        long va;
        int rkey;
        long length;
        long original;
        int msn;
    }

    void reset(int psn) {
        ePsn = psn;
        msn = 0;
        seqNakSent = false;
        inProgress = 0;
        recvWqe = null;
        recvOffset = 0;
        writeKey = null;
        ackPending = false;
        hold.reset();
        resourceHead = 0;
        resourceCount = 0;
    }
}
