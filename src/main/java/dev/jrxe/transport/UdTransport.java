package dev.jrxe.transport;

import dev.jrxe.net.DropReason;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.RocePacket;

/**
 * Unreliable datagram: {@link UdRequester} and {@link UdResponder}; no completer (nothing is
 * acknowledged). A datagram may come from anyone (no source check: that is what UD is), so
 * admission is by keys (rxe check_keys): the BTH P_Key of the QP's partition and the DETH Q_Key
 * of the QP (QP1: the GSI Q_Key 0x80010000), in RTR, RTS or SQD, no longer than the port MTU.
 */
final class UdTransport extends Transport {
    private final UdRequester requester;
    private final UdResponder responder;

    UdTransport(Engine engine) {
        super(engine);
        this.requester = new UdRequester(engine);
        this.responder = new UdResponder(engine);
    }

    @Override
    int opcodeType() {
        return OpcodeTable.TYPE_UD;
    }

    @Override
    int send(Qp qp) {
        return requester.run(qp);
    }

    @Override
    int serve(Qp qp) {
        int work = requester.run(qp);
        if (qp.sqDraining) {
            requester.checkDrained(qp);
        }
        return work;
    }

    @Override
    void onPacket(Qp qp, RocePacket pkt, int srcAddr, int dstAddr, int ipId) {
        if (!takesDatagram(qp, pkt)) {
            return;
        }
        if (pkt.payloadLength() > qp.pathMtu) {
            // longer than this port's MTU: no UD sender may send it (C10-93.1.1), and its length
            // could make an application that echoes it post a send it cannot make
            engine.link.counters().drop(DropReason.OVERSIZED);
            return;
        }
        int qkey = qp.qpn == 1 ? UdRequester.GSI_QKEY : qp.qkey;
        if (pkt.deth().qkey() != qkey) {
            engine.link.counters().drop(DropReason.BAD_QKEY);
            return;
        }
        engine.counters.inc(TransportCounters.RCVD_PKTS);
        engine.counters.add(TransportCounters.RCVD_BYTES, pkt.length());
        responder.onRequest(qp, pkt, srcAddr, dstAddr, ipId);
    }
}
