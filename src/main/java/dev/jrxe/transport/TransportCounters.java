package dev.jrxe.transport;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per-device transport counters: Linux rxe's hw_counter names first (in rxe's order), then bytes
 * (rxe's proposed sent_bytes/rcvd_bytes) and jrxe's own, which count what the receive path
 * refused or could not do.
 */
public final class TransportCounters {
    public static final int SENT_PKTS = 0;
    public static final int RCVD_PKTS = 1;
    public static final int DUPLICATE_REQUEST = 2;
    public static final int OUT_OF_SEQ_REQUEST = 3;
    public static final int RCVD_RNR_ERR = 4;
    public static final int SEND_RNR_ERR = 5;
    public static final int RCVD_SEQ_ERR = 6;
    public static final int ACK_DEFERRED = 7;
    public static final int RETRY_EXCEEDED_ERR = 8;
    public static final int RETRY_RNR_EXCEEDED_ERR = 9;
    public static final int COMPLETER_RETRY_ERR = 10;
    public static final int SEND_ERR = 11;
    public static final int LINK_DOWNED = 12;
    public static final int RDMA_SENDS = 13;
    public static final int RDMA_RECVS = 14;
    public static final int SENT_BYTES = 15;
    public static final int RCVD_BYTES = 16;
    /** A duplicate request that matches nothing it may replay (IBTA class D): dropped. */
    public static final int DUPLICATE_DROPPED = 17;
    /**
     * A request that needed a NAK (out of sequence, no receive WQE) while READ responses were still
     * going out: dropped, and a PSN-sequence NAK after the responses.
     */
    public static final int BEHIND_REPLIES = 18;
    /** An ACK or NAK for the PSN before the oldest unacknowledged one: says nothing new. */
    public static final int DUPLICATE_ACK = 19;
    /**
     * A response that matches nothing outstanding: outside the window of PSNs sent and not
     * acknowledged (stale, or never sent), or not what the oldest request expects (a duplicated
     * READ response, a READ response or atomic acknowledgement for another kind of request).
     */
    public static final int UNEXPECTED_RESPONSE = 20;
    /** An unexpected exception in a QP's transport: that QP was moved to the error state. */
    public static final int TRANSPORT_ERRORS = 21;
    /** An unexpected exception in the engine's own work (receive loop, housekeeping). */
    public static final int ENGINE_ERRORS = 22;
    // A remote access (WRITE, READ, atomic) the responder refused, by the reason its key check gave;
    // each answered with a NAK (remote access error; invalid request when misaligned).
    /** No key by that value (unknown index, or the 8-bit key part of another registration). */
    public static final int RKEY_INVALID = 23;
    /** The key belongs to another protection domain than the QP's. */
    public static final int RKEY_WRONG_PD = 24;
    /** The key lacks the remote right the operation needs. */
    public static final int RKEY_NO_ACCESS = 25;
    /** The range [va, va + length) is not inside the key's (overflowing ranges included). */
    public static final int RKEY_OUT_OF_RANGE = 26;
    /** The key exists but is not valid now (invalidated, being deregistered). */
    public static final int RKEY_INVALID_STATE = 27;
    /** The memory behind a valid range is not mapped any more. */
    public static final int RKEY_FAULT = 28;
    /** An atomic whose address is not 8-byte aligned. */
    public static final int MISALIGNED_ATOMIC = 29;
    // Fatal NAKs the responder sent (class C/A errors: the QP goes to the error state), by kind.
    /** Invalid request (bad opcode sequence, lengths, misaligned atomic, no resources, ...). */
    public static final int NAK_INVALID_REQUEST_SENT = 30;
    /** Remote access error: a key check failed (the rkey_* counters say why). */
    public static final int NAK_REMOTE_ACCESS_SENT = 31;
    /** Remote operational error (the responder could not complete a valid request). */
    public static final int NAK_REMOTE_OP_SENT = 32;
    /**
     * UC: a message the responder dropped whole (a PSN gap or a broken opcode sequence, no
     * receive WQE, a refused key or length): UC has no NAK; the next FIRST/ONLY starts afresh.
     */
    public static final int UC_MSG_DROPPED = 33;
    /** UD: a datagram dropped because the QP (or its SRQ) had no receive WQE posted. */
    public static final int UD_NO_RECV_WQE = 34;
    /** SRD: packets sent again (timeout, or an RNR wait that ended). */
    public static final int SRD_RETRANSMITS = 35;
    /** SRD: packets whose retransmission timeout expired (a loss as the sender sees it). */
    public static final int SRD_TIMEOUTS = 36;
    /** SRD: duplicates the responder recognised (acknowledged or answered again, never delivered twice). */
    public static final int SRD_DUPLICATES = 37;
    /** SRD: packets behind a responder window, or of an older epoch: dropped. */
    public static final int SRD_STALE = 38;
    /** SRD: packets beyond the responder's window (no correct sender sends them): dropped. */
    public static final int SRD_OUT_OF_WINDOW = 39;
    /** SRD: packets from a new peer dropped because every responder context was in use. */
    public static final int SRD_PEERS_FULL = 40;
    /** SRD: ACKs, NAKs or READ responses that matched no context, epoch or packet in flight. */
    public static final int SRD_BAD_RESPONSE = 41;
    /** SRD: peers given up on (a packet unanswered for the SRD timeout). */
    public static final int SRD_PEER_TIMEOUTS = 42;
    /** SRD: ACKs sent. */
    public static final int SRD_ACKS_SENT = 43;

    private static final String[] NAMES = {
        "sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
        "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err",
        "completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs", "sent_bytes",
        "rcvd_bytes", "duplicate_dropped", "behind_replies", "duplicate_ack", "unexpected_response",
        "transport_errors", "engine_errors", "rkey_invalid", "rkey_wrong_pd", "rkey_no_access",
        "rkey_out_of_range", "rkey_invalid_state", "rkey_fault", "misaligned_atomic", "nak_invalid_request_sent",
        "nak_remote_access_sent", "nak_remote_op_sent", "uc_msg_dropped", "ud_no_recv_wqe",
        "srd_retransmits", "srd_timeouts", "srd_duplicates", "srd_stale", "srd_out_of_window", "srd_peers_full",
        "srd_bad_response", "srd_peer_timeouts", "srd_acks_sent",
    };

    private final AtomicLongArray values = new AtomicLongArray(NAMES.length);

    public static int count() {
        return NAMES.length;
    }

    public static String name(int counter) {
        return NAMES[counter];
    }

    // Single writer: the thread holding the engine updates them (a plain read and an opaque
    // write, no locked instruction, like LinkCounters); any thread may read them.
    void inc(int counter) {
        values.setOpaque(counter, values.getPlain(counter) + 1);
    }

    /** For counters a thread may bump without holding the engine (rare events only). */
    void incAtomic(int counter) {
        values.getAndIncrement(counter);
    }

    void add(int counter, long delta) {
        values.setOpaque(counter, values.getPlain(counter) + delta);
    }

    public long get(int counter) {
        return values.getOpaque(counter);
    }

    /** Value by rxe name, or -1 when there is no such counter. */
    public long get(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(name)) {
                return get(i);
            }
        }
        return -1;
    }
}
