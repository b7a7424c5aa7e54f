package dev.jrxe.transport;

import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.AtomicAckEth;
import dev.jrxe.wire.AtomicEth;
import dev.jrxe.wire.Bth;
import dev.jrxe.wire.ImmDt;
import dev.jrxe.wire.Ieth;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.Reth;
import java.lang.foreign.MemorySegment;

/**
 * Builds one outbound packet at a time straight into the link's next datagram buffer: BTH and
 * extension headers through the wire flyweights, payload copied by the caller at
 * {@link #payloadOffset()}, pad, then commit (the link's sealer adds the ICRC). Engine thread only.
 */
final class PacketOut {
    private final Engine engine;
    final Bth bth = new Bth();
    final Reth reth = new Reth();
    final Aeth aeth = new Aeth();
    final AtomicEth atomicEth = new AtomicEth();
    final AtomicAckEth atomicAck = new AtomicAckEth();
    final ImmDt immDt = new ImmDt();
    final Ieth ieth = new Ieth();

    private MemorySegment buf;
    private int opcode;
    private int headerLength;
    private int payloadLength;
    private Qp qp;

    PacketOut(Engine engine) {
        this.engine = engine;
    }

    /**
     * Starts a packet of {@code opcode} carrying {@code payloadLength} bytes. Extension headers
     * present for the opcode are positioned and zeroed; the caller sets their fields.
     */
    MemorySegment begin(Qp qp, int opcode, int psn, boolean ackReq, boolean solicited, int payloadLength) {
        this.qp = qp;
        this.opcode = opcode;
        this.payloadLength = payloadLength;
        this.headerLength = OpcodeTable.headerLength(opcode);
        buf = engine.link.claim();
        buf.asSlice(0, headerLength).fill((byte) 0);
        int pad = (4 - (payloadLength & 3)) & 3;
        bth.wrap(buf, 0)
            .opcode(opcode)
            .solicited(solicited)
            .padCount(pad)
            .pkey(0xFFFF)
            .destQp(qp.destQpn)
            .ackReq(ackReq)
            .psn(psn & 0xFFFFFF);
        if (OpcodeTable.has(opcode, OpcodeTable.HAS_RETH)) {
            reth.wrap(buf, OpcodeTable.offset(opcode, OpcodeTable.HAS_RETH));
        }
        if (OpcodeTable.has(opcode, OpcodeTable.HAS_AETH)) {
            aeth.wrap(buf, OpcodeTable.offset(opcode, OpcodeTable.HAS_AETH));
        }
        if (OpcodeTable.has(opcode, OpcodeTable.HAS_ATMETH)) {
            atomicEth.wrap(buf, OpcodeTable.offset(opcode, OpcodeTable.HAS_ATMETH));
        }
        if (OpcodeTable.has(opcode, OpcodeTable.HAS_ATMACK)) {
            atomicAck.wrap(buf, OpcodeTable.offset(opcode, OpcodeTable.HAS_ATMACK));
        }
        if (OpcodeTable.has(opcode, OpcodeTable.HAS_IMMDT)) {
            immDt.wrap(buf, OpcodeTable.offset(opcode, OpcodeTable.HAS_IMMDT));
        }
        if (OpcodeTable.has(opcode, OpcodeTable.HAS_IETH)) {
            ieth.wrap(buf, OpcodeTable.offset(opcode, OpcodeTable.HAS_IETH));
        }
        return buf;
    }

    /** Where the payload goes in the buffer {@link #begin} returned. */
    int payloadOffset() {
        return headerLength;
    }

    /** Pads, queues the datagram on the link and counts it. */
    void commit() {
        int pad = (4 - (payloadLength & 3)) & 3;
        int end = headerLength + payloadLength;
        for (int i = 0; i < pad; i++) {
            buf.set(java.lang.foreign.ValueLayout.JAVA_BYTE, end + i, (byte) 0);
        }
        int length = end + pad + 4;
        engine.link.commit(length, qp.destAddr, qp.destPort, qp.srcPort);
        engine.counters.inc(TransportCounters.SENT_PKTS);
        engine.counters.add(TransportCounters.SENT_BYTES, length);
        buf = null;
    }

    /** Sends an ACK or NAK: {@code syndrome} per AETH, PSN and MSN as given. */
    void ack(Qp qp, int syndrome, int psn, int msn) {
        begin(qp, dev.jrxe.wire.Opcodes.RC_ACKNOWLEDGE, psn, false, false, 0);
        aeth.syndrome(syndrome).msn(msn & 0xFFFFFF);
        commit();
    }
}
