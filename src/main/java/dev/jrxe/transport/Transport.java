package dev.jrxe.transport;

import dev.jrxe.ib.QpState;
import dev.jrxe.net.DropReason;
import dev.jrxe.wire.RocePacket;

/**
 * One QP type's requester, responder and completer as the engine drives them (rxe's three tasks
 * per QP). The engine finds the QP a packet names and checks that its opcode belongs to the
 * QP's type; everything after that (which states take it, whose address it may come from, keys)
 * is the transport's. Engine thread only.
 */
abstract class Transport {
    final Engine engine;

    Transport(Engine engine) {
        this.engine = engine;
    }

    /** The {@link dev.jrxe.wire.OpcodeTable} transport bit of this type's opcodes. */
    abstract int opcodeType();

    /** Transmit pass: sends what the QP may send now; returns packets sent. */
    abstract int send(Qp qp);

    /** The QP's share of a duty cycle: timers, requests, replies, drain. Returns work done. */
    abstract int serve(Qp qp);

    /**
     * A verified packet of this type for {@code qp}: admission checks, then the responder or the
     * completer. Every packet refused is counted by reason.
     */
    abstract void onPacket(Qp qp, RocePacket pkt, int srcAddr, int dstAddr, int ipId);

    /**
     * The admission every datagram QP (UD, SRD) starts with: the QP is in RTR, RTS or SQD and the
     * packet's P_Key is of its partition. Counts the drop and returns false otherwise.
     */
    final boolean takesDatagram(Qp qp, RocePacket pkt) {
        int s = qp.state;
        if (!(s == QpState.RTR || s == QpState.RTS || s == QpState.SQD)) {
            engine.link.counters().drop(DropReason.QP_STATE);
            return false;
        }
        if (!PKeys.match(pkt.bth().pkey(), qp.pkey)) {
            engine.link.counters().drop(DropReason.BAD_PKEY);
            return false;
        }
        return true;
    }

    /** The QP leaves the engine: release what the transport holds for it beyond its own source port. */
    void onUnregister(Qp qp) {
    }

    /**
     * The end of a duty cycle: sends the ACKs this QP's responder owes, or keeps them a little
     * longer and returns true ({@code mayHold}: an application thread drives and will be back;
     * {@code piggyback}: packets leave in this flush anyway). RC and UC acknowledge through the
     * engine's own {@link AckHold}; a transport with ACKs of its own overrides this.
     */
    boolean sendOwedAcks(Qp qp, boolean piggyback, boolean mayHold) {
        return false;
    }

    /** Earliest time this QP has work without a packet arriving, or {@code Long.MAX_VALUE}. */
    long nextDeadline(Qp qp) {
        return Long.MAX_VALUE;
    }
}
