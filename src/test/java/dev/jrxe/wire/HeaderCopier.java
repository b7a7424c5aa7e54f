package dev.jrxe.wire;

import static dev.jrxe.wire.OpcodeTable.*;

/** Test helper: copies every header field of a decoded packet into a writer, field by field. */
final class HeaderCopier {
    private HeaderCopier() {
    }

    static void copy(RocePacket from, PacketWriter to) {
        Bth a = from.bth();
        to.bth().solicited(a.solicited()).migReq(a.migReq()).padCount(a.padCount()).tver(a.tver())
            .pkey(a.pkey()).fecn(a.fecn()).becn(a.becn()).resv6(a.resv6()).destQp(a.destQp())
            .ackReq(a.ackReq()).resv7(a.resv7()).psn(a.psn());
        int op = from.opcode();
        if (has(op, HAS_RDETH)) {
            to.rdeth().reserved(from.rdeth().reserved()).eeContext(from.rdeth().eeContext());
        }
        if (has(op, HAS_DETH)) {
            to.deth().qkey(from.deth().qkey()).reserved(from.deth().reserved()).srcQp(from.deth().srcQp());
        }
        if (has(op, HAS_FETH)) {
            to.feth().bits(from.feth().bits());
        }
        if (has(op, HAS_RETH)) {
            to.reth().va(from.reth().va()).rkey(from.reth().rkey()).dmaLength(from.reth().dmaLength());
        }
        if (has(op, HAS_ATMETH)) {
            AtomicEth e = from.atomicEth();
            to.atomicEth().va(e.va()).rkey(e.rkey()).swapAdd(e.swapAdd()).compare(e.compare());
        }
        if (has(op, HAS_AETH)) {
            to.aeth().syndrome(from.aeth().syndrome()).msn(from.aeth().msn());
        }
        if (has(op, HAS_ATMACK)) {
            to.atomicAckEth().originalData(from.atomicAckEth().originalData());
        }
        if (has(op, HAS_IMMDT)) {
            to.immDt().immediate(from.immDt().immediate());
        }
        if (has(op, HAS_IETH)) {
            to.ieth().rkey(from.ieth().rkey());
        }
    }
}
