package dev.jrxe.transport;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.Psn;
import java.lang.foreign.MemorySegment;

/**
 * RC requester (rxe_req.c): turns send WQEs into packets. Segments messages by path MTU into
 * FIRST/MIDDLE/LAST/ONLY, assigns PSNs, asks for an ACK on the last packet of a message and at
 * least every {@value #MAX_PKT_PER_ACK} packets, keeps at most {@value #MAX_UNACKED_PSNS} PSNs
 * unacknowledged (a READ may add its responses beyond that, up to {@link #MAX_SPAN} outstanding
 * PSNs in all, so that the responder can still tell a retransmission from a new request), honours
 * fence and the RDMA READ/atomic credit (max_rd_atomic). In SQD it finishes the work requests it
 * has started, retransmissions included, and starts no new one (rxe req_next_wqe).
 */
final class RcRequester {
    static final int MAX_PKT_PER_ACK = 64;
    static final int MAX_UNACKED_PSNS = 128;
    /**
     * Most PSNs outstanding at once: 2^23, half the PSN space. Beyond it a responder, which takes
     * the 2^23 PSNs behind the one it expects for duplicates, could take a retransmitted request
     * for a new one.
     */
    static final long MAX_SPAN = 1L << 23;
    /** Packets one QP may send per duty cycle, so that one busy QP cannot starve the others. */
    static final int BUDGET = 64;

    private final Engine engine;

    RcRequester(Engine engine) {
        this.engine = engine;
    }

    /** Sends what the QP may send now; returns packets sent. */
    int run(Qp qp) {
        if (Completions.flushIfInError(qp)) {
            return 0;
        }
        int state = qp.state;
        boolean draining = state == QpState.SQD;
        if ((state != QpState.RTS && !draining) || qp.rnrWaiting || qp.requesterHalted) {
            return 0;
        }
        try {
            return sendWhatMay(qp, state, draining);
        } finally {
            // payloads held for this QP's packets go now (also when sending threw), before the
            // engine serves anything that may wait for a memory lock (a responder writing into
            // ODP memory, say)
            engine.flushHeldPayloads();
        }
    }

    private int sendWhatMay(Qp qp, int state, boolean draining) {
        SendQueue sq = qp.sq;
        int sent = 0;
        while (sent < BUDGET) {
            long idx = sq.next;
            if (idx >= sq.producer()) {
                break;
            }
            SendWqe w = sq.at(idx);
            if (w.state == SendWqe.POSTED && (draining || !start(qp, w))) {
                break;
            }
            if (w.state == SendWqe.PENDING && w.status == WcStatus.SUCCESS && LocalOps.isLocal(w.opcode)) {
                // executed (now, or before a retry rewound past it): it completes in order
                sq.next++;
                engine.completer.completeLocal(qp);
                continue;
            }
            if (w.state == SendWqe.PENDING) {
                // failed locally while starting: nothing more is sent; the completer reports it
                // in order and moves the QP to the error state
                sq.next++;
                qp.requesterHalted = true;
                engine.completer.completeHead(qp);
                break;
            }
            if (qp.psn - qp.compPsn >= MAX_UNACKED_PSNS) {
                break;
            }
            int n = sendNext(qp, w);
            if (n < 0) {
                break;
            }
            sent += n;
            if (qp.state != state) {
                break;
            }
        }
        return sent;
    }

    /**
     * SQD: once every work request started before the QP entered SQD has completed, the send
     * queue is drained: the QP raises IBV_EVENT_SQ_DRAINED (when asked to) and may be modified.
     */
    void checkDrained(Qp qp) {
        SendQueue sq = qp.sq;
        if (qp.state == QpState.SQD && sq.consumer() == sq.next && qp.psnHigh == qp.compPsn) {
            qp.sqDraining = false;
            if (qp.sqDrainNotify) {
                engine.events.qpEvent(qp, dev.jrxe.ib.AsyncEventType.SQ_DRAINED);
            }
        }
    }

    /** Assigns PSNs to a fresh WQE; false when fence or credits make it wait. */
    private boolean start(Qp qp, SendWqe w) {
        boolean readOrAtomic = needsResponse(w.opcode);
        if ((w.sendFlags & SendFlags.FENCE) != 0 && qp.rdAtomicInFlight > 0) {
            return false;
        }
        if (readOrAtomic && qp.rdAtomicInFlight >= Math.max(1, qp.maxRdAtomic)) {
            return false;
        }
        if ((w.opcode == WrOpcode.LOCAL_INV || w.opcode == WrOpcode.DRIVER1) && qp.sq.consumer() != qp.sq.next) {
            // rxe: LOCAL_INV is always fenced; so is a UMR here (mlx5 fences it too): it executes
            // once everything before it completed, so an error there can no longer flush a UMR
            // that had already configured its key
            return false;
        }
        w.firstPsn = qp.psn;
        int mtu = qp.pathMtu;
        if (readOrAtomic && w.opcode != WrOpcode.RDMA_READ) {
            w.packets = 1; // atomics, FLUSH and ATOMIC_WRITE: one request, one response
        } else {
            w.packets = (int) Math.max(1, (w.length + mtu - 1) / mtu);
        }
        w.lastPsn = w.firstPsn + w.packets - 1;
        w.offset = 0;
        w.status = WcStatus.SUCCESS;
        w.state = SendWqe.PROCESSING;
        if (LocalOps.isLocal(w.opcode)) {
            // executed once, here, in send-queue order; it uses no PSN (and may take a region's
            // monitor, which a deregistration waiting for held payloads holds)
            engine.flushHeldPayloads();
            int status = LocalOps.execute(engine.keys, qp, w);
            failLocally(qp, w, status);
            return true;
        }
        int access = readOrAtomic ? Access.LOCAL_WRITE : 0;
        if (!w.inlined) {
            int st = Sgl.check(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, access);
            if (st != MemStatus.OK) {
                localError(qp, w);
                return true;
            }
        }
        if (WrOpcode.isAtomic(w.opcode) && (w.numSge < 1 || w.length < 8)) {
            localError(qp, w);
        }
        return true;
    }

    /**
     * The WQE cannot be executed because of its local buffers: it will complete with
     * LOC_PROT_ERR once everything before it has completed (completions stay in order).
     */
    private void localError(Qp qp, SendWqe w) {
        failLocally(qp, w, WcStatus.LOC_PROT_ERR);
    }

    /** The WQE is done without the wire, with {@code status} (SUCCESS for a local operation). */
    private static void failLocally(Qp qp, SendWqe w, int status) {
        w.status = status;
        w.state = SendWqe.PENDING;
        // nothing of it goes on the wire: the PSNs it would have used stay free
        w.packets = 0;
        w.lastPsn = w.firstPsn - 1;
    }

    /** Sends the next packet of {@code w}; returns packets sent, or -1 when it must wait. */
    private int sendNext(Qp qp, SendWqe w) {
        int op = w.opcode;
        if (needsResponse(op)) {
            if (qp.rdAtomicInFlight >= Math.max(1, qp.maxRdAtomic)) {
                return -1;
            }
            qp.rdAtomicInFlight++;
            return switch (op) {
                case WrOpcode.RDMA_READ -> sendRead(qp, w);
                case WrOpcode.FLUSH -> sendFlush(qp, w);
                case WrOpcode.ATOMIC_WRITE -> sendAtomicWrite(qp, w);
                default -> sendAtomic(qp, w);
            };
        }
        return sendSegment(qp, w);
    }

    private int sendRead(Qp qp, SendWqe w) {
        int remainingPackets = Math.max(1, w.packets - (int) (w.offset / qp.pathMtu));
        if (qp.psn + remainingPackets - qp.compPsn > MAX_SPAN) {
            qp.rdAtomicInFlight--;
            return -1; // its responses would take the window past 2^23 PSNs: wait for ACKs
        }
        PacketOut out = engine.out;
        out.begin(qp, Opcodes.RC_RDMA_READ_REQUEST, Psn.of(qp.psn), true, false, 0);
        out.reth().va(w.remoteAddr + w.offset).rkey(w.rkey).dmaLength((int) (w.length - w.offset));
        out.commit();
        qp.psn += remainingPackets;
        qp.noAckPackets = 0;
        finishWqe(qp, w);
        return 1;
    }

    private int sendAtomic(Qp qp, SendWqe w) {
        PacketOut out = engine.out;
        int opcode = w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP ? Opcodes.RC_COMPARE_SWAP : Opcodes.RC_FETCH_ADD;
        out.begin(qp, opcode, Psn.of(qp.psn), true, false, 0);
        out.atomicEth().va(w.remoteAddr).rkey(w.rkey);
        if (w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP) {
            out.atomicEth().swapAdd(w.swap).compare(w.compareAdd);
        } else {
            out.atomicEth().swapAdd(w.compareAdd).compare(0);
        }
        return commitSinglePacket(qp, w);
    }

    /**
     * FLUSH (IBTA 1.5): FETH with placement type and selectivity level, RETH with the range; one
     * PSN, answered by a zero-length RDMA READ response, as rxe. Like READs and atomics it uses a
     * max_rd_atomic credit (rxe does not, but its responder answers it from the same resources).
     */
    private int sendFlush(Qp qp, SendWqe w) {
        PacketOut out = engine.out;
        out.begin(qp, Opcodes.RC_FLUSH, Psn.of(qp.psn), true, false, 0);
        out.feth().placementType(w.flushType).selectivityLevel(w.flushLevel);
        out.reth().va(w.remoteAddr).rkey(w.rkey).dmaLength((int) w.length);
        return commitSinglePacket(qp, w);
    }

    /** ATOMIC_WRITE (IBTA 1.5): RETH (length 8) and the 8 bytes, as they lie in host memory. */
    private int sendAtomicWrite(Qp qp, SendWqe w) {
        PacketOut out = engine.out;
        MemorySegment buf = out.begin(qp, Opcodes.RC_ATOMIC_WRITE, Psn.of(qp.psn), true, false, 8);
        out.reth().va(w.remoteAddr).rkey(w.rkey).dmaLength(8);
        buf.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, out.payloadOffset(), w.compareAdd);
        return commitSinglePacket(qp, w);
    }

    /** Sends the one packet of an atomic, FLUSH or ATOMIC_WRITE request; returns 1. */
    private int commitSinglePacket(Qp qp, SendWqe w) {
        engine.out.commit();
        qp.psn++;
        qp.noAckPackets = 0;
        finishWqe(qp, w);
        return 1;
    }

    /** Operations the responder answers with data or an explicit response, not a plain ACK. */
    static boolean needsResponse(int op) {
        return op == WrOpcode.RDMA_READ || WrOpcode.isAtomic(op) || op == WrOpcode.FLUSH || op == WrOpcode.ATOMIC_WRITE;
    }

    private int sendSegment(Qp qp, SendWqe w) {
        int n = MessageSegments.nextLength(w, qp.pathMtu);
        boolean last = w.offset + n >= w.length;
        int opcode = opcodeFor(w.opcode, w.offset == 0, last);
        boolean ackReq = last || ++qp.noAckPackets > MAX_PKT_PER_ACK;
        PacketOut out = engine.out;
        // Only a first transmission may go by reference. The ICRC is sealed over the memory before
        // the kernel copies it; memory written meanwhile (by the application, against the rule
        // that a posted buffer stays still, or by a peer the region lets write) fails the
        // receiver's ICRC check, and a retransmission copied then sealed always arrives whole, so
        // that no writer can exhaust the retries.
        boolean firstTime = qp.psn >= qp.psnHigh;
        if (MessageSegments.build(engine, qp, w, opcode, Psn.of(qp.psn), ackReq, n, firstTime) != MemStatus.OK) {
            failMidMessage(qp, w);
            return -1;
        }
        out.commit();
        if (ackReq) {
            qp.noAckPackets = 0;
        }
        qp.psn++;
        w.offset += n;
        if (last) {
            finishWqe(qp, w);
        } else {
            armTimer(qp);
        }
        return 1;
    }

    /** Local memory went bad while the message was on the wire (e.g. unmapped): fatal for the QP. */
    private void failMidMessage(Qp qp, SendWqe w) {
        w.status = WcStatus.LOC_PROT_ERR;
        w.state = SendWqe.PENDING;
        qp.sq.next++;
        qp.requesterHalted = true;
        engine.completer.completeHead(qp);
    }

    private void finishWqe(Qp qp, SendWqe w) {
        w.state = SendWqe.PENDING;
        qp.sq.next++;
        armTimer(qp);
    }

    private void armTimer(Qp qp) {
        if (qp.psn > qp.psnHigh) {
            qp.psnHigh = qp.psn;
        }
        long t = RnrTimer.ackTimeoutNanos(qp.timeout);
        if (t != 0) {
            // provisional: the engine restarts it once the packets have left (after its flush)
            qp.retransmitDeadline = engine.now + t;
            qp.timerFromFlush = true;
            engine.timersToStart = true;
        }
    }

    static int opcodeFor(int wrOpcode, boolean first, boolean last) {
        boolean send = WrOpcode.isSend(wrOpcode);
        if (first && last) {
            return switch (wrOpcode) {
                case WrOpcode.SEND -> Opcodes.RC_SEND_ONLY;
                case WrOpcode.SEND_WITH_IMM -> Opcodes.RC_SEND_ONLY_WITH_IMMEDIATE;
                case WrOpcode.SEND_WITH_INV -> Opcodes.RC_SEND_ONLY_WITH_INVALIDATE;
                case WrOpcode.RDMA_WRITE_WITH_IMM -> Opcodes.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE;
                default -> Opcodes.RC_RDMA_WRITE_ONLY;
            };
        }
        if (first) {
            return send ? Opcodes.RC_SEND_FIRST : Opcodes.RC_RDMA_WRITE_FIRST;
        }
        if (!last) {
            return send ? Opcodes.RC_SEND_MIDDLE : Opcodes.RC_RDMA_WRITE_MIDDLE;
        }
        return switch (wrOpcode) {
            case WrOpcode.SEND -> Opcodes.RC_SEND_LAST;
            case WrOpcode.SEND_WITH_IMM -> Opcodes.RC_SEND_LAST_WITH_IMMEDIATE;
            case WrOpcode.SEND_WITH_INV -> Opcodes.RC_SEND_LAST_WITH_INVALIDATE;
            case WrOpcode.RDMA_WRITE_WITH_IMM -> Opcodes.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE;
            default -> Opcodes.RC_RDMA_WRITE_LAST;
        };
    }

    /**
     * Go-back-N: makes the requester resume at {@code psn}, which lies between the oldest
     * unacknowledged PSN and the newest one sent. Packet boundaries are a function of the message
     * and the MTU only, so everything re-sent carries the PSN it had the first time; a READ resumes
     * with a request for its remainder (VA advanced, length reduced).
     */
    void rewindTo(Qp qp, long psn) {
        // Never before the oldest unacknowledged PSN: what lies before it completed, and a new
        // message sent with one of those PSNs would be taken for a duplicate and lost. (A stale
        // resume point, such as the PSN of an RNR wait whose message a network duplicate delivered
        // meanwhile, would otherwise lead there.)
        if (psn < qp.compPsn) {
            psn = qp.compPsn;
        }
        SendQueue sq = qp.sq;
        int mtu = qp.pathMtu;
        long i = sq.consumer();
        long end = sq.producer();
        int credits = 0;
        for (; i < end; i++) {
            SendWqe w = sq.at(i);
            if (w.state == SendWqe.POSTED || w.state == SendWqe.DONE) {
                break;
            }
            if (w.status != WcStatus.SUCCESS || LocalOps.isLocal(w.opcode)) {
                continue; // failed, or executed already: never again
            }
            if (psn <= w.lastPsn) {
                if (psn < w.firstPsn) {
                    psn = w.firstPsn; // never resume before a message's first PSN: PSNs are fixed per packet
                }
                long off = (psn - w.firstPsn) * mtu;
                if (needsResponse(w.opcode) && w.opcode != WrOpcode.RDMA_READ) {
                    off = 0;
                }
                w.offset = Math.min(off, w.length);
                w.state = SendWqe.PROCESSING;
                break;
            }
            if (needsResponse(w.opcode)) {
                credits++;
            }
        }
        sq.next = i;
        for (long j = i + 1; j < end; j++) {
            SendWqe w = sq.at(j);
            if (w.state == SendWqe.POSTED) {
                break;
            }
            if (w.status == WcStatus.SUCCESS && !LocalOps.isLocal(w.opcode)) {
                w.offset = 0;
                w.state = SendWqe.PROCESSING;
            }
        }
        qp.rdAtomicInFlight = credits;
        qp.psn = psn;
        qp.noAckPackets = 0;
    }
}
