package dev.jrxe.transport;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.memory.MemoryKey;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.Psn;
import dev.jrxe.wire.Reth;
import dev.jrxe.wire.RocePacket;

/**
 * UC responder (rxe_resp.c for IB_QPT_UC, IBTA 9.7.5.1): no ACK, no NAK, no RNR. Packets of a
 * message must come in PSN order; a gap, a broken opcode sequence, a missing receive WQE, a key
 * the request may not use or a wrong length drops the rest of that message silently (counted as
 * {@code uc_msg_dropped}), and the next FIRST or ONLY, whatever its PSN, starts afresh. A message
 * is delivered whole or not at all: a receive completes only at the LAST (or ONLY) packet of an
 * unbroken message, so a torn SEND never completes. The receive WQE a torn SEND had taken is kept
 * and filled again by the next SEND (IBTA: it is not completed). Bytes a torn WRITE placed stay
 * where they are, inside the range its key allowed: a UC WRITE has no completion to take back.
 */
final class UcResponder {
    private final Engine engine;

    UcResponder(Engine engine) {
        this.engine = engine;
    }

    void onRequest(Qp qp, RocePacket pkt) {
        ResponderState r = qp.resp;
        int psn = pkt.bth().psn();
        int opcode = pkt.bth().opcode();
        boolean first = OpcodeTable.has(opcode, OpcodeTable.FIRST);
        if (first) {
            if (r.inProgress != 0) {
                abandon(r); // its LAST never came: the new message resynchronises
            }
            r.ucDropping = false;
        } else if (r.inProgress == 0 || psn != r.ePsn || !sameKind(r, opcode)) {
            if (r.inProgress != 0 || !r.ucDropping) {
                abandon(r); // a gap inside the message, or the rest of one whose start was lost
            }
            if (OpcodeTable.has(opcode, OpcodeTable.LAST)) {
                r.ucDropping = false; // the next message may start with a MIDDLE only if it is torn too
            }
            return;
        }
        r.ePsn = Psn.add(psn, 1);
        boolean last = OpcodeTable.has(opcode, OpcodeTable.LAST);
        if (!RcResponder.payloadSizeOk(qp, last, pkt.payloadLength())) {
            abandon(r);
            return;
        }
        if (OpcodeTable.has(opcode, OpcodeTable.SEND)) {
            onSend(qp, pkt, opcode, first, last);
        } else {
            onWrite(qp, pkt, opcode, first, last);
        }
    }

    private static boolean sameKind(ResponderState r, int opcode) {
        return r.inProgress == (OpcodeTable.has(opcode, OpcodeTable.SEND) ? ResponderState.IN_SEND
            : ResponderState.IN_WRITE);
    }

    /**
     * Drops the message in progress, counted once: its remaining packets are ignored without
     * counting again (a receive WQE it took stays for the next SEND).
     */
    private void abandon(ResponderState r) {
        engine.counters.inc(TransportCounters.UC_MSG_DROPPED);
        r.ucDropping = true;
        r.inProgress = 0;
        r.writeKey = null;
    }

    private void onSend(Qp qp, RocePacket pkt, int opcode, boolean first, boolean last) {
        ResponderState r = qp.resp;
        if (first) {
            if (r.recvWqe == null) {
                r.recvWqe = r.takeRecvWqe(qp);
                if (r.recvWqe == null) {
                    abandon(r); // no RNR on UC: the message is lost
                    return;
                }
            }
            r.recvOffset = 0;
            r.inProgress = ResponderState.IN_SEND;
        }
        RecvWqe w = r.recvWqe;
        int len = pkt.payloadLength();
        if (r.recvOffset + len > RcResponder.MAX_MESSAGE) {
            abandon(r); // longer than the largest message (a WC's byte_len could not say it)
            return;
        }
        if (r.recvOffset + len > w.length) {
            // rxe class D: the receive completes with a local length error, the QP goes on; the
            // rest of the message is ignored
            Completions.recv(qp, w, WcStatus.LOC_LEN_ERR, WcOpcode.RECV, r.recvOffset, 0, 0, 0, true);
            r.recvWqe = null;
            r.inProgress = 0;
            r.ucDropping = true;
            return;
        }
        if (len > 0 && Sgl.scatter(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
            r.recvOffset, pkt.segment(), pkt.payloadOffset(), len) != MemStatus.OK) {
            Completions.recv(qp, w, WcStatus.LOC_PROT_ERR, WcOpcode.RECV, r.recvOffset, 0, 0, 0, true);
            r.recvWqe = null;
            r.inProgress = 0;
            engine.fail(qp, AsyncEventType.QP_FATAL);
            return;
        }
        r.recvOffset += len;
        if (last) {
            boolean imm = OpcodeTable.has(opcode, OpcodeTable.IMMEDIATE);
            r.inProgress = 0;
            r.recvWqe = null;
            engine.counters.inc(TransportCounters.RDMA_RECVS);
            Completions.recv(qp, w, WcStatus.SUCCESS, WcOpcode.RECV, r.recvOffset, Completions.recvFlags(imm, false),
                imm ? pkt.immDt().immediate() : 0, 0, pkt.bth().solicited());
        }
    }

    private void onWrite(Qp qp, RocePacket pkt, int opcode, boolean first, boolean last) {
        ResponderState r = qp.resp;
        int len = pkt.payloadLength();
        if (first) {
            if ((qp.accessFlags & Access.REMOTE_WRITE) == 0) {
                abandon(r); // rxe check_op_valid: the QP does not take remote writes
                return;
            }
            Reth reth = pkt.reth();
            long dmaLen = Integer.toUnsignedLong(reth.dmaLength());
            MemoryKey key = null;
            if (dmaLen > RcResponder.MAX_MESSAGE) {
                abandon(r);
                return;
            }
            if (dmaLen > 0) {
                MemoryKey k = engine.keys.lookup(reth.rkey());
                key = k == null ? null : k.forRemote(qp.token);
                int st = key == null ? MemStatus.INVALID_KEY : key.check(qp.pdHandle, Access.REMOTE_WRITE, reth.va(), dmaLen);
                if (st != MemStatus.OK) {
                    engine.counters.inc(RcResponder.keyCounter(st));
                    abandon(r);
                    return;
                }
            }
            r.writeKey = key;
            r.writeVa = reth.va();
            r.writeLength = dmaLen;
            r.writeRemaining = dmaLen;
            r.inProgress = ResponderState.IN_WRITE;
        }
        if (len > r.writeRemaining || (last && len != r.writeRemaining)) {
            abandon(r);
            return;
        }
        boolean imm = last && OpcodeTable.has(opcode, OpcodeTable.IMMEDIATE);
        if (imm && r.recvWqe == null && (qp.recvQueue() == null || qp.recvQueue().peek() == null)) {
            abandon(r); // rxe: no WQE for the notice, the last packet is dropped before it is placed
            return;
        }
        if (len > 0) {
            int st = r.writeKey.write(qp.pdHandle, Access.REMOTE_WRITE, r.writeVa + (r.writeLength - r.writeRemaining),
                pkt.segment(), pkt.payloadOffset(), len);
            if (st != MemStatus.OK) {
                engine.counters.inc(RcResponder.keyCounter(st));
                abandon(r);
                return;
            }
        }
        r.writeRemaining -= len;
        if (!last) {
            return;
        }
        r.inProgress = 0;
        r.writeKey = null;
        if (imm) {
            RecvWqe w = r.recvWqe != null ? r.recvWqe : r.takeRecvWqe(qp);
            r.recvWqe = null;
            engine.counters.inc(TransportCounters.RDMA_RECVS);
            Completions.recv(qp, w, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, r.writeLength,
                Completions.recvFlags(true, false), pkt.immDt().immediate(), 0, pkt.bth().solicited());
        }
    }
}
