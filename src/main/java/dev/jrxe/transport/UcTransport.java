package dev.jrxe.transport;

import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.RocePacket;

/**
 * Unreliable connection: {@link UcRequester} and {@link UcResponder}; no completer, since nothing
 * is ever acknowledged (a send completes when its last packet leaves). Admission is RC's: the
 * connected peer's address, the QP's P_Key, requests in RTR, RTS and SQD (UC has no responses).
 */
final class UcTransport extends Transport {
    private final UcRequester requester;
    private final UcResponder responder;

    UcTransport(Engine engine) {
        super(engine);
        this.requester = new UcRequester(engine);
        this.responder = new UcResponder(engine);
    }

    @Override
    int opcodeType() {
        return OpcodeTable.TYPE_UC;
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
        if (RcTransport.Admission.connected(engine, qp, pkt, srcAddr, true)) {
            responder.onRequest(qp, pkt);
        }
    }
}
