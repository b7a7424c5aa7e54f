package dev.jrxe.transport;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.Psn;
import dev.jrxe.wire.Srdeth;
import java.lang.foreign.MemorySegment;

/**
 * SRD requester (docs/SRD.md §3–§5): starts work requests in post order but lets no peer hold
 * up another (a request whose peer's window is full is passed over), cuts each into packets of
 * at most the MTU, gives each packet the next PSN of its peer's context and a path, and
 * retransmits on timeout over another path. Engine thread only; no allocation once a peer's
 * context exists.
 */
final class SrdRequester {
    /** Work requests looked at per pass: a bound on the cost of passing over blocked ones. */
    static final int SCAN_LIMIT = 512;
    private static final int STARTED = 0;
    private static final int LATER = 1;

    private final Engine engine;
    private SrdCompleter completer;

    SrdRequester(Engine engine) {
        this.engine = engine;
    }

    void completer(SrdCompleter c) {
        this.completer = c;
    }

    /** Sends what the QP may send now; returns packets sent. */
    int run(Qp qp) {
        if (Completions.flushIfInError(qp)) {
            return 0;
        }
        int qs = qp.state;
        if ((qs != QpState.RTS && qs != QpState.SQD) || qp.requesterHalted) {
            return 0;
        }
        SrdState s = qp.srd;
        SendQueue sq = qp.sq;
        if (sq.next < sq.consumer()) {
            // requests at the front completed (in error) before all their packets were sent and
            // their slots are free: never look at a slot the application may be filling
            sq.next = sq.consumer();
        }
        long producer = sq.producer();
        int sent = 0;
        boolean front = true; // every request before idx is fully sent
        long idx = sq.next;
        for (int scanned = 0; idx < producer && scanned < SCAN_LIMIT && sent < RcRequester.BUDGET; idx++, scanned++) {
            SendWqe w = sq.at(idx);
            int slot = slot(sq, idx);
            if (w.state == SendWqe.POSTED) {
                if (qs != QpState.RTS) {
                    break; // SQD: what was started finishes, nothing new starts
                }
                int st = start(qp, s, w, slot);
                if (st == LATER) {
                    front = false;
                    continue;
                }
                if (st != STARTED) {
                    localError(qp, w, idx, st);
                    return sent;
                }
            }
            if (w.state == SendWqe.PROCESSING) {
                int n = emit(qp, s, w, idx, slot, RcRequester.BUDGET - sent);
                if (n < 0) {
                    return sent;
                }
                sent += n;
            }
            boolean fullySent = w.state == SendWqe.PENDING || w.state == SendWqe.DONE;
            if (front && fullySent) {
                sq.next = idx + 1;
            } else {
                front = false;
            }
        }
        return sent;
    }

    static int slot(SendQueue sq, long idx) {
        return (int) (idx % sq.slotCount());
    }

    /** Checks the request's local keys and finds its peer's context; STARTED, LATER or a WC status. */
    private int start(Qp qp, SrdState s, SendWqe w, int slot) {
        boolean read = w.opcode == WrOpcode.RDMA_READ;
        if (!w.inlined && Sgl.check(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
            read ? Access.LOCAL_WRITE : 0) != MemStatus.OK) {
            return WcStatus.LOC_PROT_ERR;
        }
        SrdSendContext c = context(qp, s, w.udDestAddr, w.udDestQpn);
        if (c == null) {
            return LATER; // every context is busy: the request waits for one to go idle
        }
        int mtu = qp.pathMtu;
        int packets = WrOpcode.isSend(w.opcode) ? 1 : (int) Math.max(1, (w.length + mtu - 1) / mtu);
        s.wqeContext[slot] = c;
        s.wqeSent[slot] = 0;
        s.wqeResolved[slot] = 0;
        c.users++;
        w.packets = packets;
        w.status = WcStatus.SUCCESS;
        w.state = SendWqe.PROCESSING;
        return STARTED;
    }

    /** The live requester context of a peer, made when there is none and room for it; or null. */
    private SrdSendContext context(Qp qp, SrdState s, int addr, int qpn) {
        long key = SrdContextTable.key(addr, qpn);
        SrdSendContext c = s.senders.get(key);
        if (c != null && !c.dead) {
            return c;
        }
        int previous = c == null ? 0 : c.epoch;
        if (s.senders.size() >= s.maxPeers && !evictIdle(s)) {
            return null;
        }
        c = new SrdSendContext(key, addr, qpn, s.newEpoch(previous), qp.sqPsn, s.paths());
        c.lastActive = engine.now;
        c.created = engine.now;
        s.senders.put(key, c);
        return c;
    }

    /** Drops the longest-idle requester context nothing refers to; false when there is none. */
    private static boolean evictIdle(SrdState s) {
        SrdSendContext victim = null;
        for (int i = 0; i < s.senders.capacity(); i++) {
            SrdSendContext c = s.senders.at(i);
            if (c != null && c.users == 0 && c.inFlight == 0 && c.waiting == 0 && !c.listed
                && (victim == null || c.lastActive < victim.lastActive)) {
                victim = c;
            }
        }
        if (victim == null) {
            return false;
        }
        s.senders.remove(victim.key);
        return true;
    }

    /**
     * Sends the next packets of a started request while its context allows; returns packets
     * sent, or -1 when a local error failed the QP.
     */
    private int emit(Qp qp, SrdState s, SendWqe w, long idx, int slot, int budget) {
        SrdSendContext c = s.wqeContext[slot];
        if (c.dead && w.status == WcStatus.SUCCESS) {
            w.status = WcStatus.RETRY_EXC_ERR; // its peer was given up while it waited
        }
        int mtu = qp.pathMtu;
        long now = engine.now;
        int n = 0;
        while (n < budget && w.status == WcStatus.SUCCESS && s.wqeSent[slot] < w.packets) {
            int i = s.wqeSent[slot];
            boolean last = i == w.packets - 1;
            if (w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM && last && s.wqeResolved[slot] < w.packets - 1) {
                break; // the chunk that completes at the peer goes when all others are in place
            }
            if (!c.canSend()) {
                break;
            }
            long off = (long) i * mtu;
            int len = (int) Math.min(mtu, w.length - off);
            long psn = c.next++;
            int sl = SrdSendContext.slot(psn);
            c.wqe[sl] = idx;
            c.chunkOffset[sl] = off;
            c.chunkLength[sl] = len;
            c.kind[sl] = kindOf(w.opcode, last);
            c.state[sl] = SrdSendContext.IN_FLIGHT;
            c.retries[sl] = 0;
            c.rnrCount[sl] = 0;
            c.firstSent[sl] = now;
            c.inFlight++;
            c.lastActive = now;
            s.wqeSent[slot]++;
            int path = c.choosePath(now);
            SrdState.bump(s.pathSent, path);
            if (!transmit(qp, s, c, w, psn, path, false)) {
                localError(qp, w, idx, WcStatus.LOC_PROT_ERR);
                return -1;
            }
            n++;
        }
        if (s.wqeSent[slot] == w.packets || w.status != WcStatus.SUCCESS) {
            w.state = SendWqe.PENDING;
            completer.finishIfResolved(qp, s, w, idx, slot);
        }
        return n;
    }

    private static byte kindOf(int opcode, boolean last) {
        return switch (opcode) {
            case WrOpcode.RDMA_WRITE -> SrdSendContext.KIND_WRITE;
            case WrOpcode.RDMA_WRITE_WITH_IMM -> last ? SrdSendContext.KIND_WRITE_IMM : SrdSendContext.KIND_WRITE;
            case WrOpcode.RDMA_READ -> SrdSendContext.KIND_READ;
            default -> SrdSendContext.KIND_SEND;
        };
    }

    /**
     * Builds and queues the packet of {@code psn} on {@code path} (its payload read again through
     * the lkeys now); arms its timer. False when a local key no longer allows the read.
     */
    boolean transmit(Qp qp, SrdState s, SrdSendContext c, SendWqe w, long psn, int path, boolean retx) {
        int sl = SrdSendContext.slot(psn);
        byte kind = c.kind[sl];
        int len = c.chunkLength[sl];
        long off = c.chunkOffset[sl];
        int opcode = switch (kind) {
            case SrdSendContext.KIND_WRITE -> Opcodes.SRD_WRITE;
            case SrdSendContext.KIND_WRITE_IMM -> Opcodes.SRD_WRITE_WITH_IMM;
            case SrdSendContext.KIND_READ -> Opcodes.SRD_READ_REQUEST;
            default -> w.opcode == WrOpcode.SEND_WITH_IMM ? Opcodes.SRD_SEND_WITH_IMM : Opcodes.SRD_SEND;
        };
        boolean payload = kind != SrdSendContext.KIND_READ;
        boolean solicited = (w.sendFlags & SendFlags.SOLICITED) != 0
            && (kind == SrdSendContext.KIND_SEND || kind == SrdSendContext.KIND_WRITE_IMM);
        PacketOut out = engine.out;
        MemorySegment buf = out.beginDatagram(qp, opcode, c.qpn, Psn.of(psn), false, solicited, payload ? len : 0);
        out.deth().qkey(w.udQkey < 0 ? qp.qkey : w.udQkey).reserved(path).srcQp(qp.qpn);
        out.srdeth().epoch(c.epoch).flags((Srdeth.VERSION << 4) | (retx ? Srdeth.FLAG_RETX : 0))
            .base(Psn.of(c.base)).timestamp(micros(engine.now))
            .length(kind == SrdSendContext.KIND_READ ? len : (int) w.length);
        if (kind != SrdSendContext.KIND_SEND) {
            out.reth().va(w.remoteAddr + off).rkey(w.rkey).dmaLength(len);
        }
        if (opcode == Opcodes.SRD_SEND_WITH_IMM || opcode == Opcodes.SRD_WRITE_WITH_IMM) {
            out.immDt().immediate(w.immData);
        }
        if (payload && len > 0) {
            if (w.inlined) {
                MemorySegment.copy(w.inline, off, buf, out.payloadOffset(), len);
            } else if (Sgl.gather(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, off, buf,
                out.payloadOffset(), len) != MemStatus.OK) {
                return false; // the claimed buffer is simply not committed
            }
        }
        out.commitFrom(c.addr, qp.destPort, s.pathPorts[path]);
        c.path[sl] = (byte) path;
        long deadline = engine.now + c.rto(path, c.retries[sl]);
        c.deadline[sl] = deadline;
        c.nextTimer = Math.min(c.nextTimer, deadline);
        s.listTimed(c);
        if (kind == SrdSendContext.KIND_SEND) {
            engine.counters.inc(TransportCounters.RDMA_SENDS);
        }
        return true;
    }

    static int micros(long nanos) {
        return (int) (nanos / 1000);
    }

    /** Timers: retransmits what timed out, resends what an RNR wait held, gives up dead peers. */
    int timers(Qp qp) {
        SrdState s = qp.srd;
        long now = engine.now;
        int work = 0;
        for (int i = 0; i < s.timedCount; ) {
            SrdSendContext c = s.timed[i];
            if (c.nextTimer <= now) {
                work += expire(qp, s, c, now);
                if (qp.state == QpState.ERR) {
                    return work;
                }
            }
            if (c.inFlight == 0 && c.waiting == 0) {
                c.listed = false;
                c.nextTimer = Long.MAX_VALUE;
                s.timed[i] = s.timed[--s.timedCount];
                s.timed[s.timedCount] = null;
            } else {
                i++;
            }
        }
        return work;
    }

    private int expire(Qp qp, SrdState s, SrdSendContext c, long now) {
        long next = Long.MAX_VALUE;
        int work = 0;
        for (long psn = c.base; psn < c.next; psn++) {
            int sl = SrdSendContext.slot(psn);
            byte st = c.state[sl];
            if (st == SrdSendContext.FREE) {
                continue;
            }
            if (c.deadline[sl] <= now) {
                int path = c.path[sl];
                if (st == SrdSendContext.IN_FLIGHT) {
                    long silent = now - c.firstSent[sl];
                    boolean giveUp = silent >= s.timeoutNanos;
                    boolean away = false;
                    if (giveUp && silent < s.timeoutNanos + s.timeoutNanos / 2) {
                        // silence counts only while this engine listened, for at most half an
                        // SRD timeout more (the responder keeps a context for two): the answer
                        // may be in the socket behind what this cycle read (look again soon),
                        // or this engine was away itself within the last RTO (a GC pause, a
                        // preempted thread) while the peer was too (the same JVM or machine):
                        // the peer gets another retransmission, on the same path
                        if (engine.rxBacklogged) {
                            next = Math.min(next, now + SrdSendContext.RTO_MIN);
                            continue;
                        }
                        away = engine.backWithin(SrdSendContext.RTO_MAX);
                        giveUp = !away;
                    }
                    engine.counters.inc(TransportCounters.SRD_TIMEOUTS);
                    if (!away) { // (not the path's fault when this engine was away)
                        SrdState.bump(s.pathTimeouts, path);
                        c.timeout(path, now);
                    }
                    if (giveUp) {
                        completer.giveUp(qp, s, c);
                        return work + 1;
                    }
                    if (c.retries[sl] < Byte.MAX_VALUE) {
                        c.retries[sl]++;
                    }
                    if (!away) {
                        path = c.retransmitPath(now, path);
                    }
                } else {
                    c.waiting--;
                    c.inFlight++;
                    c.state[sl] = SrdSendContext.IN_FLIGHT;
                    path = c.choosePath(now);
                }
                SendWqe w = qp.sq.at(c.wqe[sl]);
                engine.counters.inc(TransportCounters.SRD_RETRANSMITS);
                SrdState.bump(s.pathRetransmits, path);
                if (!transmit(qp, s, c, w, psn, path, true)) {
                    localError(qp, w, c.wqe[sl], WcStatus.LOC_PROT_ERR);
                    return work + 1;
                }
                work++;
            }
            next = Math.min(next, c.deadline[sl]);
        }
        c.nextTimer = next;
        return work;
    }

    /** A local key refused: the request completes with {@code status}, the QP goes to ERR (as UD). */
    private void localError(Qp qp, SendWqe w, long idx, int status) {
        completer.finish(qp, qp.srd, w, idx, status);
        qp.requesterHalted = true;
        engine.fail(qp, AsyncEventType.QP_FATAL);
    }

    /** SQD: drained when nothing started is still unfinished. */
    void checkDrained(Qp qp) {
        if (qp.state != QpState.SQD) {
            return;
        }
        SendQueue sq = qp.sq;
        for (long i = sq.consumer(); i < sq.producer(); i++) {
            int st = sq.at(i).state;
            if (st == SendWqe.POSTED) {
                break;
            }
            if (st != SendWqe.DONE) {
                return;
            }
        }
        qp.sqDraining = false;
        if (qp.sqDrainNotify) {
            engine.events.qpEvent(qp, AsyncEventType.SQ_DRAINED);
        }
    }

    /** Earliest timer of the QP's contexts. */
    long nextDeadline(Qp qp) {
        SrdState s = qp.srd;
        long d = Long.MAX_VALUE;
        for (int i = 0; i < s.timedCount; i++) {
            d = Math.min(d, s.timed[i].nextTimer);
        }
        return d;
    }
}
