package dev.jrxe.transport;

import dev.jrxe.ib.QpState;
import dev.jrxe.net.DropReason;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.RocePacket;
import dev.jrxe.wire.Srdeth;

/**
 * jrxe SRD, the reliable unordered datagram transport of docs/SRD.md: {@link SrdRequester},
 * {@link SrdResponder} and {@link SrdCompleter}. Admission: the QP is in RTR, RTS or SQD, the
 * P_Key matches, the SRDETH is of version 1, the payload fits the MTU; requests carry the QP's
 * Q_Key (responses are matched by their context instead: see the completer).
 */
final class SrdTransport extends Transport {
    private final SrdRequester requester;
    private final SrdResponder responder;
    private final SrdCompleter completer;

    SrdTransport(Engine engine) {
        super(engine);
        this.requester = new SrdRequester(engine);
        this.responder = new SrdResponder(engine);
        this.completer = new SrdCompleter(engine);
        requester.completer(completer);
    }

    @Override
    int opcodeType() {
        return OpcodeTable.TYPE_SRD;
    }

    @Override
    int send(Qp qp) {
        return requester.run(qp);
    }

    @Override
    int serve(Qp qp) {
        int work = 0; // (the owed ACKs go at the end of the cycle: sendOwedAcks)
        if (qp.state != QpState.ERR) {
            work += requester.timers(qp);
        }
        work += requester.run(qp);
        if (qp.sqDraining) {
            requester.checkDrained(qp);
        }
        return work;
    }

    @Override
    boolean sendOwedAcks(Qp qp, boolean piggyback, boolean mayHold) {
        return responder.sendOrHoldAcks(qp, piggyback, mayHold);
    }

    @Override
    long nextDeadline(Qp qp) {
        return requester.nextDeadline(qp);
    }

    @Override
    void onPacket(Qp qp, RocePacket pkt, int srcAddr, int dstAddr, int ipId) {
        if (!takesDatagram(qp, pkt)) {
            return;
        }
        if (pkt.srdeth().version() != Srdeth.VERSION) {
            engine.link.counters().drop(DropReason.BAD_VERSION);
            return;
        }
        if (pkt.payloadLength() > qp.pathMtu) {
            engine.link.counters().drop(DropReason.OVERSIZED);
            return;
        }
        engine.counters.inc(TransportCounters.RCVD_PKTS);
        engine.counters.add(TransportCounters.RCVD_BYTES, pkt.length());
        if (OpcodeTable.has(pkt.bth().opcode(), OpcodeTable.REQUEST)) {
            if (pkt.deth().qkey() != qp.qkey) {
                engine.link.counters().drop(DropReason.BAD_QKEY);
                return;
            }
            responder.onRequest(qp, pkt, srcAddr);
        } else {
            completer.onResponse(qp, pkt, srcAddr);
        }
    }

    @Override
    void onUnregister(Qp qp) {
        SrdState st = qp.srd;
        if (engine.running() && qp.state != QpState.ERR && st.ackingCount > 0) {
            // the messages these ACKs acknowledge were delivered: a peer that never hears so
            // would retry into a QP that is gone and fail them
            responder.sendAcks(qp);
            engine.flushNow();
        }
        for (int p = 1; p < st.paths(); p++) {
            engine.link.releaseSourcePort(st.pathPort(p));
        }
    }
}
