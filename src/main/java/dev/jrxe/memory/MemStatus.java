package dev.jrxe.memory;

/**
 * Result codes of data-path memory operations. The data path never throws: the transport maps
 * these to completion statuses (LOC_PROT_ERR locally) or NAKs (remote access error).
 */
public final class MemStatus {
    public static final int OK = 0;
    /** No key by that value, or a stale key (8-bit key part does not match). */
    public static final int INVALID_KEY = 1;
    /** Key belongs to another protection domain. */
    public static final int PD_MISMATCH = 2;
    /** Key lacks the access right the operation needs. */
    public static final int ACCESS_DENIED = 3;
    /** [va, va+len) not inside the key's range. */
    public static final int OUT_OF_RANGE = 4;
    /** The memory behind the range is not mapped (unmapped after registration, never mapped). */
    public static final int FAULT = 5;
    /** Atomic not 8-byte aligned. */
    public static final int MISALIGNED = 6;
    /** Key is not valid now (invalidated, free, being torn down). */
    public static final int INVALID_STATE = 7;

    private MemStatus() {
    }

    public static String name(int status) {
        return switch (status) {
            case OK -> "OK";
            case INVALID_KEY -> "INVALID_KEY";
            case PD_MISMATCH -> "PD_MISMATCH";
            case ACCESS_DENIED -> "ACCESS_DENIED";
            case OUT_OF_RANGE -> "OUT_OF_RANGE";
            case FAULT -> "FAULT";
            case MISALIGNED -> "MISALIGNED";
            case INVALID_STATE -> "INVALID_STATE";
            default -> "status " + status;
        };
    }
}
