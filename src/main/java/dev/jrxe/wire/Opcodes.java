package dev.jrxe.wire;

/**
 * BTH opcode numbers of RoCEv2 (IBTA vol. 1, table 38, plus the later FLUSH and ATOMIC WRITE
 * opcodes and the RoCEv2 CNP) and their display names.
 *
 * <p>The top three bits of an opcode give the transport (0 = RC, 1 = UC, 2 = RD, 3 = UD,
 * 4 = CNP), the low five bits the operation. RD is not implemented. The manufacturer-specific
 * range {@code 0xC0..0xFF} ({@link #SRD_RESERVED_FIRST} .. {@link #SRD_RESERVED_LAST}) holds
 * jrxe's SRD transport at {@code 0xC0..0xC7} (docs/SRD.md); the rest of it is unknown to the
 * {@link OpcodeTable} and dropped on receipt.
 *
 * <p>{@link #name(int)} returns the names Wireshark shows ("RC Send First"), so logs and
 * captures read the same.
 */
public final class Opcodes {
    private Opcodes() {
    }

    // ---------------------------------------------------------------- RC (0x00..0x1F)
    public static final int RC_SEND_FIRST = 0x00;
    public static final int RC_SEND_MIDDLE = 0x01;
    public static final int RC_SEND_LAST = 0x02;
    public static final int RC_SEND_LAST_WITH_IMMEDIATE = 0x03;
    public static final int RC_SEND_ONLY = 0x04;
    public static final int RC_SEND_ONLY_WITH_IMMEDIATE = 0x05;
    public static final int RC_RDMA_WRITE_FIRST = 0x06;
    public static final int RC_RDMA_WRITE_MIDDLE = 0x07;
    public static final int RC_RDMA_WRITE_LAST = 0x08;
    public static final int RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09;
    public static final int RC_RDMA_WRITE_ONLY = 0x0A;
    public static final int RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0B;
    public static final int RC_RDMA_READ_REQUEST = 0x0C;
    public static final int RC_RDMA_READ_RESPONSE_FIRST = 0x0D;
    public static final int RC_RDMA_READ_RESPONSE_MIDDLE = 0x0E;
    public static final int RC_RDMA_READ_RESPONSE_LAST = 0x0F;
    public static final int RC_RDMA_READ_RESPONSE_ONLY = 0x10;
    public static final int RC_ACKNOWLEDGE = 0x11;
    public static final int RC_ATOMIC_ACKNOWLEDGE = 0x12;
    public static final int RC_COMPARE_SWAP = 0x13;
    public static final int RC_FETCH_ADD = 0x14;
    // 0x15 is reserved (no Linux rxe opcode): unknown.
    public static final int RC_SEND_LAST_WITH_INVALIDATE = 0x16;
    public static final int RC_SEND_ONLY_WITH_INVALIDATE = 0x17;
    public static final int RC_FLUSH = 0x1C;
    public static final int RC_ATOMIC_WRITE = 0x1D;

    // ---------------------------------------------------------------- UC (0x20..0x3F)
    public static final int UC_SEND_FIRST = 0x20;
    public static final int UC_SEND_MIDDLE = 0x21;
    public static final int UC_SEND_LAST = 0x22;
    public static final int UC_SEND_LAST_WITH_IMMEDIATE = 0x23;
    public static final int UC_SEND_ONLY = 0x24;
    public static final int UC_SEND_ONLY_WITH_IMMEDIATE = 0x25;
    public static final int UC_RDMA_WRITE_FIRST = 0x26;
    public static final int UC_RDMA_WRITE_MIDDLE = 0x27;
    public static final int UC_RDMA_WRITE_LAST = 0x28;
    public static final int UC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x29;
    public static final int UC_RDMA_WRITE_ONLY = 0x2A;
    public static final int UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x2B;

    // ---------------------------------------------------------------- UD (0x60..0x7F)
    public static final int UD_SEND_ONLY = 0x64;
    public static final int UD_SEND_ONLY_WITH_IMMEDIATE = 0x65;

    // ---------------------------------------------------------------- RoCEv2 congestion
    /** RoCEv2 Congestion Notification Packet (annex A17): BTH, 16 reserved bytes, ICRC. */
    public static final int CNP = 0x81;

    // ---------------------------------------------------------------- jrxe SRD (0xC0..0xC7, docs/SRD.md)
    /** SRD message of at most one MTU: BTH, DETH, SRDETH, payload. */
    public static final int SRD_SEND = 0xC0;
    /** SRD message with immediate data: BTH, DETH, SRDETH, ImmDt, payload. */
    public static final int SRD_SEND_WITH_IMM = 0xC1;
    /** One self-describing chunk of an RDMA WRITE: BTH, DETH, SRDETH, RETH, payload. */
    public static final int SRD_WRITE = 0xC2;
    /** Last chunk of an RDMA WRITE with immediate: BTH, DETH, SRDETH, RETH, ImmDt, payload. */
    public static final int SRD_WRITE_WITH_IMM = 0xC3;
    /** Request for one chunk of an RDMA READ: BTH, DETH, SRDETH, RETH. */
    public static final int SRD_READ_REQUEST = 0xC4;
    /** Answer to one READ request: BTH, DETH, SRDETH, payload. */
    public static final int SRD_READ_RESPONSE = 0xC5;
    /** Selective acknowledgement: BTH, DETH, SRDETH, 16-byte SACK bitmap. */
    public static final int SRD_ACK = 0xC6;
    /** Negative acknowledgement of one PSN: BTH, DETH, SRDETH, AETH. */
    public static final int SRD_NAK = 0xC7;
    /** First opcode of the manufacturer range (transport bits 110), where SRD's opcodes live. */
    public static final int SRD_RESERVED_FIRST = 0xC0;
    /** Last opcode of the manufacturer range; 0xC8 .. 0xFF are unknown. */
    public static final int SRD_RESERVED_LAST = 0xFF;

    // ---------------------------------------------------------------- transport prefixes
    public static final int TRANSPORT_RC = 0;
    public static final int TRANSPORT_UC = 1;
    public static final int TRANSPORT_RD = 2;
    public static final int TRANSPORT_UD = 3;
    public static final int TRANSPORT_CNP = 4;
    /** The manufacturer-specific prefix (110), where jrxe's SRD opcodes are. */
    public static final int TRANSPORT_SRD = 6;

    /** The transport prefix (top three bits) of an opcode: {@code TRANSPORT_*}. */
    public static int transport(int opcode) {
        return (opcode & 0xFF) >>> 5;
    }

    private static final String[] NAMES = new String[256];

    static {
        name(RC_SEND_FIRST, "RC Send First");
        name(RC_SEND_MIDDLE, "RC Send Middle");
        name(RC_SEND_LAST, "RC Send Last");
        name(RC_SEND_LAST_WITH_IMMEDIATE, "RC Send Last Immediate");
        name(RC_SEND_ONLY, "RC Send Only");
        name(RC_SEND_ONLY_WITH_IMMEDIATE, "RC Send Only Immediate");
        name(RC_RDMA_WRITE_FIRST, "RC RDMA Write First");
        name(RC_RDMA_WRITE_MIDDLE, "RC RDMA Write Middle");
        name(RC_RDMA_WRITE_LAST, "RC RDMA Write Last");
        name(RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, "RC RDMA Write Last Immediate");
        name(RC_RDMA_WRITE_ONLY, "RC RDMA Write Only");
        name(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, "RC RDMA Write Only Immediate");
        name(RC_RDMA_READ_REQUEST, "RC RDMA Read Request");
        name(RC_RDMA_READ_RESPONSE_FIRST, "RC RDMA Read Response First");
        name(RC_RDMA_READ_RESPONSE_MIDDLE, "RC RDMA Read Response Middle");
        name(RC_RDMA_READ_RESPONSE_LAST, "RC RDMA Read Response Last");
        name(RC_RDMA_READ_RESPONSE_ONLY, "RC RDMA Read Response Only");
        name(RC_ACKNOWLEDGE, "RC Acknowledge");
        name(RC_ATOMIC_ACKNOWLEDGE, "RC Atomic Acknowledge");
        name(RC_COMPARE_SWAP, "RC Compare Swap");
        name(RC_FETCH_ADD, "RC Fetch Add");
        name(RC_SEND_LAST_WITH_INVALIDATE, "RC Send Last Invalidate");
        name(RC_SEND_ONLY_WITH_INVALIDATE, "RC Send Only Invalidate");
        name(RC_FLUSH, "RC Flush");
        name(RC_ATOMIC_WRITE, "RC Atomic Write");
        name(UC_SEND_FIRST, "UC Send First");
        name(UC_SEND_MIDDLE, "UC Send Middle");
        name(UC_SEND_LAST, "UC Send Last");
        name(UC_SEND_LAST_WITH_IMMEDIATE, "UC Send Last Immediate");
        name(UC_SEND_ONLY, "UC Send Only");
        name(UC_SEND_ONLY_WITH_IMMEDIATE, "UC Send Only Immediate");
        name(UC_RDMA_WRITE_FIRST, "UC RDMA Write First");
        name(UC_RDMA_WRITE_MIDDLE, "UC RDMA Write Middle");
        name(UC_RDMA_WRITE_LAST, "UC RDMA Write Last");
        name(UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, "UC RDMA Write Last Immediate");
        name(UC_RDMA_WRITE_ONLY, "UC RDMA Write Only");
        name(UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, "UC RDMA Write Only Immediate");
        name(UD_SEND_ONLY, "UD Send Only");
        name(UD_SEND_ONLY_WITH_IMMEDIATE, "UD Send Only Immediate");
        name(CNP, "CNP");
        name(SRD_SEND, "SRD Send");
        name(SRD_SEND_WITH_IMM, "SRD Send Immediate");
        name(SRD_WRITE, "SRD RDMA Write");
        name(SRD_WRITE_WITH_IMM, "SRD RDMA Write Immediate");
        name(SRD_READ_REQUEST, "SRD RDMA Read Request");
        name(SRD_READ_RESPONSE, "SRD RDMA Read Response");
        name(SRD_ACK, "SRD Acknowledge");
        name(SRD_NAK, "SRD Negative Acknowledge");
        for (int op = 0; op < NAMES.length; op++) {
            if (NAMES[op] == null) {
                NAMES[op] = String.format("Unknown OpCode 0x%02X", op);
            }
        }
    }

    private static void name(int opcode, String name) {
        NAMES[opcode] = name;
    }

    /**
     * Display name of an opcode as Wireshark shows it, e.g. "RC RDMA Write Only";
     * "Unknown OpCode 0xNN" for an opcode jrxe does not know. Does not allocate.
     */
    public static String name(int opcode) {
        return NAMES[opcode & 0xFF];
    }
}
