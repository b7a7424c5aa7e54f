package dev.jrxe.net;

/** Why an inbound or outbound packet was dropped; each reason has its own counter. */
public enum DropReason {
    /** Shorter than the headers its opcode needs (or than a BTH + ICRC). */
    TRUNCATED,
    /** Longer than the link MTU allows, or the pad/length arithmetic does not add up. */
    OVERSIZED,
    /** Opcode not in the table (reserved / unsupported). */
    UNKNOWN_OPCODE,
    /** BTH TVer is not 0. */
    BAD_VERSION,
    /** ICRC does not match for any IPv4 Identification. */
    BAD_ICRC,
    /** Fault injection dropped it on purpose. */
    INJECTED,
    /** Destination QP does not exist. */
    NO_QP,
    /** The QP is not in a state to take this packet (requests: RTR and after; responses: RTS, SQD). */
    QP_STATE,
    /** The opcode belongs to another transport than the destination QP's (an RC opcode for a UD QP). */
    WRONG_TRANSPORT,
    /** The IPv4 source is not the connected peer's (RC and UC; rxe check_addr). */
    BAD_SOURCE,
    /** The BTH P_Key does not match the QP's partition (rxe check_keys). */
    BAD_PKEY,
    /** A UD datagram whose DETH Q_Key is not the destination QP's (rxe check_keys). */
    BAD_QKEY,
    /** A multicast datagram for a group no QP of the device is attached to. */
    NO_MCAST_GROUP,

    /** Kernel send failed (e.g. ENOBUFS / EAGAIN after retries). */
    SEND_FAILED,
    /** Anything else the transport discards (e.g. wrong QP type for the opcode). */
    OTHER
}
