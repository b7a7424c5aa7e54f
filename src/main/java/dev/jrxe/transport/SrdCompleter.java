package dev.jrxe.transport;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.Psn;
import dev.jrxe.wire.RocePacket;
import dev.jrxe.wire.Srdeth;

/**
 * SRD completer (docs/SRD.md §4–§5): takes the ACKs, NAKs and READ responses of the QP's
 * requester contexts, resolves the packets they name, completes a work request when all its
 * packets are resolved, and gives up a peer that stopped answering. A response is accepted only
 * from the peer of an existing context, with its epoch, for a PSN in flight. Engine thread only.
 */
final class SrdCompleter {
    private final Engine engine;

    SrdCompleter(Engine engine) {
        this.engine = engine;
    }

    void onResponse(Qp qp, RocePacket pkt, int srcAddr) {
        SrdState s = qp.srd;
        SrdSendContext c = s.senders.get(SrdContextTable.key(srcAddr, pkt.deth().srcQp()));
        Srdeth h = pkt.srdeth();
        if (c == null || c.dead || h.epoch() != c.epoch) {
            engine.counters.inc(TransportCounters.SRD_BAD_RESPONSE);
            return;
        }
        long now = engine.now;
        // the echoed timestamp is of a packet this context sent: not from before it existed, not
        // from the future, not older than a packet can stay unanswered (a blind forger must guess
        // it within that half second, as well as the 32-bit random epoch)
        long age = (SrdRequester.micros(now) - h.timestamp()) * 1000L;
        if (age < 0 || age > Math.min(now - c.created + 1000, s.timeoutNanos + SrdSendContext.RTO_MAX)) {
            engine.counters.inc(TransportCounters.SRD_BAD_RESPONSE);
            return;
        }
        boolean valid = switch (pkt.bth().opcode()) {
            case Opcodes.SRD_ACK -> onAck(qp, s, c, pkt, h);
            case Opcodes.SRD_NAK -> onNak(qp, s, c, pkt);
            default -> onReadResponse(qp, s, c, pkt, h);
        };
        if (!valid) {
            engine.counters.inc(TransportCounters.SRD_BAD_RESPONSE);
            return;
        }
        c.lastActive = now;
        int path = pkt.deth().reserved();
        if (path < c.paths && qp.state != QpState.ERR) {
            // one RTT sample per response that resolved something, on the path it echoes
            c.rttSample(path, Math.max(1, age), now);
            s.pathRtt.setOpaque(path, c.srtt(path));
        }
    }

    /** The extended PSN a wire PSN stands for in {@code c}'s window, or -1 when it is outside. */
    private static long inWindow(SrdSendContext c, int psn) {
        long e = Psn.extend(psn, c.base);
        return e < c.next ? e : -1;
    }

    /** Resolves what an ACK's bitmap names; false when the ACK is not one this context can get. */
    private boolean onAck(Qp qp, SrdState s, SrdSendContext c, RocePacket pkt, Srdeth h) {
        if (pkt.payloadLength() != OpcodeTable.SRD_SACK_LENGTH) {
            return false;
        }
        // the receiver's base is one this requester announced: at most W behind the current one;
        // the PSN that triggered the ACK was sent by this context, within the window
        long b = Psn.extend(h.base(), c.base - SrdState.WINDOW);
        long trigger = Psn.extend(pkt.bth().psn(), c.base - SrdState.WINDOW);
        if (b > c.next || trigger >= c.next) {
            return false;
        }
        boolean resolved = false;
        var seg = pkt.segment();
        long off = pkt.payloadOffset();
        for (int byteIndex = 0; byteIndex < OpcodeTable.SRD_SACK_LENGTH; byteIndex++) {
            int bits = seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, off + byteIndex) & 0xFF;
            while (bits != 0) {
                int bit = Integer.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                long psn = b + byteIndex * 8L + bit;
                if (psn < c.base || psn >= c.next) {
                    continue;
                }
                int sl = SrdSendContext.slot(psn);
                if (c.state[sl] != SrdSendContext.FREE && c.kind[sl] != SrdSendContext.KIND_READ) {
                    resolve(qp, s, c, psn, WcStatus.SUCCESS);
                    resolved = true;
                    if (qp.state == QpState.ERR) {
                        return true;
                    }
                }
            }
        }
        if (!resolved) {
            engine.counters.inc(TransportCounters.DUPLICATE_ACK); // acknowledges nothing new
        }
        return true;
    }

    private boolean onNak(Qp qp, SrdState s, SrdSendContext c, RocePacket pkt) {
        long psn = inWindow(c, pkt.bth().psn());
        int sl = SrdSendContext.slot(psn);
        if (psn < 0 || c.state[sl] != SrdSendContext.IN_FLIGHT) {
            return false;
        }
        int syndrome = pkt.aeth().syndrome();
        if (Aeth.isRnrNak(syndrome)) {
            engine.counters.inc(TransportCounters.RCVD_RNR_ERR);
            if (qp.rnrRetry != 7 && c.rnrCount[sl] >= qp.rnrRetry) {
                engine.counters.inc(TransportCounters.RETRY_RNR_EXCEEDED_ERR);
                resolve(qp, s, c, psn, WcStatus.RNR_RETRY_EXC_ERR);
                return true;
            }
            if (c.rnrCount[sl] < Byte.MAX_VALUE) {
                c.rnrCount[sl]++;
            }
            c.state[sl] = SrdSendContext.RNR_WAIT;
            c.inFlight--;
            c.waiting++;
            long now = engine.now;
            c.firstSent[sl] = now; // the peer is alive: the give-up clock starts over
            // at most the largest RTO: an SRD responder asks for 0.64 ms; a longer wait is no peer's
            c.deadline[sl] = now + Math.min(SrdSendContext.RTO_MAX, RnrTimer.nanos(Aeth.value(syndrome)));
            c.nextTimer = Math.min(c.nextTimer, c.deadline[sl]);
            return true;
        }
        int status = switch (syndrome) {
            case Aeth.NAK_REMOTE_ACCESS -> WcStatus.REM_ACCESS_ERR;
            case Aeth.NAK_REMOTE_OP -> WcStatus.REM_OP_ERR;
            default -> WcStatus.REM_INV_REQ_ERR;
        };
        resolve(qp, s, c, psn, status);
        return true;
    }

    private boolean onReadResponse(Qp qp, SrdState s, SrdSendContext c, RocePacket pkt, Srdeth h) {
        long psn = inWindow(c, pkt.bth().psn());
        int sl = SrdSendContext.slot(psn);
        int n = pkt.payloadLength();
        if (psn < 0 || c.state[sl] != SrdSendContext.IN_FLIGHT || c.kind[sl] != SrdSendContext.KIND_READ
            || n != c.chunkLength[sl] || h.length() != n) {
            return false;
        }
        SendWqe w = qp.sq.at(c.wqe[sl]);
        if (n > 0 && Sgl.scatter(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
            c.chunkOffset[sl], pkt.segment(), pkt.payloadOffset(), n) != MemStatus.OK) {
            // the READ completes with the local error now (not flushed with the rest), then the QP fails
            long idx = c.wqe[sl];
            c.state[sl] = SrdSendContext.FREE;
            c.inFlight--;
            finish(qp, s, w, idx, WcStatus.LOC_PROT_ERR);
            if (qp.state != QpState.ERR) {
                qp.requesterHalted = true;
                engine.fail(qp, AsyncEventType.QP_FATAL);
            }
            return true;
        }
        resolve(qp, s, c, psn, WcStatus.SUCCESS);
        return true;
    }

    /** Packet {@code psn} of {@code c} is resolved with {@code status}. */
    void resolve(Qp qp, SrdState s, SrdSendContext c, long psn, int status) {
        int sl = SrdSendContext.slot(psn);
        byte st = c.state[sl];
        if (st == SrdSendContext.IN_FLIGHT) {
            c.inFlight--;
        } else if (st == SrdSendContext.RNR_WAIT) {
            c.waiting--;
        }
        c.state[sl] = SrdSendContext.FREE;
        if (status == WcStatus.SUCCESS) {
            c.resolvedOne();
        }
        long idx = c.wqe[sl];
        SendWqe w = qp.sq.at(idx);
        int slot = SrdRequester.slot(qp.sq, idx);
        s.wqeResolved[slot]++;
        if (status != WcStatus.SUCCESS && w.status == WcStatus.SUCCESS) {
            w.status = status;
        }
        if (w.status != WcStatus.SUCCESS && w.state == SendWqe.PROCESSING) {
            w.state = SendWqe.PENDING; // nothing more of it is sent
        }
        c.slideBase();
        finishIfResolved(qp, s, w, idx, slot);
    }

    /** Completes a fully sent request once every packet it sent is resolved. */
    void finishIfResolved(Qp qp, SrdState s, SendWqe w, long idx, int slot) {
        if (w.state == SendWqe.PENDING && s.wqeResolved[slot] == s.wqeSent[slot]) {
            finish(qp, s, w, idx, w.status);
        }
    }

    /** Completes a request (in any order; its slot frees when the older ones have). */
    void finish(Qp qp, SrdState s, SendWqe w, long idx, int status) {
        int slot = SrdRequester.slot(qp.sq, idx);
        SrdSendContext c = s.wqeContext[slot];
        if (c != null) {
            c.users--;
            s.wqeContext[slot] = null;
        }
        Completions.sendUnordered(qp, w, status);
    }

    /**
     * {@code c}'s peer left a packet unanswered for the SRD timeout: every packet in flight to it
     * resolves with RETRY_EXC_ERR, the requests still to send to it fail the same way when next
     * looked at, and the context is dropped (the next request to the peer starts a new epoch).
     */
    void giveUp(Qp qp, SrdState s, SrdSendContext c) {
        engine.counters.inc(TransportCounters.SRD_PEER_TIMEOUTS);
        engine.counters.inc(TransportCounters.RETRY_EXCEEDED_ERR);
        c.dead = true;
        if (s.senders.get(c.key) == c) {
            s.senders.remove(c.key);
        }
        for (long psn = c.base; psn < c.next; psn++) {
            if (c.state[SrdSendContext.slot(psn)] != SrdSendContext.FREE) {
                resolve(qp, s, c, psn, WcStatus.RETRY_EXC_ERR);
                if (qp.state == QpState.ERR) {
                    return;
                }
            }
        }
    }
}
