package dev.jrxe.transport;

import dev.jrxe.Configuration;
import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.Psn;
import dev.jrxe.wire.RocePacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * RC completer (rxe_comp.c): processes ACKs, NAKs, READ responses and atomic acknowledgements,
 * completes send WQEs in order, drives go-back-N retransmission (PSN-sequence NAK, local ACK
 * timeout) and RNR waits, and maps NAK syndromes to completion statuses.
 *
 * <p>A response counts only when its PSN lies in the window of PSNs sent and not yet
 * acknowledged ({@code [compPsn, psnHigh)}, extended PSNs): anything else (stale, duplicated,
 * or acknowledging what was never sent) is ignored and counted. retry_cnt counts retries as
 * IBTA says, 7 included (rxe takes 7 to mean "retry forever", as IBTA does only for rnr_retry).
 */
final class RcCompleter {
    private static final boolean TRACE = Configuration.trace();
    private final Engine engine;
    private final RcRequester requester;
    /** 8 bytes of host-order scratch for an atomic's original value. */
    private final MemorySegment atomicScratch = Arena.ofAuto().allocate(8, 8);

    RcCompleter(Engine engine) {
        this.engine = engine;
        this.requester = engine.requester;
    }

    void onResponse(Qp qp, RocePacket pkt) {
        int opcode = pkt.bth().opcode();
        int wirePsn = pkt.bth().psn();
        if (TRACE) {
            System.err.println("jrxe: response op " + opcode + " psn " + wirePsn + " " + qp.debugState());
        }
        long psn = Psn.extend(wirePsn, qp.compPsn);
        if (opcode == Opcodes.RC_ACKNOWLEDGE && Psn.of(qp.compPsn - 1) == wirePsn) {
            engine.counters.inc(TransportCounters.DUPLICATE_ACK); // acknowledges nothing new
            return;
        }
        if (psn >= qp.psnHigh) {
            engine.counters.inc(TransportCounters.UNEXPECTED_RESPONSE); // stale, or never sent
            return;
        }
        if (opcode == Opcodes.RC_ACKNOWLEDGE) {
            int syndrome = pkt.aeth().syndrome();
            if (Aeth.isAck(syndrome)) {
                onAck(qp, psn);
            } else if (Aeth.isRnrNak(syndrome)) {
                onRnrNak(qp, psn, syndrome & 0x1F);
            } else {
                onNak(qp, psn, syndrome);
            }
        } else if (opcode == Opcodes.RC_ATOMIC_ACKNOWLEDGE) {
            onAtomicAck(qp, psn, pkt);
        } else if (opcode >= Opcodes.RC_RDMA_READ_RESPONSE_FIRST && opcode <= Opcodes.RC_RDMA_READ_RESPONSE_ONLY) {
            onReadResponse(qp, psn, opcode, pkt);
        }
    }

    // ---------------------------------------------------------------- positive

    private void onAck(Qp qp, long psn) {
        long before = qp.compPsn;
        progress(qp, before, completeAcked(qp, psn, true));
    }

    /**
     * Completes, from the head, every SEND/WRITE whose last PSN is at or before {@code psn}. A
     * response with a later PSN implies these arrived (the responder executes in order). When
     * {@code plainAck} meets a READ or atomic it covers, their responses were lost: retry.
     * Returns the PSN the acknowledgement lets {@code compPsn} advance to: {@code psn + 1}, or
     * the first response PSN still missing of a READ/atomic it covers.
     */
    private long completeAcked(Qp qp, long psn, boolean plainAck) {
        SendQueue sq = qp.sq;
        long limit = psn + 1;
        while (sq.consumer() < sq.producer()) {
            SendWqe w = sq.at(sq.consumer());
            if (w.state == SendWqe.POSTED) {
                break;
            }
            if (w.status != WcStatus.SUCCESS) {
                completeHead(qp);
                break;
            }
            boolean readOrAtomic = RcRequester.needsResponse(w.opcode);
            if (readOrAtomic) {
                long missing = w.firstPsn + w.offset / qp.pathMtu;
                if (psn >= missing) {
                    limit = missing;
                    if (plainAck && w.state == SendWqe.PENDING) {
                        // The responder has executed it, yet its response is missing: ask again
                        // (a retry like any other: a peer that keeps ACKing without answering
                        // cannot hold the READ outstanding forever)
                        retry(qp, missing, true, RetransmitEvent.MISSING_RESPONSE);
                    }
                }
                break;
            }
            // Every packet of it up to psn reached the responder, which executes in order. (It may
            // sit in PROCESSING when a retry rewound to before it; no need to send it again.)
            if (w.lastPsn > psn) {
                break;
            }
            Completions.send(qp, w, WcStatus.SUCCESS);
            if (WrOpcode.isSend(w.opcode)) {
                engine.counters.inc(TransportCounters.RDMA_SENDS);
            }
            if (w.lastPsn + 1 > qp.compPsn) {
                qp.compPsn = w.lastPsn + 1;
            }
        }
        if (sq.next < sq.consumer()) {
            // A retry had rewound the requester to WQEs this completed: never let it start a
            // retired slot (the application may have posted a new WQE there); resume after them.
            requester.rewindTo(qp, qp.compPsn);
        }
        return limit;
    }

    /**
     * Forward progress: the retry budget is restored and the timer restarted. A response that
     * completes nothing new (a duplicate, a plain ACK of what was acknowledged) leaves the timer
     * running, so that it cannot hold a request outstanding forever.
     */
    private void progress(Qp qp, long before, long newCompPsn) {
        if (newCompPsn > qp.compPsn) {
            qp.compPsn = newCompPsn;
        }
        // compared with where this response found it: completeAcked may have moved it already
        boolean moved = qp.compPsn > before;
        if (moved && qp.rnrWaiting && qp.rnrNakedPsn < qp.compPsn) {
            qp.rnrWaiting = false; // the NAKed message was acknowledged after all (a duplicate got through)
        }
        if (moved) {
            qp.retryLeft = qp.retryCnt;
            qp.rnrRetryLeft = qp.rnrRetry;
            qp.retryStarted = false;
            if (qp.compPsn > qp.psn) {
                // acknowledged beyond where a retry had rewound us: resume from there
                requester.rewindTo(qp, qp.compPsn);
            }
        }
        if (qp.psnHigh <= qp.compPsn && qp.sq.consumer() >= qp.sq.next) {
            qp.retransmitDeadline = 0;
        } else if (moved || qp.retransmitDeadline == 0) {
            long t = RnrTimer.ackTimeoutNanos(qp.timeout);
            qp.retransmitDeadline = t == 0 ? 0 : engine.now + t;
        }
    }

    // ---------------------------------------------------------------- READ and atomic responses

    private void onReadResponse(Qp qp, long psn, int opcode, RocePacket pkt) {
        long before = qp.compPsn;
        completeAcked(qp, psn - 1, false);
        SendQueue sq = qp.sq;
        if (sq.consumer() >= sq.producer()) {
            unexpected();
            return;
        }
        SendWqe w = sq.at(sq.consumer());
        if ((w.opcode == WrOpcode.FLUSH || w.opcode == WrOpcode.ATOMIC_WRITE) && w.state == SendWqe.PENDING
            && w.status == WcStatus.SUCCESS) {
            onEmptyResponse(qp, w, before, psn, opcode, pkt);
            return;
        }
        if (w.opcode != WrOpcode.RDMA_READ || w.state != SendWqe.PENDING || w.status != WcStatus.SUCCESS) {
            unexpected();
            return;
        }
        int mtu = qp.pathMtu;
        long expected = w.firstPsn + w.offset / mtu;
        long d = psn - expected;
        if (d < 0) {
            unexpected(); // a duplicate
            return;
        }
        if (d > 0) {
            // responses went missing: re-read the remainder
            engine.counters.inc(TransportCounters.RCVD_SEQ_ERR);
            retry(qp, expected, true, RetransmitEvent.MISSING_RESPONSE);
            return;
        }
        boolean first = OpcodeTable.has(opcode, OpcodeTable.FIRST);
        boolean last = OpcodeTable.has(opcode, OpcodeTable.LAST);
        if (first != (w.offset == 0)) {
            unexpected(); // out of the opcode sequence: treat like a stray duplicate
            return;
        }
        int len = pkt.payloadLength();
        // each response as long as the MTU says, the last one at the READ's last PSN with the
        // last bytes: anything else would put the completer's PSNs out of step with the requester's
        boolean completes = w.offset + len == w.length;
        if (len > mtu || w.offset + len > w.length || (!last && (len != mtu || completes))
            || (last && (!completes || psn != w.lastPsn))) {
            finishWithError(qp, w, WcStatus.BAD_RESP_ERR);
            return;
        }
        if (len > 0) {
            int st = Sgl.scatter(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
                w.offset, pkt.segment(), pkt.payloadOffset(), len);
            if (st != MemStatus.OK) {
                finishWithError(qp, w, WcStatus.LOC_PROT_ERR);
                return;
            }
        }
        w.offset += len;
        if (last) {
            qp.rdAtomicInFlight--;
            Completions.send(qp, w, WcStatus.SUCCESS);
            completeAcked(qp, psn, false); // what executed after it without a PSN (a bind, an invalidation)
        }
        progress(qp, before, psn + 1);
    }

    /** FLUSH and ATOMIC_WRITE are answered by an RDMA READ RESPONSE ONLY without data (rxe). */
    private void onEmptyResponse(Qp qp, SendWqe w, long before, long psn, int opcode, RocePacket pkt) {
        long d = psn - w.firstPsn;
        if (d < 0) {
            unexpected();
            return;
        }
        if (d > 0) {
            engine.counters.inc(TransportCounters.RCVD_SEQ_ERR);
            retry(qp, w.firstPsn, true, RetransmitEvent.MISSING_RESPONSE);
            return;
        }
        if (opcode != Opcodes.RC_RDMA_READ_RESPONSE_ONLY || pkt.payloadLength() != 0) {
            finishWithError(qp, w, WcStatus.BAD_RESP_ERR);
            return;
        }
        qp.rdAtomicInFlight--;
        Completions.send(qp, w, WcStatus.SUCCESS);
        completeAcked(qp, psn, false);
        progress(qp, before, psn + 1);
    }

    private void onAtomicAck(Qp qp, long psn, RocePacket pkt) {
        long before = qp.compPsn;
        completeAcked(qp, psn - 1, false);
        SendQueue sq = qp.sq;
        if (sq.consumer() >= sq.producer()) {
            unexpected();
            return;
        }
        SendWqe w = sq.at(sq.consumer());
        if (!WrOpcode.isAtomic(w.opcode) || w.state != SendWqe.PENDING || w.firstPsn != psn) {
            unexpected();
            return;
        }
        atomicScratch.set(ValueLayout.JAVA_LONG, 0, pkt.atomicAckEth().originalData());
        int st = Sgl.scatter(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
            0, atomicScratch, 0, 8);
        if (st != MemStatus.OK) {
            finishWithError(qp, w, WcStatus.LOC_PROT_ERR);
            return;
        }
        qp.rdAtomicInFlight--;
        Completions.send(qp, w, WcStatus.SUCCESS);
        completeAcked(qp, psn, false);
        progress(qp, before, psn + 1);
    }

    private void unexpected() {
        engine.counters.inc(TransportCounters.UNEXPECTED_RESPONSE);
    }

    // ---------------------------------------------------------------- negative

    private void onRnrNak(Qp qp, long psn, int timerCode) {
        engine.counters.inc(TransportCounters.RCVD_RNR_ERR);
        JfrEvents.nak(qp, false, psn, Aeth.rnrNak(timerCode));
        // resume at the NAKed message, or earlier if a READ before it still misses responses
        long resume = completeAcked(qp, psn - 1, false);
        if (qp.rnrWaiting) {
            return;
        }
        if (qp.rnrRetryLeft == 0) {
            engine.counters.inc(TransportCounters.RETRY_RNR_EXCEEDED_ERR);
            failHead(qp, WcStatus.RNR_RETRY_EXC_ERR);
            return;
        }
        if (qp.rnrRetry != 7) {
            qp.rnrRetryLeft--;
        }
        qp.rnrWaiting = true;
        qp.rnrPsn = resume;
        qp.rnrNakedPsn = psn; // the wait ends early only once this one is acknowledged
        qp.rnrDeadline = engine.now + RnrTimer.nanos(timerCode);
        JfrEvents.rnrWait(qp, psn, RnrTimer.nanos(timerCode));
        qp.retransmitDeadline = 0;
    }

    private void onNak(Qp qp, long psn, int syndrome) {
        JfrEvents.nak(qp, false, psn, syndrome);
        long limit = completeAcked(qp, psn - 1, false);
        int code = syndrome & 0x1F;
        if (syndrome == Aeth.NAK_PSN_SEQ_ERR) {
            engine.counters.inc(TransportCounters.RCVD_SEQ_ERR);
            if (qp.rnrWaiting || qp.retryStarted) {
                return; // a retry is under way: only a timeout starts another (rxe's started_retry)
            }
            if (limit > qp.compPsn) {
                qp.compPsn = limit;
            }
            retry(qp, limit, true, RetransmitEvent.SEQUENCE_NAK);
            return;
        }
        int status = switch (code) {
            case 1 -> WcStatus.REM_INV_REQ_ERR;
            case 2 -> WcStatus.REM_ACCESS_ERR;
            case 4 -> WcStatus.REM_INV_RD_REQ_ERR;
            default -> WcStatus.REM_OP_ERR;
        };
        failHead(qp, status);
    }

    // ---------------------------------------------------------------- retry and errors

    /** Starts go-back-N from {@code psn}; {@code counted} retries use up the retry budget. */
    private void retry(Qp qp, long psn, boolean counted, String reason) {
        if (qp.retryStarted && qp.retryPsn == psn) {
            return;
        }
        if (counted) {
            if (qp.retryLeft == 0) {
                engine.counters.inc(TransportCounters.RETRY_EXCEEDED_ERR);
                failHead(qp, WcStatus.RETRY_EXC_ERR);
                return;
            }
            qp.retryLeft--;
        }
        engine.counters.inc(TransportCounters.COMPLETER_RETRY_ERR);
        JfrEvents.retransmit(qp, psn, reason);
        qp.retryStarted = true;
        qp.retryPsn = psn;
        requester.rewindTo(qp, psn);
        long t = RnrTimer.ackTimeoutNanos(qp.timeout);
        qp.retransmitDeadline = t == 0 ? 0 : engine.now + t;
    }

    /** Timers of one QP: RNR wait over, or local ACK timeout. */
    void checkTimers(Qp qp) {
        if (qp.rnrWaiting && engine.now - qp.rnrDeadline >= 0) {
            qp.rnrWaiting = false;
            requester.rewindTo(qp, qp.rnrPsn);
            long t = RnrTimer.ackTimeoutNanos(qp.timeout);
            qp.retransmitDeadline = t == 0 ? 0 : engine.now + t;
        }
        long deadline = qp.retransmitDeadline;
        int state = qp.state;
        if (deadline != 0 && engine.now - deadline >= 0 && (state == QpState.RTS || state == QpState.SQD)) {
            if (qp.psnHigh > qp.compPsn || qp.sq.consumer() < qp.sq.next) {
                if (TRACE) {
                    System.err.println("jrxe: retransmit timeout " + qp.debugState());
                }
                qp.retryStarted = false;
                retry(qp, qp.compPsn, true, RetransmitEvent.TIMEOUT);
            } else {
                qp.retransmitDeadline = 0;
            }
        }
    }

    /**
     * A local operation (bind, invalidate) was executed: it completes once everything before it
     * has, which may be now.
     */
    void completeLocal(Qp qp) {
        long before = qp.compPsn;
        completeAcked(qp, qp.compPsn - 1, false);
        if (qp.compPsn != before) {
            progress(qp, before, qp.compPsn);
        }
    }

    /** Completes head WQEs that failed locally (after everything before them completed). */
    void completeHead(Qp qp) {
        SendQueue sq = qp.sq;
        if (sq.consumer() >= sq.producer()) {
            return;
        }
        SendWqe w = sq.at(sq.consumer());
        if (w.state == SendWqe.PENDING && w.status != WcStatus.SUCCESS) {
            finishWithError(qp, w, w.status);
        }
    }

    private void failHead(Qp qp, int status) {
        SendQueue sq = qp.sq;
        if (sq.consumer() < sq.producer()) {
            finishWithError(qp, sq.at(sq.consumer()), status);
        } else {
            engine.fail(qp, AsyncEventType.QP_FATAL);
        }
    }

    /** The head WQE completes with an error; the QP goes to ERR and the rest is flushed. */
    private void finishWithError(Qp qp, SendWqe w, int status) {
        Completions.send(qp, w, status);
        engine.fail(qp, -1);
    }
}
