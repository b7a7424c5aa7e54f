package dev.jrxe.transport;

import dev.jrxe.memory.MemoryKey;
import dev.jrxe.wire.Psn;

/** What the responder of one QP remembers between packets. */
final class ResponderState {
    /** Next PSN expected. */
    int ePsn;
    /** Messages completed, 24 bits (goes into AETH). */
    int msn;
    /** PSN after the last SEND, WRITE or atomic executed: a duplicate SEND or WRITE is acknowledged up to the one before (rxe's ack_psn). */
    int ackablePsn;
    /** A PSN-sequence NAK went out and ePSN has not arrived since. */
    boolean seqNakSent;

    // ---- message in progress
    /** 0 = between messages; else the op class of the message in progress (SEND or WRITE). */
    int inProgress;
    /** UC: the message under way was dropped (counted); its remaining packets are ignored. */
    boolean ucDropping;
    static final int IN_SEND = 1;
    static final int IN_WRITE = 2;
    /**
     * Receive WQE being filled by a SEND (a private copy of the queue's entry, taken off the queue
     * when the message began so that a shared queue can serve other QPs), and bytes placed so far.
     */
    RecvWqe recvWqe;
    RecvWqe taken;
    long recvOffset;
    /**
     * Takes the oldest WQE of {@code qp}'s receive queue (its own or the shared one) into
     * {@link #taken}, off the queue, and returns it; null when none is posted.
     */
    RecvWqe takeRecvWqe(Qp qp) {
        RecvQueue q = qp.recvQueue();
        RecvWqe head = q == null ? null : q.peek();
        if (head == null) {
            return null;
        }
        taken.copyFrom(head);
        q.pop();
        return taken;
    }

    /** Target of the WRITE in progress (checked again for every packet). */
    MemoryKey writeKey;
    long writeVa;
    long writeRemaining;
    long writeLength;

    /** A coalesced ACK is owed (PSN of the newest packet that asked for one). */
    boolean ackPending;
    int ackPsn;
    /** When the owed ACK goes. */
    final AckHold hold;

    // ---- READ and ATOMIC resources (rxe's resp.resources): a ring of max_dest_rd_atomic entries
    // in PSN order. An entry whose responses (or atomic acknowledgement) are still to be sent is
    // pending; the engine's duty cycle sends them, oldest first, a budget at a time.
    final Resource[] resources = new Resource[MAX_RESOURCES];
    /** The device limit of max_dest_rd_atomic: every outstanding READ/atomic keeps its entry. */
    static final int MAX_RESOURCES = 128;
    /** Entries in use: max_dest_rd_atomic when the ring was last reset. */
    int capacity;
    /** Next entry to fill. */
    int resourceHead;
    /** Entries holding a request (at most capacity). */
    int resourceCount;
    /** Entries with replies still to send. */
    int pendingReplies;
    /** Replies this QP may still send in the current duty cycle. */
    int replyBudget = RcResponder.BUDGET;
    /**
     * A NAK could not go while replies were pending (a request out of sequence, or one without a
     * receive WQE, was dropped): when the replies are out, a PSN-sequence NAK makes the requester
     * send again from the expected PSN.
     */
    boolean nakAfterReplies;

    ResponderState(EngineTuning tuning) {
        this.hold = new AckHold(tuning.ackHoldNanos(), tuning.lazyAckNanos());
        for (int i = 0; i < resources.length; i++) {
            resources[i] = new Resource();
        }
    }

    static final class Resource {
        static final int READ = 1;
        static final int ATOMIC = 2;
        /** FLUSH or ATOMIC_WRITE: executed on arrival, answered by an empty READ response. */
        static final int EMPTY = 3;
        int kind;
        /** The PSNs the original request covers (READ: one per response). */
        int firstPsn;
        int lastPsn;
        /** The original request: address, key and length (READ), address and key (atomic). */
        long va;
        int rkey;
        long length;
        int msn;
        /** Every reply was sent once: what is pending now is the replay of a duplicate. */
        boolean answered;

        // ---- atomic
        int opcode;
        long compare;
        long swapAdd;
        long original;
        boolean executed;

        // ---- replies to send (READ: the range of a new request or of a duplicate)
        boolean pending;
        int curPsn;
        long curVa;
        long resid;
        /** The next response opens the message (FIRST or ONLY): the range starts at firstPsn. */
        boolean opening;
        /** The range to send was checked against the key. */
        boolean checked;
        /** The key it was checked against (a region, or a window's binding), while answering. */
        MemoryKey key;

        /** Sets the range of responses to send: {@code length} bytes at {@code va}, from {@code psn}. */
        void cursor(int psn, long va, long length) {
            curPsn = psn;
            curVa = va;
            resid = length;
            opening = psn == firstPsn;
            checked = false;
            key = null;
        }
    }

    /** The next entry to fill, or null when there is none free (max_dest_rd_atomic 0, or all pending). */
    Resource newResource() {
        if (capacity == 0) {
            return null;
        }
        Resource res = resources[resourceHead];
        if (resourceCount == capacity && res.pending) {
            if (!res.answered) {
                return null; // the requester has more outstanding than max_dest_rd_atomic
            }
            // only a replay for a duplicate of a request answered long ago: the requester, which
            // sends this new one, no longer waits for it (rxe reuses the oldest entry too)
            done(res);
        }
        resourceHead = (resourceHead + 1) % capacity;
        resourceCount = Math.min(capacity, resourceCount + 1);
        res.kind = 0;
        res.answered = false;
        res.executed = false;
        res.pending = false;
        return res;
    }

    /** Marks {@code res} as having replies to send. */
    void enqueue(Resource res) {
        if (!res.pending) {
            res.pending = true;
            pendingReplies++;
        }
    }

    /** {@code res} has sent its last reply. */
    void done(Resource res) {
        res.pending = false;
        pendingReplies--;
    }

    /** The oldest entry with replies to send (PSN order), or null. */
    Resource oldestPending() {
        for (int i = 0; i < resourceCount; i++) {
            Resource res = resources[(resourceHead - resourceCount + i + capacity) % capacity];
            if (res.pending) {
                return res;
            }
        }
        return null;
    }

    /**
     * The newest entry of {@code kind} whose PSNs include {@code psn}, or null. Newest: after the
     * PSN space wrapped, an old entry may cover the same PSNs as a new one.
     */
    Resource find(int psn, int kind) {
        for (int i = 1; i <= resourceCount; i++) {
            Resource res = resources[(resourceHead - i + capacity) % capacity];
            if (res.kind == kind && Psn.diff(psn, res.firstPsn) >= 0 && Psn.diff(psn, res.lastPsn) <= 0) {
                return res;
            }
        }
        return null;
    }

    /** Forgets every READ/atomic entry (RTR, or a new max_dest_rd_atomic), with up to {@code capacity} from now on. */
    void resetResources(int newCapacity) {
        capacity = Math.min(MAX_RESOURCES, Math.max(0, newCapacity));
        resourceHead = 0;
        resourceCount = 0;
        abandonReplies();
    }

    /** The QP failed: nothing more is sent. */
    void abandonReplies() {
        for (Resource res : resources) {
            res.pending = false;
        }
        pendingReplies = 0;
        nakAfterReplies = false;
    }

    void reset(int psn, int maxDestRdAtomic) {
        ePsn = psn;
        ackablePsn = psn;
        msn = 0;
        seqNakSent = false;
        inProgress = 0;
        ucDropping = false;
        recvWqe = null;
        recvOffset = 0;
        writeKey = null;
        ackPending = false;
        hold.reset();
        resetResources(maxDestRdAtomic);
    }
}
