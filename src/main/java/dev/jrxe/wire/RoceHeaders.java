package dev.jrxe.wire;

import java.lang.foreign.MemorySegment;

/**
 * The header flyweights of one RoCE packet (BTH and extension headers), positioned by the
 * {@link OpcodeTable}. Shared by the decoder view {@link RocePacket} and the encoder
 * {@link PacketWriter}; every flyweight is allocated once with its owner.
 *
 * <p>An extension header accessor for a header the opcode does not carry is a programming error
 * and throws {@link IllegalStateException}; check {@link #flags()} (or {@link OpcodeTable#has})
 * first when the opcode is not known statically.
 */
public abstract sealed class RoceHeaders permits RocePacket, PacketWriter {
    final Bth bth = new Bth();
    private final Rdeth rdeth = new Rdeth();
    private final Deth deth = new Deth();
    private final Srdeth srdeth = new Srdeth();
    private final Reth reth = new Reth();
    private final AtomicEth atomicEth = new AtomicEth();
    private final Aeth aeth = new Aeth();
    private final AtomicAckEth atomicAckEth = new AtomicAckEth();
    private final ImmDt immDt = new ImmDt();
    private final Ieth ieth = new Ieth();
    private final Feth feth = new Feth();

    MemorySegment segment;
    long offset;
    int opcode;

    RoceHeaders() {
    }

    /** Memory holding the packet. */
    public MemorySegment segment() {
        return segment;
    }

    /** Offset of the BTH (the start of the UDP payload) in {@link #segment()}. */
    public long offset() {
        return offset;
    }

    /** The opcode the headers are laid out for. */
    public int opcode() {
        return opcode;
    }

    /** {@link OpcodeTable#flags(int)} of the opcode. */
    public int flags() {
        return OpcodeTable.flags(opcode);
    }

    /** BTH plus extension headers: {@link OpcodeTable#headerLength(int)}. */
    public int headerLength() {
        return OpcodeTable.headerLength(opcode);
    }

    /** Offset of the first payload byte in {@link #segment()}. */
    public long payloadOffset() {
        return offset + OpcodeTable.headerLength(opcode);
    }

    public Bth bth() {
        return bth;
    }

    public Rdeth rdeth() {
        return rdeth.wrap(segment, at(OpcodeTable.HAS_RDETH));
    }

    public Deth deth() {
        return deth.wrap(segment, at(OpcodeTable.HAS_DETH));
    }

    /** jrxe SRD's extension header (SRD opcodes only). */
    public Srdeth srdeth() {
        return srdeth.wrap(segment, at(OpcodeTable.HAS_SRDETH));
    }

    public Reth reth() {
        return reth.wrap(segment, at(OpcodeTable.HAS_RETH));
    }

    public AtomicEth atomicEth() {
        return atomicEth.wrap(segment, at(OpcodeTable.HAS_ATMETH));
    }

    public Aeth aeth() {
        return aeth.wrap(segment, at(OpcodeTable.HAS_AETH));
    }

    public AtomicAckEth atomicAckEth() {
        return atomicAckEth.wrap(segment, at(OpcodeTable.HAS_ATMACK));
    }

    public ImmDt immDt() {
        return immDt.wrap(segment, at(OpcodeTable.HAS_IMMDT));
    }

    public Ieth ieth() {
        return ieth.wrap(segment, at(OpcodeTable.HAS_IETH));
    }

    public Feth feth() {
        return feth.wrap(segment, at(OpcodeTable.HAS_FETH));
    }

    private long at(int headerFlag) {
        int rel = OpcodeTable.offset(opcode, headerFlag);
        if (rel < 0) {
            throw new IllegalStateException(Opcodes.name(opcode) + " has no such header (flag 0x"
                + Integer.toHexString(headerFlag) + ")");
        }
        return offset + rel;
    }
}
