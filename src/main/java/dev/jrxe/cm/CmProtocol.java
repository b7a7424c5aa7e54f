package dev.jrxe.cm;

import dev.jrxe.cm.CmMessages.Dreq;
import dev.jrxe.cm.CmMessages.Mra;
import dev.jrxe.cm.CmMessages.Rej;
import dev.jrxe.cm.CmMessages.RejReason;
import dev.jrxe.cm.CmMessages.Rep;
import dev.jrxe.cm.CmMessages.Req;
import dev.jrxe.cm.CmMessages.Rtu;
import dev.jrxe.cm.CmMessages.SidrRep;
import dev.jrxe.cm.CmMessages.SidrReq;
import dev.jrxe.ib.Errno;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.VerbsException;

/**
 * The IB CM's state machines (Linux cm.c with cma.c's choices for RoCE): what each side sends,
 * and what a received MAD does to the connection it names. Connections are found by
 * communication ID, never by TID (replies echo the request's TID). Duplicates are answered from
 * state: a REQ again while the REP is out gets the REP again, a REP again after the RTU gets the
 * RTU, a DREQ for a connection no longer known gets a DREP. Everything here runs holding the agent.
 */
final class CmProtocol {
    /** The device's local CA ACK delay (rxe: 15), in the REP's Target ACK Delay. */
    private static final int CA_ACK_DELAY = 15;
    private static final int HOP_LIMIT = 64;
    private static final int MAX_RD_ATOMIC = 16;
    /** Bounds on the REP retransmission a REQ may ask for (4.096 µs × 2^x: 256 ms .. 2.1 s; 4 retries: a half-open connection lasts about 10 s at most). */
    static final int MIN_PEER_TIMEOUT = 16;
    static final int MAX_PEER_TIMEOUT = 19;
    static final int MAX_PEER_RETRIES = 4;

    private CmProtocol() {
    }

    static long remoteKey(int addr, int commId) {
        return (long) addr << 32 | (commId & 0xFFFFFFFFL);
    }

    /** rdma_cm's flow label for RoCE over IPv4: (active side's port × 31 + service port) & 0xFFFFF. */
    static int flowLabel(CmId id) {
        int activePort = id.listener == null ? id.localPort : id.remotePort;
        int servicePort = id.listener == null ? id.remotePort : id.localPort;
        return (activePort * 31 + servicePort) & 0xFFFFF;
    }

    /** Linux cm_ack_timeout(ca_ack_delay, packet_life_time): the QP's ACK timeout. */
    static int ackTimeout(int packetLifeTime) {
        int t = packetLifeTime + 1;
        if (t >= CA_ACK_DELAY) {
            t += CA_ACK_DELAY >= t - 1 ? 1 : 0;
        } else {
            t = CA_ACK_DELAY + (t >= CA_ACK_DELAY - 1 ? 1 : 0);
        }
        return Math.min(31, t);
    }

    private static byte[] gid(int addr) {
        return Gid.ofIpv4(addr).raw();
    }

    /** The passive id a REQ or SIDR_REQ from {@code src} makes on listener {@code l}. */
    private static CmId passive(CmId l, int src, CmaHeader h, int remoteCommId, Mad m) {
        CmId c = CmId.passive(l);
        c.localPort = l.localPort;
        c.remoteAddr = src;
        c.remotePort = h.sourcePort();
        c.remoteCommId = remoteCommId;
        c.tid = m.transactionId();
        return c;
    }

    // ------------------------------------------------------------------ active side

    static void sendReq(CmId id, ConnParam p) {
        CmAgent a = id.agent;
        id.localCommId = a.newCommId();
        a.byLocalId.put(id.localCommId, id);
        id.tid = a.newTid(id.localCommId);
        id.localPsn = a.random.nextInt() & 0xFFFFFF;
        id.responderResources = clamp(p.responderResources, 0, MAX_RD_ATOMIC);
        id.initiatorDepth = clamp(p.initiatorDepth, 0, MAX_RD_ATOMIC);
        id.retryCount = clamp(p.retryCount, 0, 7);
        id.rnrRetry = clamp(p.rnrRetryCount, 0, 7);
        id.mtuEnum = id.device.activeMtu();
        Mad m = new Mad().cm(Mad.ATTR_REQ, id.tid);
        m.u32(Req.LOCAL_COMM_ID, id.localCommId).u64(Req.SERVICE_ID, ServiceIds.of(id.portSpace, id.remotePort))
            .u64(Req.LOCAL_CA_GUID, a.guid).u32(Req.LOCAL_QKEY, 0)
            .u24(Req.LOCAL_QPN, id.qp.qpNum()).u8(Req.RESPONDER_RESOURCES, id.responderResources)
            .u8(Req.INITIATOR_DEPTH, id.initiatorDepth)
            .u8(Req.BYTE43, id.responseTimeout << 3 | CmMessages.TRANSPORT_RC << 1)
            .u24(Req.STARTING_PSN, id.localPsn).u8(Req.BYTE47, id.responseTimeout << 3 | id.retryCount)
            .u16(Req.PKEY, 0xFFFF).u8(Req.BYTE50, id.mtuEnum << 4 | id.rnrRetry).u8(Req.BYTE51, id.maxCmRetries << 4)
            .u16(Req.PRIMARY_LOCAL_LID, 0xFFFF).u16(Req.PRIMARY_REMOTE_LID, 0xFFFF)
            .gid(Req.PRIMARY_LOCAL_GID, gid(id.localAddr)).gid(Req.PRIMARY_REMOTE_GID, gid(id.remoteAddr))
            .u32(Req.PRIMARY_FLOW_LABEL_WORD, flowLabel(id) << 12).u8(Req.PRIMARY_HOP_LIMIT, HOP_LIMIT)
            .u8(Req.BYTE95, ackTimeout(id.packetLifeTime) << 3)
            .data(Req.PRIVATE_DATA, new CmaHeader(id.localPort, id.localAddr, id.remoteAddr).encode(p.privateData),
                Req.PRIVATE_DATA_SIZE);
        a.send(id.remoteAddr, m);
        // Linux: twice the packet life time plus the peer's response time, Max CM Retries times
        id.arm(m, 2 * CmMessages.timeoutMillis(id.packetLifeTime) + CmMessages.timeoutMillis(id.responseTimeout),
            id.maxCmRetries);
        id.state = CmId.REQ_SENT;
    }

    static boolean onRep(CmAgent a, int src, Mad m) {
        CmId id = a.byLocalId.get(m.u32(Rep.REMOTE_COMM_ID));
        if (id == null || id.listener != null || id.remoteAddr != src || id.portSpace != ServiceIds.PS_TCP) {
            return false;
        }
        if (id.state == CmId.ESTABLISHED && id.remoteCommId == m.u32(Rep.LOCAL_COMM_ID) && id.rtu != null) {
            a.send(src, id.rtu); // our RTU was lost: the passive side sends its REP again
            return true;
        }
        if (id.state != CmId.REQ_SENT) {
            return false;
        }
        id.disarm();
        id.remoteCommId = m.u32(Rep.LOCAL_COMM_ID);
        id.remoteQpn = m.u24(Rep.LOCAL_QPN);
        id.remotePsn = m.u24(Rep.STARTING_PSN);
        int maxRd = Math.min(id.initiatorDepth, m.u8(Rep.RESPONDER_RESOURCES));
        int maxDest = Math.min(id.responderResources, m.u8(Rep.INITIATOR_DEPTH));
        int rnr = m.bits(Rep.BYTE27, 5, 3);
        try {
            id.toRts(maxDest, maxRd, rnr);
        } catch (VerbsException e) {
            sendRej(id, RejReason.CONSUMER_DEFINED, Rej.MSG_REP, null);
            id.finish();
            id.state = CmId.CLOSED;
            id.event(CmEventType.CONNECT_ERROR, -e.errno(), null, null);
            return true;
        }
        Mad rtu = new Mad().cm(Mad.ATTR_RTU, id.tid);
        rtu.u32(Rtu.LOCAL_COMM_ID, id.localCommId).u32(Rtu.REMOTE_COMM_ID, id.remoteCommId);
        id.rtu = rtu;
        a.send(src, rtu);
        id.state = CmId.ESTABLISHED;
        ConnParam ev = new ConnParam();
        ev.responderResources = maxDest;
        ev.initiatorDepth = maxRd;
        ev.rnrRetryCount = rnr;
        ev.qpNum = id.remoteQpn;
        ev.privateData = m.data(Rep.PRIVATE_DATA, Rep.PRIVATE_DATA_SIZE);
        id.event(CmEventType.ESTABLISHED, 0, ev.privateData, ev);
        return true;
    }

    // ------------------------------------------------------------------ passive side

    static boolean onReq(CmAgent a, int src, Mad m) {
        int remoteComm = m.u32(Req.LOCAL_COMM_ID);
        CmId dup = a.byRemote.get(remoteKey(src, remoteComm));
        if (dup != null) {
            if (dup.state == CmId.REP_SENT && dup.pending != null) {
                a.send(src, dup.pending); // the REP was lost
            }
            return true; // otherwise the application has not answered yet, or it is done
        }
        CmId l = a.listeners.get(m.u64(Req.SERVICE_ID));
        if (l == null) {
            rejectUnknown(a, src, m, RejReason.INVALID_SERVICE_ID);
            return true;
        }
        if (l.portSpace != ServiceIds.PS_TCP) {
            rejectUnknown(a, src, m, RejReason.INVALID_TRANSPORT_TYPE); // a REQ for a UD (SIDR) service
            return true;
        }
        if (m.bits(Req.BYTE43, 1, 2) != CmMessages.TRANSPORT_RC) {
            rejectUnknown(a, src, m, RejReason.INVALID_TRANSPORT_TYPE);
            return true;
        }
        byte[] priv = m.data(Req.PRIVATE_DATA, Req.PRIVATE_DATA_SIZE);
        CmaHeader h = CmaHeader.decode(priv);
        if (h == null || h.destAddr() != a.device.address() || h.sourceAddr() != src) {
            rejectUnknown(a, src, m, RejReason.CONSUMER_DEFINED); // as the Linux CMA: not an rdma_cm REQ for us
            return true;
        }
        if (l.pendingRequests() >= l.backlog) {
            rejectUnknown(a, src, m, RejReason.CONSUMER_DEFINED); // the listen backlog is full
            return true;
        }
        CmId c = passive(l, src, h, remoteComm, m);
        c.remoteQpn = m.u24(Req.LOCAL_QPN);
        c.remotePsn = m.u24(Req.STARTING_PSN);
        c.peerResponderResources = m.u8(Req.RESPONDER_RESOURCES);
        c.peerInitiatorDepth = m.u8(Req.INITIATOR_DEPTH);
        c.retryCount = m.bits(Req.BYTE47, 0, 3);
        c.rnrRetry = m.bits(Req.BYTE50, 0, 3);
        c.mtuEnum = Math.max(1, Math.min(m.bits(Req.BYTE50, 4, 4), 5));
        // the REP timer is the peer's to choose, within bounds: not a flood (x < 16: < 256 ms) and
        // no half-open connection for hours (x 31 × 15 retries: 37 h); at most 4 retries
        c.peerResponseTimeout = clamp(m.bits(Req.BYTE47, 3, 5), MIN_PEER_TIMEOUT, MAX_PEER_TIMEOUT);
        c.peerMaxRetries = Math.min(m.bits(Req.BYTE51, 4, 4), MAX_PEER_RETRIES);
        c.packetLifeTime = Math.max(0, m.bits(Req.BYTE95, 3, 5) - 1);
        c.localCommId = a.newCommId();
        a.byLocalId.put(c.localCommId, c);
        a.byRemote.put(remoteKey(src, remoteComm), c);
        c.state = CmId.REQ_RCVD;
        ConnParam ev = new ConnParam();
        ev.responderResources = c.peerInitiatorDepth; // as the passive side sees them: swapped
        ev.initiatorDepth = c.peerResponderResources;
        ev.retryCount = c.retryCount;
        ev.rnrRetryCount = c.rnrRetry;
        ev.qpNum = c.remoteQpn;
        ev.privateData = CmaHeader.userData(priv);
        c.event(CmEventType.CONNECT_REQUEST, 0, ev.privateData, ev);
        return true;
    }

    static void sendRep(CmId id, ConnParam p) {
        CmAgent a = id.agent;
        int maxDest = Math.min(clamp(p.responderResources, 0, MAX_RD_ATOMIC), id.peerInitiatorDepth);
        int maxRd = Math.min(clamp(p.initiatorDepth, 0, MAX_RD_ATOMIC), id.peerResponderResources);
        id.localPsn = a.random.nextInt() & 0xFFFFFF;
        id.toRts(maxDest, maxRd, id.rnrRetry); // before the REP, as Linux's passive side
        Mad m = new Mad().cm(Mad.ATTR_REP, id.tid);
        m.u32(Rep.LOCAL_COMM_ID, id.localCommId).u32(Rep.REMOTE_COMM_ID, id.remoteCommId).u32(Rep.LOCAL_QKEY, 0)
            .u24(Rep.LOCAL_QPN, id.qp.qpNum()).u24(Rep.STARTING_PSN, id.localPsn)
            .u8(Rep.RESPONDER_RESOURCES, maxDest).u8(Rep.INITIATOR_DEPTH, maxRd)
            .u8(Rep.BYTE26, CA_ACK_DELAY << 3).u8(Rep.BYTE27, clamp(p.rnrRetryCount, 0, 7) << 5)
            .u64(Rep.LOCAL_CA_GUID, a.guid).data(Rep.PRIVATE_DATA, p.privateData, Rep.PRIVATE_DATA_SIZE);
        a.send(id.remoteAddr, m);
        id.arm(m, CmMessages.timeoutMillis(id.peerResponseTimeout), id.peerMaxRetries);
        id.state = CmId.REP_SENT;
    }

    static boolean onRtu(CmAgent a, int src, Mad m) {
        CmId id = a.byLocalId.get(m.u32(Rtu.REMOTE_COMM_ID));
        if (id == null || id.remoteAddr != src) {
            return false;
        }
        if (id.state != CmId.REP_SENT || id.remoteCommId != m.u32(Rtu.LOCAL_COMM_ID)) {
            return id.state == CmId.ESTABLISHED; // a duplicate RTU changes nothing
        }
        id.disarm();
        id.state = CmId.ESTABLISHED;
        ConnParam ev = new ConnParam();
        ev.qpNum = id.remoteQpn;
        id.event(CmEventType.ESTABLISHED, 0, m.data(Rtu.PRIVATE_DATA, Rtu.PRIVATE_DATA_SIZE), ev);
        return true;
    }

    // ------------------------------------------------------------------ both

    static boolean onRej(CmAgent a, int src, Mad m) {
        CmId id = a.byLocalId.get(m.u32(Rej.REMOTE_COMM_ID));
        if (id == null || id.remoteAddr != src || id.portSpace != ServiceIds.PS_TCP
            || (id.state != CmId.REQ_SENT && id.state != CmId.REP_SENT)) {
            return false;
        }
        if (id.state == CmId.REP_SENT && id.remoteCommId != m.u32(Rej.LOCAL_COMM_ID)) {
            return false;
        }
        int reason = m.u16(Rej.REASON);
        id.toError();
        id.finish();
        id.state = CmId.CLOSED;
        byte[] priv = reason == RejReason.CONSUMER_DEFINED ? m.data(Rej.PRIVATE_DATA, Rej.PRIVATE_DATA_SIZE) : null;
        id.event(CmEventType.REJECTED, reason, priv, null);
        return true;
    }

    /** MRA: the peer needs longer; the pending MAD waits its service timeout more (cm_mra_handler). */
    static boolean onMra(CmAgent a, int src, Mad m) {
        CmId id = a.byLocalId.get(m.u32(Mra.REMOTE_COMM_ID));
        int mraed = m.bits(Mra.BYTE8, 6, 2);
        int expected = id == null ? -1 : id.state == CmId.REQ_SENT ? Rej.MSG_REQ
            : id.state == CmId.REP_SENT ? Rej.MSG_REP : -1;
        // one MRA per message, from its peer, for the message it waits on (as Linux's cm_mra_handler)
        if (id == null || id.pending == null || id.mraTaken || id.remoteAddr != src || mraed != expected
            || id.portSpace != ServiceIds.PS_TCP) {
            return false;
        }
        id.mraTaken = true;
        // as Linux's ib_modify_mad: the MRA's time for this and every later retry, at most x = 24 (69 s)
        int service = clamp(m.bits(Mra.BYTE9, 3, 5), 0, 24);
        long extra = CmMessages.timeoutMillis(service) + CmMessages.timeoutMillis(id.packetLifeTime);
        id.timeoutNanos = extra * 1_000_000L;
        id.deadline = System.nanoTime() + id.timeoutNanos;
        return true;
    }

    static void sendDreq(CmId id) {
        Mad m = dreq(id);
        id.agent.send(id.remoteAddr, m);
        id.arm(m, 2 * CmMessages.timeoutMillis(id.packetLifeTime) + CmMessages.timeoutMillis(id.responseTimeout),
            id.maxCmRetries);
        id.state = CmId.DREQ_SENT;
    }

    /** A DREQ on the way out of a destroyed id: sent once, nothing waits for its DREP. */
    static void sendDreqOnce(CmId id) {
        id.agent.send(id.remoteAddr, dreq(id));
    }

    private static Mad dreq(CmId id) {
        Mad m = new Mad().cm(Mad.ATTR_DREQ, id.agent.newTid(id.localCommId));
        m.u32(Dreq.LOCAL_COMM_ID, id.localCommId).u32(Dreq.REMOTE_COMM_ID, id.remoteCommId)
            .u24(Dreq.REMOTE_QPN, id.remoteQpn);
        return m;
    }

    static boolean onDreq(CmAgent a, int src, Mad m) {
        CmId id = a.byLocalId.get(m.u32(Dreq.REMOTE_COMM_ID));
        if (id == null) {
            // a connection no longer known (its DREP was lost, or it timed out): DREP anyway
            sendDrep(a, src, m.u32(Dreq.REMOTE_COMM_ID), m.u32(Dreq.LOCAL_COMM_ID), m.transactionId());
            return true;
        }
        if (id.remoteCommId != m.u32(Dreq.LOCAL_COMM_ID) || id.remoteAddr != src || id.qp == null
            || m.u24(Dreq.REMOTE_QPN) != id.qp.qpNum()) {
            return false; // Linux ignores a DREQ that does not name this connection's QP
        }
        switch (id.state) {
            case CmId.ESTABLISHED, CmId.REP_SENT -> {
                id.disarm();
                id.tid = m.transactionId();
                id.toError();
                id.state = CmId.DREQ_RCVD;
                if (id.replyToDreq) {
                    // the endpoint API answers at once: its users need not call disconnect for it
                    sendDrep(a, src, id.localCommId, id.remoteCommId, id.tid);
                    id.finish();
                    id.state = CmId.TIMEWAIT;
                }
                id.event(CmEventType.DISCONNECTED, 0, m.data(Dreq.PRIVATE_DATA, Dreq.PRIVATE_DATA_SIZE), null);
            }
            case CmId.DREQ_SENT -> {
                // both sides disconnect at once: answer, and be done
                sendDrep(a, src, id.localCommId, id.remoteCommId, m.transactionId());
                id.finish();
                id.state = CmId.TIMEWAIT;
                id.event(CmEventType.DISCONNECTED, 0, null, null);
            }
            default -> {
            }
        }
        return true;
    }

    static void sendDrep(CmAgent a, int dest, int localCommId, int remoteCommId, long tid) {
        Mad m = new Mad().cm(Mad.ATTR_DREP, tid);
        m.u32(Rtu.LOCAL_COMM_ID, localCommId).u32(Rtu.REMOTE_COMM_ID, remoteCommId);
        a.send(dest, m);
    }

    static boolean onDrep(CmAgent a, int src, Mad m) {
        CmId id = a.byLocalId.get(m.u32(Rtu.REMOTE_COMM_ID));
        if (id == null || id.remoteAddr != src || id.state != CmId.DREQ_SENT
            || id.remoteCommId != m.u32(Rtu.LOCAL_COMM_ID)) {
            return false;
        }
        id.finish();
        id.state = CmId.TIMEWAIT;
        id.event(CmEventType.DISCONNECTED, 0, null, null);
        return true;
    }

    /** A REJ of this connection (TIMEOUT carries the local CA GUID as its ARI, as Linux's). */
    static void sendRej(CmId id, int reason, int msg, byte[] privateData) {
        Mad m = new Mad().cm(Mad.ATTR_REJ, id.tid);
        m.u32(Rej.LOCAL_COMM_ID, id.localCommId).u32(Rej.REMOTE_COMM_ID, id.remoteCommId).u8(Rej.BYTE8, msg << 6)
            .u16(Rej.REASON, reason).data(Rej.PRIVATE_DATA, privateData, Rej.PRIVATE_DATA_SIZE);
        if (reason == RejReason.TIMEOUT) {
            m.u8(Rej.BYTE9, 8 << 1).u64(Rej.ARI, id.agent.guid);
        }
        id.agent.send(id.remoteAddr, m);
    }

    /** A REJ of a REQ no connection was made for: Local comm ID 0, to the packet's source. */
    private static void rejectUnknown(CmAgent a, int src, Mad req, int reason) {
        Mad m = new Mad().cm(Mad.ATTR_REJ, req.transactionId());
        m.u32(Rej.LOCAL_COMM_ID, 0).u32(Rej.REMOTE_COMM_ID, req.u32(Req.LOCAL_COMM_ID)).u8(Rej.BYTE8, Rej.MSG_REQ << 6)
            .u16(Rej.REASON, reason);
        a.send(src, m);
    }

    // ------------------------------------------------------------------ SIDR (UD ids, RDMA_PS_UDP)

    /** A UD id's "connect": a SIDR_REQ asking the service for its QPN and Q_Key (cma_resolve_ib_udp). */
    static void sendSidrReq(CmId id, ConnParam p) {
        CmAgent a = id.agent;
        id.localCommId = a.newCommId();
        a.byLocalId.put(id.localCommId, id);
        id.tid = a.newTid(id.localCommId);
        Mad m = new Mad().cm(Mad.ATTR_SIDR_REQ, id.tid);
        m.u32(SidrReq.REQUEST_ID, id.localCommId).u16(SidrReq.PKEY, 0xFFFF)
            .u64(SidrReq.SERVICE_ID, ServiceIds.of(id.portSpace, id.remotePort))
            .data(SidrReq.PRIVATE_DATA, new CmaHeader(id.localPort, id.localAddr, id.remoteAddr)
                .encode(p.privateData, SidrReq.PRIVATE_DATA_SIZE), SidrReq.PRIVATE_DATA_SIZE);
        a.send(id.remoteAddr, m);
        id.arm(m, 2 * CmMessages.timeoutMillis(id.packetLifeTime) + CmMessages.timeoutMillis(id.responseTimeout),
            id.maxCmRetries);
        id.state = CmId.REQ_SENT;
    }

    static boolean onSidrReq(CmAgent a, int src, Mad m) {
        int requestId = m.u32(SidrReq.REQUEST_ID);
        CmId dup = a.byRemote.get(remoteKey(src, requestId));
        if (dup != null) {
            if (dup.sidrRep != null) {
                a.send(src, dup.sidrRep); // our SIDR_REP was lost
            }
            return true;
        }
        long sid = m.u64(SidrReq.SERVICE_ID);
        CmId l = a.listeners.get(sid);
        byte[] priv = m.data(SidrReq.PRIVATE_DATA, SidrReq.PRIVATE_DATA_SIZE);
        CmaHeader h = CmaHeader.decode(priv);
        if (l == null || ServiceIds.portSpace(sid) != ServiceIds.PS_UDP || h == null
            || h.destAddr() != a.device.address() || h.sourceAddr() != src || l.pendingRequests() >= l.backlog) {
            sidrRep(a, src, m.transactionId(), requestId, sid,
                l == null ? SidrRep.UNSUPPORTED : SidrRep.REJECT, 0, 0, null);
            return true;
        }
        CmId c = passive(l, src, h, requestId, m);
        c.localCommId = a.newCommId();
        a.byLocalId.put(c.localCommId, c);
        a.byRemote.put(remoteKey(src, requestId), c);
        c.state = CmId.REQ_RCVD;
        ConnParam ev = new ConnParam();
        ev.privateData = CmaHeader.userData(priv);
        c.event(CmEventType.CONNECT_REQUEST, 0, ev.privateData, ev);
        return true;
    }

    /** The passive UD id's answer: its QPN and Q_Key ({@code status} SUCCESS), or a refusal. */
    static void sendSidrRep(CmId id, int status, byte[] privateData) {
        long sid = ServiceIds.of(id.portSpace, id.localPort);
        id.sidrRep = sidrRep(id.agent, id.remoteAddr, id.tid, id.remoteCommId, sid, status,
            status == SidrRep.SUCCESS ? id.qp.qpNum() : 0, status == SidrRep.SUCCESS ? ServiceIds.UDP_QKEY : 0,
            privateData);
        id.state = status == SidrRep.SUCCESS ? CmId.ESTABLISHED : CmId.CLOSED;
    }

    private static Mad sidrRep(CmAgent a, int dest, long tid, int requestId, long sid, int status, int qpn, int qkey,
                               byte[] privateData) {
        Mad m = new Mad().cm(Mad.ATTR_SIDR_REP, tid);
        m.u32(SidrRep.REQUEST_ID, requestId).u8(SidrRep.STATUS, status).u24(SidrRep.QPN, qpn)
            .u64(SidrRep.SERVICE_ID, sid).u32(SidrRep.QKEY, qkey)
            .data(SidrRep.PRIVATE_DATA, privateData, SidrRep.PRIVATE_DATA_SIZE);
        a.send(dest, m);
        return m;
    }

    static boolean onSidrRep(CmAgent a, int src, Mad m) {
        CmId id = a.byLocalId.get(m.u32(SidrRep.REQUEST_ID));
        if (id == null || id.remoteAddr != src || id.state != CmId.REQ_SENT || id.portSpace != ServiceIds.PS_UDP) {
            return false;
        }
        id.finish();
        int status = m.u8(SidrRep.STATUS);
        byte[] priv = m.data(SidrRep.PRIVATE_DATA, SidrRep.PRIVATE_DATA_SIZE);
        if (status != SidrRep.SUCCESS) {
            id.state = CmId.CLOSED;
            id.event(CmEventType.UNREACHABLE, status, priv, null); // as cma.c: the SIDR status
            return true;
        }
        if (m.u32(SidrRep.QKEY) != ServiceIds.UDP_QKEY) {
            id.state = CmId.CLOSED; // as cma.c cma_set_qkey: rdma_cm's UD ids use RDMA_UDP_QKEY only
            id.event(CmEventType.ADDR_ERROR, -Errno.EINVAL, priv, null);
            return true;
        }
        id.remoteQpn = m.u24(SidrRep.QPN);
        id.state = CmId.ESTABLISHED;
        ConnParam ev = new ConnParam();
        ev.qpNum = id.remoteQpn;
        ev.qkey = ServiceIds.UDP_QKEY;
        ev.privateData = priv;
        id.event(CmEventType.ESTABLISHED, 0, priv, ev);
        return true;
    }

    /** The last retry of {@code id}'s pending MAD went unanswered. */
    static void timedOut(CmId id) {
        switch (id.state) {
            case CmId.REQ_SENT, CmId.REP_SENT -> {
                if (id.portSpace == ServiceIds.PS_TCP) {
                    id.toError(); // a UD id's QP is its own, not the connection's: left alone, as Linux
                }
                id.finish();
                id.state = CmId.CLOSED;
                id.event(CmEventType.UNREACHABLE, -Errno.ETIMEDOUT, null, null);
            }
            case CmId.DREQ_SENT -> {
                id.finish();
                id.state = CmId.TIMEWAIT;
                id.event(CmEventType.DISCONNECTED, 0, null, null);
            }
            default -> id.finish();
        }
    }

    private static int clamp(int v, int lo, int hi) {
        return Math.max(lo, Math.min(hi, v));
    }
}
