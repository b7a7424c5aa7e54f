package dev.jrxe.transport;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.WcFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.memory.MemoryKey;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.Psn;
import dev.jrxe.wire.Reth;
import dev.jrxe.wire.RocePacket;
import dev.jrxe.wire.Srdeth;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * SRD responder (docs/SRD.md §3, §4, §6): finds or makes the peer's context, places the packet
 * in its window, executes it exactly once (a duplicate is acknowledged, NAK'd or — a READ —
 * answered again, never delivered twice), and owes one ACK per context per receive batch. Every
 * byte it places or reads goes through the key check of the memory named. Engine thread only.
 */
final class SrdResponder {
    /** RNR NAK timer code of an SRD responder (0.64 ms): an SRD QP has no min_rnr_timer attribute. */
    static final int RNR_TIMER_CODE = 12;
    /**
     * How long a context must have been silent before a packet of another epoch may take it over:
     * a sender changes epoch only after giving the peer up or dropping an idle context, so its
     * new epoch gets through within its own retry time (SRD timeout minus the largest RTO); a
     * forger can only take over a pair that is not talking, and only while it keeps sending.
     */
    static final long EPOCH_TAKEOVER_NANOS = 200_000_000;
    private static final int W = SrdState.WINDOW;
    private final Engine engine;

    SrdResponder(Engine engine) {
        this.engine = engine;
    }

    void onRequest(Qp qp, RocePacket pkt, int srcAddr) {
        SrdState s = qp.srd;
        Srdeth h = pkt.srdeth();
        int srcQp = pkt.deth().srcQp();
        int psn = pkt.bth().psn();
        int senderBase = h.base();
        int ahead = Psn.diff(psn, senderBase);
        if (ahead < 0 || ahead >= W) {
            engine.counters.inc(TransportCounters.SRD_OUT_OF_WINDOW); // no correct sender sends it
            return;
        }
        long key = SrdContextTable.key(srcAddr, srcQp);
        SrdRecvContext c = s.receivers.get(key);
        long now = engine.now;
        if (c == null) {
            c = newContext(s, key, srcAddr, srcQp, now);
            if (c == null) {
                engine.counters.inc(TransportCounters.SRD_PEERS_FULL);
                return;
            }
            c.restart(h.epoch(), senderBase);
        } else if (c.epoch != h.epoch()) {
            if (h.epoch() == c.previousEpoch || now - c.lastActive < EPOCH_TAKEOVER_NANOS) {
                engine.counters.inc(TransportCounters.SRD_STALE); // of an epoch its sender left, or a forgery
                return;
            }
            c.restart(h.epoch(), senderBase); // the sender started over with this peer
        }
        int slide = Psn.diff(senderBase, c.base);
        if (slide > W) {
            // a correct sender's base is never more than W ahead of this window (its base only
            // moves on what this side resolved): a forgery or a replay from long ago
            engine.counters.inc(TransportCounters.SRD_OUT_OF_WINDOW);
            return;
        }
        c.lastActive = now;
        if (slide > 0) {
            c.slide(senderBase);
        }
        int off = Psn.diff(psn, c.base);
        if (off < 0) {
            engine.counters.inc(TransportCounters.SRD_STALE); // resolved at its sender already
            return;
        }
        if (off >= W) {
            engine.counters.inc(TransportCounters.SRD_OUT_OF_WINDOW);
            return;
        }
        int path = pkt.deth().reserved();
        int op = pkt.bth().opcode();
        byte st = c.status(psn);
        if (st != SrdRecvContext.UNSEEN) {
            engine.counters.inc(TransportCounters.SRD_DUPLICATES);
            if (st == SrdRecvContext.DONE && op == Opcodes.SRD_READ_REQUEST) {
                int again = read(qp, s, c, pkt, h, path);
                if (again != SrdRecvContext.DONE) {
                    c.status(psn, (byte) again);
                    nak(qp, s, c, again, psn, h.timestamp(), path);
                }
            } else if (st == SrdRecvContext.DONE) {
                oweAck(s, c, psn, h.timestamp(), path, false); // the sender retries: at once
            } else {
                nak(qp, s, c, st, psn, h.timestamp(), path);
            }
            return;
        }
        int result = switch (op) {
            case Opcodes.SRD_SEND, Opcodes.SRD_SEND_WITH_IMM -> send(qp, pkt, srcQp);
            case Opcodes.SRD_READ_REQUEST -> read(qp, s, c, pkt, h, path);
            default -> write(qp, s, pkt, h, srcQp);
        };
        if (qp.state == dev.jrxe.ib.QpState.ERR) {
            return;
        }
        if (result < 0) {
            engine.counters.inc(TransportCounters.SEND_RNR_ERR);
            nak(qp, s, c, Aeth.rnrNak(RNR_TIMER_CODE), psn, h.timestamp(), path); // nothing recorded
            return;
        }
        c.status(psn, (byte) result);
        if (result == SrdRecvContext.DONE) {
            if (op != Opcodes.SRD_READ_REQUEST) {
                oweAck(s, c, psn, h.timestamp(), path, op == Opcodes.SRD_SEND || op == Opcodes.SRD_SEND_WITH_IMM);
            }
        } else {
            nak(qp, s, c, result, psn, h.timestamp(), path);
        }
    }

    /** A responder context for a new peer, making room by evicting one idle past the linger time. */
    private static SrdRecvContext newContext(SrdState s, long key, int addr, int qpn, long now) {
        if (s.receivers.size() >= s.maxPeers) {
            if (now - s.noVictimBefore < 0) {
                return null; // the last scan found none, and none can have aged enough since
            }
            SrdRecvContext victim = null;
            long linger = 2 * s.timeoutNanos;
            long oldest = Long.MAX_VALUE;
            for (int i = 0; i < s.receivers.capacity(); i++) {
                SrdRecvContext r = s.receivers.at(i);
                if (r == null) {
                    continue;
                }
                oldest = Math.min(oldest, r.lastActive);
                if (!r.ackPending && now - r.lastActive > linger
                    && (victim == null || r.lastActive < victim.lastActive)) {
                    victim = r;
                }
            }
            if (victim == null) {
                s.noVictimBefore = oldest + linger + 1;
                return null;
            }
            s.receivers.remove(victim.key);
        }
        SrdRecvContext c = new SrdRecvContext(key, addr, qpn);
        s.receivers.put(key, c);
        return c;
    }

    /** SEND: DONE, -1 (RNR: no receive WQE) or a NAK syndrome. */
    private int send(Qp qp, RocePacket pkt, int srcQp) {
        RecvWqe w = qp.resp.takeRecvWqe(qp);
        if (w == null) {
            return -1;
        }
        int len = pkt.payloadLength();
        boolean imm = pkt.bth().opcode() == Opcodes.SRD_SEND_WITH_IMM;
        int immData = imm ? pkt.immDt().immediate() : 0;
        if (len > w.length) {
            Completions.recvDatagram(qp, w, WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, 0, 0, srcQp, true);
            engine.counters.inc(TransportCounters.NAK_INVALID_REQUEST_SENT);
            return Aeth.NAK_INVALID_REQ;
        }
        if (len > 0 && Sgl.scatter(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, 0,
            pkt.segment(), pkt.payloadOffset(), len) != MemStatus.OK) {
            Completions.recvDatagram(qp, w, WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, srcQp, true);
            engine.fail(qp, AsyncEventType.QP_FATAL);
            return Aeth.NAK_REMOTE_OP;
        }
        engine.counters.inc(TransportCounters.RDMA_RECVS);
        Completions.recvDatagram(qp, w, WcStatus.SUCCESS, WcOpcode.RECV, len, imm ? WcFlags.WITH_IMM : 0, immData, srcQp,
            pkt.bth().solicited());
        return SrdRecvContext.DONE;
    }

    /** WRITE / WRITE_WITH_IMM chunk: DONE, -1 (RNR) or a NAK syndrome. */
    private int write(Qp qp, SrdState s, RocePacket pkt, Srdeth h, int srcQp) {
        Reth reth = pkt.reth();
        int len = pkt.payloadLength();
        long dmaLen = Integer.toUnsignedLong(reth.dmaLength());
        boolean imm = pkt.bth().opcode() == Opcodes.SRD_WRITE_WITH_IMM;
        long total = Integer.toUnsignedLong(h.length());
        if (dmaLen != len || (imm && (total < len || total > SrdState.MAX_RDMA_SIZE))) {
            engine.counters.inc(TransportCounters.NAK_INVALID_REQUEST_SENT);
            return Aeth.NAK_INVALID_REQ;
        }
        boolean unsolicited = s.unsolicitedWriteRecv;
        if (imm && !unsolicited) {
            RecvQueue q = qp.recvQueue();
            if (q == null || q.peek() == null) {
                return -1; // nothing placed yet: the retry after the RNR wait places it
            }
        }
        if (len > 0) {
            MemoryKey key = remoteKey(qp, reth.rkey());
            long va = reth.va();
            int st = key == null ? MemStatus.INVALID_KEY : key.check(qp.pdHandle, Access.REMOTE_WRITE, va, len);
            if (st == MemStatus.OK) {
                st = key.write(qp.pdHandle, Access.REMOTE_WRITE, va, pkt.segment(), pkt.payloadOffset(), len);
            }
            if (st != MemStatus.OK) {
                return keyRefused(st);
            }
        }
        if (imm) {
            int immData = pkt.immDt().immediate();
            if (unsolicited) {
                Completions.recvDatagram(qp, null, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, total,
                    WcFlags.WITH_IMM | WcFlags.UNSOLICITED, immData, srcQp, pkt.bth().solicited());
            } else {
                Completions.recvDatagram(qp, qp.resp.takeRecvWqe(qp), WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, total,
                    WcFlags.WITH_IMM, immData, srcQp, pkt.bth().solicited());
            }
            engine.counters.inc(TransportCounters.RDMA_RECVS);
        }
        return SrdRecvContext.DONE;
    }

    /**
     * READ request: checks the key over the chunk and sends the response (again, for a
     * duplicate). DONE or a NAK syndrome.
     */
    private int read(Qp qp, SrdState s, SrdRecvContext c, RocePacket pkt, Srdeth h, int path) {
        Reth reth = pkt.reth();
        long len = Integer.toUnsignedLong(reth.dmaLength());
        if (len > qp.pathMtu || h.length() != len) {
            engine.counters.inc(TransportCounters.NAK_INVALID_REQUEST_SENT);
            return Aeth.NAK_INVALID_REQ;
        }
        int n = (int) len;
        MemoryKey key = null;
        if (n > 0) {
            key = remoteKey(qp, reth.rkey());
            int st = key == null ? MemStatus.INVALID_KEY : key.check(qp.pdHandle, Access.REMOTE_READ, reth.va(), n);
            if (st != MemStatus.OK) {
                return keyRefused(st);
            }
        }
        long va = reth.va();
        int psn = pkt.bth().psn();
        int ts = h.timestamp();
        PacketOut out = engine.out;
        MemorySegment buf = out.beginDatagram(qp, Opcodes.SRD_READ_RESPONSE, c.qpn, psn, false, false, n);
        reply(qp, out, c, path, 0, ts, n);
        if (n > 0) {
            int st = key.read(qp.pdHandle, Access.REMOTE_READ, va, buf, out.payloadOffset(), n);
            if (st != MemStatus.OK) {
                return keyRefused(st); // changed under the read: the claimed buffer is dropped
            }
        }
        out.commitFrom(c.addr, qp.destPort, s.pathPorts[0]);
        return SrdRecvContext.DONE;
    }

    private int keyRefused(int st) {
        engine.counters.inc(RcResponder.keyCounter(st));
        engine.counters.inc(TransportCounters.NAK_REMOTE_ACCESS_SENT);
        return Aeth.NAK_REMOTE_ACCESS;
    }

    private MemoryKey remoteKey(Qp qp, int rkey) {
        MemoryKey k = engine.keys.lookup(rkey);
        return k == null ? null : k.forRemote(qp.token);
    }

    /** The DETH and SRDETH of a response to {@code c}'s peer. */
    private void reply(Qp qp, PacketOut out, SrdRecvContext c, int path, int base, int ts, int length) {
        out.deth().qkey(0).reserved(path).srcQp(qp.qpn);
        out.srdeth().epoch(c.epoch).flags(dev.jrxe.wire.Srdeth.VERSION << 4).base(base).timestamp(ts).length(length);
    }

    private void oweAck(SrdState s, SrdRecvContext c, int psn, int ts, int path, boolean holdable) {
        c.ackPsn = psn;
        c.ackTimestamp = ts;
        c.ackPath = path;
        s.listAcking(c, holdable);
    }

    private void nak(Qp qp, SrdState s, SrdRecvContext c, int syndrome, int psn, int ts, int path) {
        PacketOut out = engine.out;
        out.beginDatagram(qp, Opcodes.SRD_NAK, c.qpn, psn, false, false, 0);
        reply(qp, out, c, path, 0, ts, 0);
        out.aeth().syndrome(syndrome).msn(0);
        out.commitFrom(c.addr, qp.destPort, s.pathPorts[0]);
    }

    /**
     * At the end of a duty cycle: the owed ACKs go now, or stay held (true) while an application
     * thread drives ({@code mayHold}), every one of them is for a SEND that completed a receive,
     * no packets leave in this flush anyway ({@code piggyback}) and the hold is younger than
     * {@link SrdState#ackHoldNanos}. The application's answer then takes them along.
     */
    boolean sendOrHoldAcks(Qp qp, boolean piggyback, boolean mayHold) {
        SrdState s = qp.srd;
        if (s.ackingCount == 0) {
            return false;
        }
        if (mayHold && s.ackHoldable && !piggyback && s.ackHoldNanos > 0) {
            if (!s.ackHolding) {
                s.ackHolding = true;
                s.ackHeldAt = engine.clockNanos(); // when they would have left
                return true;
            }
            if (engine.now - s.ackHeldAt < s.ackHoldNanos) {
                return true;
            }
        }
        sendAcks(qp);
        return false;
    }

    /**
     * The UDP source port an ACK to {@code addr} leaves from: the QP's first path, or, when this
     * QP's last packet of the flush went to the same peer from another of its paths, that path's
     * port, so that the ACK and that packet share a system call (the link sends one run of
     * datagrams per source port; the port of an ACK is only entropy, its path is in the DETH).
     */
    private static int ackPort(SrdState s, PacketOut out, int addr) {
        if (out.committed > 0 && out.lastDestAddr == addr) {
            int p = out.lastSrcPort;
            for (int port : s.pathPorts) {
                if (port == p) {
                    return p;
                }
            }
        }
        return s.pathPorts[0];
    }

    /** Sends every owed ACK now; returns how many. */
    int sendAcks(Qp qp) {
        SrdState s = qp.srd;
        s.ackHolding = false;
        int n = s.ackingCount;
        PacketOut out = engine.out;
        for (int i = 0; i < n; i++) {
            SrdRecvContext c = s.acking[i];
            s.acking[i] = null;
            c.ackPending = false;
            MemorySegment buf = out.beginDatagram(qp, Opcodes.SRD_ACK, c.qpn, c.ackPsn, false, false,
                OpcodeTable.SRD_SACK_LENGTH);
            reply(qp, out, c, c.ackPath, c.base, c.ackTimestamp, W);
            long p = out.payloadOffset();
            for (int b = 0; b < OpcodeTable.SRD_SACK_LENGTH; b++) {
                int bits = 0;
                for (int j = 0; j < 8; j++) {
                    if (c.status(c.base + b * 8 + j) == SrdRecvContext.DONE) {
                        bits |= 1 << j;
                    }
                }
                buf.set(ValueLayout.JAVA_BYTE, p + b, (byte) bits);
            }
            out.commitFrom(c.addr, qp.destPort, ackPort(s, out, c.addr));
            engine.counters.inc(TransportCounters.SRD_ACKS_SENT);
        }
        s.ackingCount = 0;
        return n;
    }
}
