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
    /** Destination QP does not exist or is not in a state to receive. */
    NO_QP,
    /** P_Key / Q_Key / source check failed. */
    BAD_KEY,
    /** Kernel send failed (e.g. ENOBUFS / EAGAIN after retries). */
    SEND_FAILED,
    /** Anything else the transport discards (e.g. wrong QP type for the opcode). */
    OTHER
}
