package dev.jrxe.transport;

import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.AtomicAckEth;
import dev.jrxe.wire.AtomicEth;
import dev.jrxe.wire.ImmDt;
import dev.jrxe.wire.Ieth;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import dev.jrxe.wire.Reth;
import java.lang.foreign.MemorySegment;

/**
 * Builds one outbound packet at a time straight into the link's next datagram buffer with the
 * wire's {@link PacketWriter}: headers, payload copied by the caller at {@link #payloadOffset()},
 * then {@link #commit()} pads and queues it (the link's sealer adds the ICRC). Engine thread only.
 */
final class PacketOut {
    private final Engine engine;
    private final PacketWriter writer = new PacketWriter();
    private int payloadLength;
    private Qp qp;
    /** Datagrams committed since the engine last flushed the link. */
    int committed;
    /** Destination address and UDP source port of the last datagram committed (valid while {@link #committed} > 0). */
    int lastDestAddr;
    int lastSrcPort;

    /**
     * Per link buffer, its payload holder when the link sends payloads by reference
     * ({@code Link.sendsByReference}), else null.
     */
    private final HeldPayload[] holders;
    /** The payload held for the packet being built, or null: it is copied into the buffer. */
    private HeldPayload pending;
    /** Datagrams committed by reference since the engine last flushed (their memory is held). */
    int heldUnsent;

    PacketOut(Engine engine) {
        this.engine = engine;
        dev.jrxe.net.Link link = engine.link;
        if (link.sendsByReference()) {
            holders = new HeldPayload[link.sendSlots()];
            for (int i = 0; i < holders.length; i++) {
                holders[i] = new HeldPayload();
            }
        } else {
            holders = null;
        }
    }

    /** Starts a packet of {@code opcode} carrying {@code payloadLength} bytes; returns its buffer. */
    MemorySegment begin(Qp qp, int opcode, int psn, boolean ackReq, boolean solicited, int payloadLength) {
        releasePending(); // (a packet begun and never committed: nothing reads its payload)
        this.qp = qp;
        this.payloadLength = payloadLength;
        MemorySegment buf = engine.link.claim();
        writer.begin(buf, 0, opcode);
        writer.bth().solicited(solicited).destQp(qp.destQpn).ackReq(ackReq).psn(psn);
        return buf;
    }

    /**
     * Starts a datagram packet (UD) to {@code destQpn}; {@link #commitTo} sends it where the work
     * request's address handle says.
     */
    MemorySegment beginDatagram(Qp qp, int opcode, int destQpn, int psn, boolean ackReq, boolean solicited,
                                int payloadLength) {
        MemorySegment buf = begin(qp, opcode, psn, ackReq, solicited, payloadLength);
        writer.bth().destQp(destQpn);
        return buf;
    }

    dev.jrxe.wire.Srdeth srdeth() {
        return writer.srdeth();
    }

    dev.jrxe.wire.Deth deth() {
        return writer.deth();
    }

    Reth reth() {
        return writer.reth();
    }

    dev.jrxe.wire.Feth feth() {
        return writer.feth();
    }

    Aeth aeth() {
        return writer.aeth();
    }

    AtomicEth atomicEth() {
        return writer.atomicEth();
    }

    AtomicAckEth atomicAck() {
        return writer.atomicAckEth();
    }

    ImmDt immDt() {
        return writer.immDt();
    }

    Ieth ieth() {
        return writer.ieth();
    }

    /** Where the payload goes in the buffer {@link #begin} returned. */
    long payloadOffset() {
        return writer.payloadOffset();
    }

    /**
     * Holds the packet's payload, {@code payloadLength} bytes at {@code va} behind {@code key},
     * for the link to send from where it lies instead of a copy at {@link #payloadOffset()}.
     * Returns false (nothing held) when the link copies every payload or the key's memory does
     * not qualify ({@code MemoryKey.holdForSend}); the caller then copies.
     */
    boolean holdPayload(dev.jrxe.memory.MemoryKey key, int pdHandle, long va) {
        if (holders == null) {
            return false;
        }
        int slot = engine.link.claimedSlot();
        if (slot < 0 || slot >= holders.length) {
            return false;
        }
        HeldPayload h = holders[slot];
        if (h.hold.holding()) { // (never: the link released it when the buffer came back)
            return false;
        }
        if (!key.holdForSend(pdHandle, va, payloadLength, h.hold)) {
            return false;
        }
        pending = h;
        return true;
    }

    /** Lets go of a payload held for a packet that will not be committed (the engine closes). */
    void releasePending() {
        if (pending != null) {
            pending.releasePayload();
            pending = null;
        }
    }

    /** Pads, queues the datagram on the link (to the QP's connected peer) and counts it. */
    void commit() {
        commitTo(qp.destAddr, qp.destPort);
    }

    /** Pads, queues the datagram to {@code destAddr}:{@code destPort} from the QP's source port, counts it. */
    void commitTo(int destAddr, int destPort) {
        commitFrom(destAddr, destPort, qp.srcPort);
    }

    /** Pads, queues the datagram to {@code destAddr}:{@code destPort} from UDP port {@code srcPort}, counts it. */
    void commitFrom(int destAddr, int destPort, int srcPort) {
        int length;
        HeldPayload h = pending;
        if (h == null) {
            length = writer.finish(payloadLength);
            engine.link.commit(length, destAddr, destPort, srcPort);
        } else {
            pending = null;
            boolean queued = false;
            try {
                length = writer.finishByReference(payloadLength);
                engine.link.commitByReference(length, (int) writer.payloadOffset(), h.hold.segment(),
                    h.hold.offset(), payloadLength, h, destAddr, destPort, srcPort);
                queued = true;
            } finally {
                if (!queued) {
                    h.releasePayload(); // not queued: nothing will read it
                }
            }
            heldUnsent++;
        }
        committed++;
        lastDestAddr = destAddr;
        lastSrcPort = srcPort;
        engine.counters.inc(TransportCounters.SENT_PKTS);
        engine.counters.add(TransportCounters.SENT_BYTES, length);
    }

    /** Sends an ACK or NAK: {@code syndrome} per AETH, PSN and MSN as given. */
    void ack(Qp qp, int syndrome, int psn, int msn) {
        begin(qp, Opcodes.RC_ACKNOWLEDGE, psn, false, false, 0);
        writer.aeth().syndrome(syndrome).msn(msn);
        commit();
    }
}
