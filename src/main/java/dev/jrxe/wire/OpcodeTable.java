package dev.jrxe.wire;

import static dev.jrxe.wire.Opcodes.*;

/**
 * Per-opcode facts in the style of Linux rxe's {@code rxe_opcode[256]}: which extension headers a
 * packet carries, where each one starts, how long all headers are together, and what kind of
 * operation the packet belongs to.
 *
 * <p>Extension headers follow the BTH in this order (IBTA 9.2, rxe): RDETH, DETH, FETH, RETH,
 * AtomicETH, AETH, AtomicAckETH, ImmDt, IETH. FLUSH is the only opcode with two of them before
 * the payload position that rxe names separately: FETH at 12, RETH at 16. A CNP carries 16
 * reserved bytes after the BTH; they are counted as header here, so a CNP has no payload.
 *
 * <p>All lookups are plain array reads: no allocation, any int accepted ({@code opcode & 0xFF}).
 * Unknown opcodes have flags 0 and header length 0.
 */
public final class OpcodeTable {
    private OpcodeTable() {
    }

    // ---------------------------------------------------------------- header presence (one bit each)
    public static final int HAS_RDETH = 1;
    public static final int HAS_DETH = 1 << 1;
    public static final int HAS_RETH = 1 << 2;
    public static final int HAS_ATMETH = 1 << 3;
    public static final int HAS_AETH = 1 << 4;
    public static final int HAS_ATMACK = 1 << 5;
    public static final int HAS_IMMDT = 1 << 6;
    public static final int HAS_IETH = 1 << 7;
    public static final int HAS_FETH = 1 << 8;
    /** jrxe SRD's extension header (docs/SRD.md), right after the DETH. */
    public static final int HAS_SRDETH = 1 << 29;
    /** Every header-presence bit. */
    public static final int HEADER_MASK = ((1 << 9) - 1) | HAS_SRDETH;

    /** The packet may carry payload bytes after its headers. */
    public static final int HAS_PAYLOAD = 1 << 9;

    // ---------------------------------------------------------------- direction and operation
    /** Sent by a requester (rxe REQ). */
    public static final int REQUEST = 1 << 10;
    /** Sent by a responder: ACK/NAK, atomic ACK, read response (rxe ACK). */
    public static final int RESPONSE = 1 << 11;
    public static final int SEND = 1 << 12;
    public static final int WRITE = 1 << 13;
    /** RDMA READ request (read responses are {@link #RESPONSE} only, as in rxe). */
    public static final int READ = 1 << 14;
    public static final int ATOMIC = 1 << 15;
    public static final int FLUSH = 1 << 16;
    public static final int ATOMIC_WRITE = 1 << 17;

    // ---------------------------------------------------------------- position in the message
    public static final int FIRST = 1 << 18;
    public static final int MIDDLE = 1 << 19;
    public static final int LAST = 1 << 20;
    /** Both {@link #FIRST} and {@link #LAST}: test with {@link #has}, which needs all bits. */
    public static final int ONLY = FIRST | LAST;

    // ---------------------------------------------------------------- responder effects
    /** Takes a receive WQE at the responder (rxe RWR): first/only SEND, WRITE with immediate. */
    public static final int CONSUMES_RECV_WQE = 1 << 21;
    /** Completes a receive WQE at the responder (rxe COMP). */
    public static final int COMPLETES = 1 << 22;
    /** Carries immediate data (same as {@link #HAS_IMMDT}, kept as an operation property). */
    public static final int IMMEDIATE = 1 << 23;
    /** Invalidates an rkey at the responder (same as {@link #HAS_IETH}). */
    public static final int INVALIDATE = 1 << 24;

    // ---------------------------------------------------------------- transport
    public static final int TYPE_RC = 1 << 25;
    public static final int TYPE_UC = 1 << 26;
    public static final int TYPE_UD = 1 << 27;
    public static final int TYPE_CNP = 1 << 28;
    /** jrxe's SRD (manufacturer opcodes 0xC0..0xC7). */
    public static final int TYPE_SRD = 1 << 30;

    // ---------------------------------------------------------------- sizes
    public static final int BTH_LENGTH = 12;
    public static final int RDETH_LENGTH = 4;
    public static final int DETH_LENGTH = 8;
    public static final int FETH_LENGTH = 4;
    public static final int RETH_LENGTH = 16;
    public static final int ATMETH_LENGTH = 28;
    public static final int AETH_LENGTH = 4;
    public static final int ATMACK_LENGTH = 8;
    public static final int IMMDT_LENGTH = 4;
    public static final int IETH_LENGTH = 4;
    public static final int SRDETH_LENGTH = 16;
    /** The bitmap an SRD ACK carries as its payload. */
    public static final int SRD_SACK_LENGTH = 16;
    /** Reserved bytes after a CNP's BTH. */
    public static final int CNP_RESERVED_LENGTH = 16;
    public static final int ICRC_LENGTH = 4;
    /** Longest header of any known opcode (SRD_WRITE_WITH_IMM: BTH, DETH, SRDETH, RETH, ImmDt). */
    public static final int MAX_HEADER_LENGTH = BTH_LENGTH + DETH_LENGTH + SRDETH_LENGTH + RETH_LENGTH + IMMDT_LENGTH;

    /** Header bits in wire order, with their lengths. */
    private static final int[] ORDER = {
        HAS_RDETH, HAS_DETH, HAS_SRDETH, HAS_FETH, HAS_RETH, HAS_ATMETH, HAS_AETH, HAS_ATMACK, HAS_IMMDT, HAS_IETH};
    private static final int[] ORDER_LENGTH = {
        RDETH_LENGTH, DETH_LENGTH, SRDETH_LENGTH, FETH_LENGTH, RETH_LENGTH, ATMETH_LENGTH, AETH_LENGTH, ATMACK_LENGTH,
        IMMDT_LENGTH, IETH_LENGTH};

    private static final int SLOTS = 32; // per-opcode stride of OFFSETS, indexed by header bit number
    private static final int[] FLAGS = new int[256];
    private static final int[] HEADER_LENGTH = new int[256];
    private static final int[] OFFSETS = new int[256 * SLOTS];

    static {
        java.util.Arrays.fill(OFFSETS, -1);
        int rcSend = TYPE_RC | REQUEST | SEND | HAS_PAYLOAD;
        def(RC_SEND_FIRST, rcSend | FIRST | CONSUMES_RECV_WQE);
        def(RC_SEND_MIDDLE, rcSend | MIDDLE);
        def(RC_SEND_LAST, rcSend | LAST | COMPLETES);
        def(RC_SEND_LAST_WITH_IMMEDIATE, rcSend | LAST | COMPLETES | HAS_IMMDT | IMMEDIATE);
        def(RC_SEND_ONLY, rcSend | ONLY | CONSUMES_RECV_WQE | COMPLETES);
        def(RC_SEND_ONLY_WITH_IMMEDIATE, rcSend | ONLY | CONSUMES_RECV_WQE | COMPLETES | HAS_IMMDT | IMMEDIATE);
        int rcWrite = TYPE_RC | REQUEST | WRITE | HAS_PAYLOAD;
        def(RC_RDMA_WRITE_FIRST, rcWrite | FIRST | HAS_RETH);
        def(RC_RDMA_WRITE_MIDDLE, rcWrite | MIDDLE);
        def(RC_RDMA_WRITE_LAST, rcWrite | LAST);
        def(RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, rcWrite | LAST | CONSUMES_RECV_WQE | COMPLETES | HAS_IMMDT | IMMEDIATE);
        def(RC_RDMA_WRITE_ONLY, rcWrite | ONLY | HAS_RETH);
        def(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
            rcWrite | ONLY | HAS_RETH | CONSUMES_RECV_WQE | COMPLETES | HAS_IMMDT | IMMEDIATE);
        def(RC_RDMA_READ_REQUEST, TYPE_RC | REQUEST | READ | ONLY | HAS_RETH);
        int rcReadResp = TYPE_RC | RESPONSE | HAS_PAYLOAD;
        def(RC_RDMA_READ_RESPONSE_FIRST, rcReadResp | FIRST | HAS_AETH);
        def(RC_RDMA_READ_RESPONSE_MIDDLE, rcReadResp | MIDDLE);
        def(RC_RDMA_READ_RESPONSE_LAST, rcReadResp | LAST | HAS_AETH);
        def(RC_RDMA_READ_RESPONSE_ONLY, rcReadResp | ONLY | HAS_AETH);
        def(RC_ACKNOWLEDGE, TYPE_RC | RESPONSE | ONLY | HAS_AETH);
        def(RC_ATOMIC_ACKNOWLEDGE, TYPE_RC | RESPONSE | ONLY | HAS_AETH | HAS_ATMACK);
        def(RC_COMPARE_SWAP, TYPE_RC | REQUEST | ATOMIC | ONLY | HAS_ATMETH);
        def(RC_FETCH_ADD, TYPE_RC | REQUEST | ATOMIC | ONLY | HAS_ATMETH);
        def(RC_SEND_LAST_WITH_INVALIDATE, rcSend | LAST | COMPLETES | HAS_IETH | INVALIDATE);
        def(RC_SEND_ONLY_WITH_INVALIDATE, rcSend | ONLY | CONSUMES_RECV_WQE | COMPLETES | HAS_IETH | INVALIDATE);
        def(RC_FLUSH, TYPE_RC | REQUEST | FLUSH | ONLY | HAS_FETH | HAS_RETH);
        def(RC_ATOMIC_WRITE, TYPE_RC | REQUEST | ATOMIC_WRITE | ONLY | HAS_RETH | HAS_PAYLOAD);

        int ucSend = TYPE_UC | REQUEST | SEND | HAS_PAYLOAD;
        def(UC_SEND_FIRST, ucSend | FIRST | CONSUMES_RECV_WQE);
        def(UC_SEND_MIDDLE, ucSend | MIDDLE);
        def(UC_SEND_LAST, ucSend | LAST | COMPLETES);
        def(UC_SEND_LAST_WITH_IMMEDIATE, ucSend | LAST | COMPLETES | HAS_IMMDT | IMMEDIATE);
        def(UC_SEND_ONLY, ucSend | ONLY | CONSUMES_RECV_WQE | COMPLETES);
        def(UC_SEND_ONLY_WITH_IMMEDIATE, ucSend | ONLY | CONSUMES_RECV_WQE | COMPLETES | HAS_IMMDT | IMMEDIATE);
        int ucWrite = TYPE_UC | REQUEST | WRITE | HAS_PAYLOAD;
        def(UC_RDMA_WRITE_FIRST, ucWrite | FIRST | HAS_RETH);
        def(UC_RDMA_WRITE_MIDDLE, ucWrite | MIDDLE);
        def(UC_RDMA_WRITE_LAST, ucWrite | LAST);
        def(UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, ucWrite | LAST | CONSUMES_RECV_WQE | COMPLETES | HAS_IMMDT | IMMEDIATE);
        def(UC_RDMA_WRITE_ONLY, ucWrite | ONLY | HAS_RETH);
        def(UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
            ucWrite | ONLY | HAS_RETH | CONSUMES_RECV_WQE | COMPLETES | HAS_IMMDT | IMMEDIATE);

        int udSend = TYPE_UD | REQUEST | SEND | HAS_PAYLOAD | ONLY | CONSUMES_RECV_WQE | COMPLETES | HAS_DETH;
        def(UD_SEND_ONLY, udSend);
        def(UD_SEND_ONLY_WITH_IMMEDIATE, udSend | HAS_IMMDT | IMMEDIATE);

        def(CNP, TYPE_CNP);
        HEADER_LENGTH[CNP] += CNP_RESERVED_LENGTH;

        int srd = TYPE_SRD | HAS_DETH | HAS_SRDETH;
        def(SRD_SEND, srd | REQUEST | SEND | ONLY | HAS_PAYLOAD | CONSUMES_RECV_WQE | COMPLETES);
        def(SRD_SEND_WITH_IMM, srd | REQUEST | SEND | ONLY | HAS_PAYLOAD | CONSUMES_RECV_WQE | COMPLETES | HAS_IMMDT
            | IMMEDIATE);
        def(SRD_WRITE, srd | REQUEST | WRITE | HAS_RETH | HAS_PAYLOAD);
        def(SRD_WRITE_WITH_IMM, srd | REQUEST | WRITE | LAST | HAS_RETH | HAS_PAYLOAD | CONSUMES_RECV_WQE | COMPLETES
            | HAS_IMMDT | IMMEDIATE);
        def(SRD_READ_REQUEST, srd | REQUEST | READ | HAS_RETH);
        def(SRD_READ_RESPONSE, srd | RESPONSE | HAS_PAYLOAD);
        def(SRD_ACK, srd | RESPONSE | HAS_PAYLOAD);
        def(SRD_NAK, srd | RESPONSE | HAS_AETH);
    }

    private static void def(int opcode, int flags) {
        FLAGS[opcode] = flags;
        int offset = BTH_LENGTH;
        for (int i = 0; i < ORDER.length; i++) {
            if ((flags & ORDER[i]) != 0) {
                OFFSETS[opcode * SLOTS + Integer.numberOfTrailingZeros(ORDER[i])] = offset;
                offset += ORDER_LENGTH[i];
            }
        }
        HEADER_LENGTH[opcode] = offset;
    }

    /** All flags of an opcode; 0 when unknown. */
    public static int flags(int opcode) {
        return FLAGS[opcode & 0xFF];
    }

    /** Whether the opcode has every bit of {@code flag} (so {@code has(op, ONLY)} needs FIRST and LAST). */
    public static boolean has(int opcode, int flag) {
        return (FLAGS[opcode & 0xFF] & flag) == flag;
    }

    /** Whether the opcode is one jrxe decodes (RC, UC, UD, CNP and SRD as listed in {@link Opcodes}). */
    public static boolean isKnown(int opcode) {
        return FLAGS[opcode & 0xFF] != 0;
    }

    /** BTH plus extension headers (plus a CNP's reserved bytes): where the payload starts; 0 when unknown. */
    public static int headerLength(int opcode) {
        return HEADER_LENGTH[opcode & 0xFF];
    }

    /**
     * Byte offset from the start of the BTH of one extension header, or -1 when the opcode does
     * not carry it.
     *
     * @param headerFlag exactly one of the {@code HAS_*} header bits (not {@link #HAS_PAYLOAD})
     * @throws IllegalArgumentException when {@code headerFlag} is not a single header bit
     */
    public static int offset(int opcode, int headerFlag) {
        if ((headerFlag & ~HEADER_MASK) != 0 || Integer.bitCount(headerFlag) != 1) {
            throw new IllegalArgumentException("not a single header flag: 0x" + Integer.toHexString(headerFlag));
        }
        return OFFSETS[(opcode & 0xFF) * SLOTS + Integer.numberOfTrailingZeros(headerFlag)];
    }

    /** Same as {@link Opcodes#name(int)}. */
    public static String name(int opcode) {
        return Opcodes.name(opcode);
    }
}
