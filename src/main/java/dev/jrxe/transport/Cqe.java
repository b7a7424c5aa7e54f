package dev.jrxe.transport;

/** One completion-queue entry (the fields of {@code struct ibv_wc}); slots are reused. */
public final class Cqe {
    public long wrId;
    public int status;
    public int opcode;
    public int vendorErr;
    public int byteLen;
    public int immData;
    public int invalidatedRkey;
    public int qpNum;
    public int srcQp;
    public int wcFlags;
    public int pkeyIndex;
    public int slid;
    public int sl;
    public int dlidPathBits;
    /** UD: source IPv4 address of the datagram (for the GRH a UD receiver sees). */
    public int srcAddr;
    /** Device clock (ns) when the engine produced the completion. */
    public long timestamp;

    void clear() {
        wrId = 0;
        timestamp = 0;
        status = 0;
        opcode = 0;
        vendorErr = 0;
        byteLen = 0;
        immData = 0;
        invalidatedRkey = 0;
        qpNum = 0;
        srcQp = 0;
        wcFlags = 0;
        pkeyIndex = 0;
        slid = 0;
        sl = 0;
        dlidPathBits = 0;
        srcAddr = 0;
    }
}
