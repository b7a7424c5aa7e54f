package dev.jrxe.memory;

/**
 * On-demand paging capabilities, with rdma-core's bit values ({@code ibv_odp_caps}), and the set
 * jrxe's memory layer supports. Every data-path operation reaches memory through
 * {@link MemoryKey}, which works the same on pinned, explicit ODP and implicit ODP keys, so every
 * RC operation is supported on ODP memory.
 */
public final class OdpCaps {
    /** general_caps: ODP supported. */
    public static final long ODP_SUPPORT = 1;
    /** general_caps: implicit ODP (addr 0, length U64_MAX) supported. */
    public static final long ODP_SUPPORT_IMPLICIT = 2;

    /** Per-transport caps (rc_odp_caps, ud_odp_caps, ...). */
    public static final int SEND = 1;
    public static final int RECV = 2;
    public static final int WRITE = 4;
    public static final int READ = 8;
    public static final int ATOMIC = 16;
    public static final int SRQ_RECV = 32;
    public static final int FLUSH = 64;
    public static final int ATOMIC_WRITE = 128;

    /** What jrxe reports as general_caps. */
    public static final long GENERAL = ODP_SUPPORT | ODP_SUPPORT_IMPLICIT;
    /** RC operations that work on ODP memory (all of them, implicit ODP included). */
    public static final int RC = SEND | RECV | WRITE | READ | ATOMIC | SRQ_RECV | FLUSH | ATOMIC_WRITE;
    /** UD operations that work on ODP memory (as rxe: sends and receives). */
    public static final int UD = SEND | RECV | SRQ_RECV;

    private OdpCaps() {
    }
}
