package dev.jrxe.cm;

import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpAttr;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.VerbsException;

/**
 * {@code struct rdma_cm_id}: one end of an rdma_cm connection, or a listener. The calls follow
 * librdmacm's, so a C rdma_cm program ports line for line: {@link #create} ({@code rdma_create_id}
 * on a device), {@link #bindAddr}, {@link #resolveAddr} and {@link #resolveRoute} (immediate:
 * jrxe devices are IP endpoints, no ARP or path query), {@link #createQp} (an RC QP moved to
 * INIT, or for RDMA_PS_UDP a UD QP moved to RTS), {@link #connect}, {@link #listen},
 * {@link #accept}, {@link #reject}, {@link #disconnect}, {@link #close} ({@code rdma_destroy_id},
 * and the QP {@code createQp} made). Events arrive on the id's {@link EventChannel}; a passive id
 * arrives in a CONNECT_REQUEST event on its listener's channel. The wire is the IB CM's, over the
 * device's QP1, so a Linux rdma_cm peer (rping, perftest -R) talks to it. Addresses are IPv4
 * addresses as big-endian ints ({@code Device.address()}); errors are {@link VerbsException}s
 * with librdmacm's errno.
 *
 * <p>Thread safe: every call that changes the id takes the lock of the device's CM agent (one per
 * device, shared by all its ids; the agent's thread takes it too, to handle MADs and timers), so
 * calls may come from any thread. The address and QP accessors read without that lock: rely on
 * them on the thread that set them, or after the event that reported the change.
 *
 * <pre>{@code
 * CmId id = CmId.create(channel, device, ServiceIds.PS_TCP);
 * id.resolveAddr(0, serverAddr, 7174, 2000);   // ADDR_RESOLVED on the channel
 * id.resolveRoute(2000);                       // ROUTE_RESOLVED
 * id.createQp(pd, new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 16, 1, 1, 0)));
 * id.connect(new ConnParam());                 // ESTABLISHED, REJECTED or UNREACHABLE
 * }</pre>
 */
public final class CmId implements AutoCloseable {
    static final int IDLE = 0;
    static final int ADDR_BOUND = 1;
    static final int ADDR_RESOLVED = 2;
    static final int ROUTE_RESOLVED = 3;
    static final int LISTEN = 4;
    static final int REQ_SENT = 5;
    static final int REQ_RCVD = 6;
    static final int REP_SENT = 7;
    static final int ESTABLISHED = 8;
    static final int DREQ_SENT = 9;
    static final int DREQ_RCVD = 10;
    static final int TIMEWAIT = 11;
    static final int CLOSED = 12;
    private static final String[] STATES = {"IDLE", "ADDR_BOUND", "ADDR_RESOLVED", "ROUTE_RESOLVED", "LISTEN",
        "REQ_SENT", "REQ_RCVD", "REP_SENT", "ESTABLISHED", "DREQ_SENT", "DREQ_RCVD", "TIMEWAIT", "CLOSED"};

    final CmAgent agent;
    final EventChannel channel;
    final Device device;
    final int portSpace;
    /** The listener a passive id came to, or null. */
    final CmId listener;

    // ---- addresses (IPv4, big-endian ints) and ports
    int localAddr;
    int localPort;
    int remoteAddr;
    int remotePort;

    QueuePair qp;
    private boolean ownQp;

    // ---- connection (holding the agent)
    int state;
    int localCommId;
    int remoteCommId;
    long tid;
    int remoteQpn;
    /** The PSN this side advertises: what it expects to receive (its rq_psn). */
    int localPsn;
    /** The PSN the peer advertised: what this side sends from (its sq_psn). */
    int remotePsn;
    int responderResources;
    int initiatorDepth;
    int retryCount = 7;
    int rnrRetry = 7;
    int mtuEnum = dev.jrxe.ib.Mtu.MTU_1024;
    /** The peer's Local CM Response Timeout and Max CM Retries (passive: from the REQ). */
    int peerResponseTimeout = 20;
    int peerMaxRetries = 15;
    /** Passive: the REQ's responder resources and initiator depth. */
    int peerResponderResources;
    int peerInitiatorDepth;
    /** An MRA stretched the pending MAD's timer already (one per message). */
    boolean mraTaken;
    /** A listener's backlog: REQs waiting for accept or reject at most. */
    int backlog;

    /** Passive ids of this listener still waiting for the application's accept or reject. Holding the agent. */
    int pendingRequests() {
        int n = 0;
        for (CmId c : agent.byLocalId.values()) {
            if (c.listener == this && c.state == REQ_RCVD) {
                n++;
            }
        }
        return n;
    }

    /** Answer a peer's DREQ with the DREP at once (the endpoint API), not at {@link #disconnect}. */
    volatile boolean replyToDreq;
    /** Passive UD: the SIDR_REP sent, again for a duplicate SIDR_REQ. */
    Mad sidrRep;
    /** Active: the RTU sent, again for a duplicate REP. */
    Mad rtu;
    byte[] pendingPrivateData;

    // ---- options: Linux rdma_cm's defaults
    int responseTimeout = 20;
    int maxCmRetries = 15;
    int packetLifeTime = 16;

    // ---- the MAD to retransmit
    Mad pending;
    long deadline;
    long timeoutNanos;
    int retriesLeft;

    private CmId(Device device, EventChannel channel, int portSpace, CmId listener) {
        this.device = device;
        this.channel = channel;
        this.portSpace = portSpace;
        this.listener = listener;
        this.localAddr = device.address();
        // a passive id is made by the agent's thread, holding the agent: it joins directly
        this.agent = listener == null ? CmAgent.join(device, this) : listener.agent.adopt(this);
    }

    /**
     * {@code rdma_create_id} on {@code device}: events go to {@code channel}; {@code portSpace}
     * {@link ServiceIds#PS_TCP} for RC (what rping and perftest use), {@link ServiceIds#PS_UDP}
     * for UD: "connect" then resolves the peer's QPN and Q_Key with SIDR (ESTABLISHED carries them).
     * The device's first id starts its CM agent (QP1 and a thread); its last id's close stops it.
     *
     * @param channel where the id's events go
     * @param device the local device; the id's address is the device's
     * @param portSpace {@link ServiceIds#PS_TCP} or {@link ServiceIds#PS_UDP}
     * @return a new id in the idle state
     * @throws VerbsException EPROTONOSUPPORT for another port space
     */
    public static CmId create(EventChannel channel, Device device, int portSpace) {
        if (portSpace != ServiceIds.PS_TCP && portSpace != ServiceIds.PS_UDP) {
            throw new VerbsException(Errno.EPROTONOSUPPORT, "port space 0x" + Integer.toHexString(portSpace)
                + ": jrxe's CM has RDMA_PS_TCP (RC, IB CM) and RDMA_PS_UDP (UD, SIDR)");
        }
        return new CmId(device, channel, portSpace, null);
    }

    /** A passive id for a REQ that came to {@code listener}. Holding the agent. */
    static CmId passive(CmId listener) {
        return new CmId(listener.device, listener.channel, listener.portSpace, listener);
    }

    /** {@return the device the id was created on ({@code cm_id->verbs})} */
    public Device device() {
        return device;
    }

    /** {@return the QP {@link #createQp} made ({@code cm_id->qp}), or null (none yet, or closed)} */
    public QueuePair qp() {
        return qp;
    }

    /** {@return this side's IPv4 address: the device's, a big-endian int} */
    public int localAddress() {
        return localAddr;
    }

    /**
     * {@return this side's rdma_cm port: the bound one, an ephemeral one (32768..60999) picked by
     * {@code bindAddr(.., 0)} or {@code resolveAddr}, a passive id's listener's; 0 before}
     */
    public int localPort() {
        return localPort;
    }

    /**
     * {@return the peer's IPv4 address (big-endian int): {@code resolveAddr}'s destination, or a
     * passive id's REQ sender; 0 before}
     */
    public int remoteAddress() {
        return remoteAddr;
    }

    /** {@return the peer's rdma_cm port: {@code resolveAddr}'s, or the source port in a passive id's REQ; 0 before} */
    public int remotePort() {
        return remotePort;
    }

    /**
     * {@return the connection's state as the CM sees it (for diagnostics), such as
     * {@code "ESTABLISHED"} or {@code "REQ_SENT"}}
     */
    public String stateName() {
        synchronized (agent) {
            return STATES[state];
        }
    }

    /**
     * {@code rdma_set_option}-like: the CM response timeout (4.096 µs × 2^x, Linux rdma_cm: 20 ≈ 4 s)
     * and retries (15) of the MADs this id sends, and the packet life time the REQ timeout counts
     * twice (16). Smaller values make a dead peer known sooner. A REQ, SIDR_REQ or DREQ is resent
     * every {@code 2 × 2^(packetLifeTime-8) + 2^(cmResponseTimeout-8)} ms, {@code cmRetries} times;
     * the REQ also carries the timeout and retries to the peer, and the packet life time sets the
     * local ACK timeout of the REQ and of the QP ({@code cm_ack_timeout}: 16 gives 17). Set it
     * before {@link #connect}.
     *
     * @param cmResponseTimeout 0..31, an IBTA encoded time (4.096 µs × 2^x)
     * @param cmRetries Max CM Retries, 0..15
     * @param packetLifeTime 0..31, an IBTA encoded time
     * @return this id
     * @throws VerbsException EINVAL for a value out of range
     */
    public CmId timeouts(int cmResponseTimeout, int cmRetries, int packetLifeTime) {
        if (cmResponseTimeout < 0 || cmResponseTimeout > 31 || cmRetries < 0 || cmRetries > 15
            || packetLifeTime < 0 || packetLifeTime > 31) {
            throw einval("CM timeout 0..31, retries 0..15, packet life time 0..31");
        }
        synchronized (agent) {
            this.responseTimeout = cmResponseTimeout;
            this.maxCmRetries = cmRetries;
            this.packetLifeTime = packetLifeTime;
        }
        return this;
    }

    /**
     * {@code rdma_bind_addr}: {@code addr} 0 (any) or the device's; {@code port} 0 picks one.
     * Moves an idle id to bound, ready for {@link #listen}; a port in use is found by
     * {@code listen}, not here.
     *
     * @param addr 0 or the device's IPv4 address (big-endian int)
     * @param port 0..65535; 0 picks an ephemeral port (32768..60999)
     * @throws VerbsException EADDRNOTAVAIL for another address; EINVAL for a bad port or an id
     *     that is not idle
     */
    public void bindAddr(int addr, int port) {
        if (addr != 0 && addr != device.address()) {
            throw new VerbsException(Errno.EADDRNOTAVAIL, "the device is at " + dev.jrxe.net.Links.formatAddress(
                device.address()) + ", not " + dev.jrxe.net.Links.formatAddress(addr));
        }
        if (port < 0 || port > 0xFFFF) {
            throw einval("port " + port);
        }
        synchronized (agent) {
            requireState(IDLE, "bind");
            localPort = port == 0 ? ephemeralPort() : port;
            state = ADDR_BOUND;
        }
    }

    /**
     * {@code rdma_resolve_addr}: the peer's address and port; ADDR_RESOLVED follows on the channel
     * (posted before this returns: nothing to look up). {@code src} 0 or the device's address. An
     * unbound id gets an ephemeral local port.
     *
     * @param src 0 or the device's IPv4 address (big-endian int)
     * @param dst the peer's IPv4 address (big-endian int), not 0
     * @param dstPort the peer's rdma_cm port, 1..65535
     * @param timeoutMs librdmacm's resolution timeout in milliseconds; unused (resolution is immediate)
     * @throws VerbsException EADDRNOTAVAIL for another source address; EINVAL for a zero address,
     *     a bad port, or an id that is neither idle nor bound
     */
    public void resolveAddr(int src, int dst, int dstPort, int timeoutMs) {
        if (src != 0 && src != device.address()) {
            throw new VerbsException(Errno.EADDRNOTAVAIL, "no device at the source address");
        }
        if (dst == 0 || dstPort <= 0 || dstPort > 0xFFFF) {
            throw einval("destination address and port");
        }
        synchronized (agent) {
            if (state != IDLE && state != ADDR_BOUND) {
                throw einval("resolve_addr in state " + STATES[state]);
            }
            if (localPort == 0) {
                localPort = ephemeralPort();
            }
            remoteAddr = dst;
            remotePort = dstPort;
            state = ADDR_RESOLVED;
            event(CmEventType.ADDR_RESOLVED, 0, null, null);
        }
    }

    /**
     * What {@link #resolveAddrinfo} found: the destination's IPv4 address and port
     * ({@code struct rdma_addrinfo}'s {@code ai_dst_addr}). A record: immutable.
     *
     * @param destAddr the destination's IPv4 address, a big-endian int
     * @param destPort the destination's port, 1..65535
     */
    public record AddrInfo(int destAddr, int destPort) {
    }

    private volatile AddrInfo addrInfo;

    /**
     * {@code rdma_resolve_addrinfo} (DNS, as librdmacm without RAI_SA): resolves {@code node} (a
     * host name or IPv4 address) and {@code service} (a port number) on the calling thread;
     * ADDRINFO_RESOLVED follows ({@link #queryAddrinfo} has the result), or ADDRINFO_ERROR with
     * -EINVAL (a port that is not one) or -ENOENT (a name without IPv4 address). The id's state
     * and addresses do not change: pass the result to {@link #resolveAddr}.
     *
     * @param node a host name or dotted IPv4 address
     * @param service a decimal port, 1..65535
     */
    public void resolveAddrinfo(String node, String service) {
        int port;
        try {
            port = Integer.parseInt(service);
        } catch (NumberFormatException e) {
            port = -1;
        }
        int dst = 0;
        int status = 0;
        if (node == null || port <= 0 || port > 0xFFFF) {
            status = -Errno.EINVAL;
        } else {
            try {
                for (java.net.InetAddress ia : java.net.InetAddress.getAllByName(node)) {
                    if (ia instanceof java.net.Inet4Address a4 && !a4.isMulticastAddress() && !a4.isAnyLocalAddress()
                        && dev.jrxe.net.Links.toInt(a4) != -1) {
                        dst = dev.jrxe.net.Links.toInt(a4);
                        break;
                    }
                }
            } catch (java.net.UnknownHostException e) {
                dst = 0;
            }
            if (dst == 0) {
                status = -Errno.ENOENT;
            }
        }
        synchronized (agent) {
            addrInfo = status == 0 ? new AddrInfo(dst, port) : null;
            if (status == 0) {
                event(CmEventType.ADDRINFO_RESOLVED, 0, null, null);
            } else {
                event(CmEventType.ADDRINFO_ERROR, status, null, null);
            }
        }
    }

    /**
     * {@code rdma_query_addrinfo}.
     *
     * @return what the last {@link #resolveAddrinfo} found, or null (none yet, or it failed)
     */
    public AddrInfo queryAddrinfo() {
        return addrInfo;
    }

    /**
     * {@code rdma_resolve_route}: ROUTE_RESOLVED follows, posted before this returns (RoCEv2 over
     * IPv4: the route is the address).
     *
     * @param timeoutMs librdmacm's timeout in milliseconds; unused
     * @throws VerbsException EINVAL unless the address is resolved
     */
    public void resolveRoute(int timeoutMs) {
        synchronized (agent) {
            requireState(ADDR_RESOLVED, "resolve_route");
            state = ROUTE_RESOLVED;
            event(CmEventType.ROUTE_RESOLVED, 0, null, null);
        }
    }

    /**
     * {@code rdma_create_qp}: an RC QP on {@code pd} for this id, moved to INIT (P_Key index 0,
     * port 1, {@code IBV_ACCESS_LOCAL_WRITE}, remote READ, WRITE and atomics allowed; what the MRs
     * allow decides). The CM moves it to RTR and RTS. For an RDMA_PS_UDP id: a UD QP moved
     * straight to RTS with Q_Key {@link ServiceIds#UDP_QKEY}. The id owns the QP: {@link #close}
     * destroys it.
     *
     * @param pd the protection domain the QP is made in
     * @param attr the QP's CQs and capacities; {@code qpType} {@code IBV_QPT_RC} for RDMA_PS_TCP,
     *     {@code IBV_QPT_UD} for RDMA_PS_UDP
     * @return the new QP, also {@link #qp()}
     * @throws VerbsException EINVAL for the wrong QP type or an id that has a QP; what
     *     {@code ProtectionDomain.createQp} throws
     */
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        int wanted = portSpace == ServiceIds.PS_UDP ? QpType.UD : QpType.RC;
        if (attr.qpType != wanted) {
            throw einval("RDMA_PS_TCP ids take RC QPs, RDMA_PS_UDP ids UD QPs");
        }
        if (wanted == QpType.UD) {
            synchronized (agent) {
                if (qp != null) {
                    throw einval("the id has a QP");
                }
                QueuePair q = pd.createQp(attr);
                try {
                    // rdma_cm's UD QPs: rdma_create_qp takes them to RTS with RDMA_UDP_QKEY
                    dev.jrxe.verbs.UdSetup.toRts(q, ServiceIds.UDP_QKEY, agent.random.nextInt() & 0xFFFFFF);
                } catch (RuntimeException e) {
                    q.close();
                    throw e;
                }
                qp = q;
                ownQp = true;
                return q;
            }
        }
        synchronized (agent) {
            if (qp != null) {
                throw einval("the id has a QP");
            }
            QueuePair q = pd.createQp(attr);
            try {
                QpAttr a = new QpAttr();
                a.qpState = QpState.INIT;
                a.pkeyIndex = 0;
                a.portNum = 1;
                a.qpAccessFlags = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC;
                q.modify(a, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
            } catch (RuntimeException e) {
                q.close();
                throw e;
            }
            qp = q;
            ownQp = true;
            return q;
        }
    }

    /**
     * {@code rdma_connect}: sends the REQ; ESTABLISHED, REJECTED or UNREACHABLE follows (or
     * CONNECT_ERROR when the QP cannot be moved to RTS). For an RDMA_PS_UDP id a SIDR_REQ:
     * ESTABLISHED with the peer's QPN and Q_Key, UNREACHABLE, or ADDR_ERROR (a foreign Q_Key).
     *
     * @param param what to ask for; read during the call; null for the defaults of {@link ConnParam}
     * @throws VerbsException EINVAL unless the route is resolved and the QP made, or when the
     *     private data is too long (56 bytes for a REQ, 180 for a SIDR_REQ)
     */
    public void connect(ConnParam param) {
        synchronized (agent) {
            requireState(ROUTE_RESOLVED, "connect");
            if (qp == null) {
                throw einval("create the QP first (rdma_create_qp)");
            }
            ConnParam p = param == null ? new ConnParam() : param;
            if (portSpace == ServiceIds.PS_UDP) {
                if (p.privateData != null && p.privateData.length
                    > CmMessages.SidrReq.PRIVATE_DATA_SIZE - CmaHeader.SIZE) {
                    throw einval("SIDR_REQ private data is at most 180 bytes");
                }
                CmProtocol.sendSidrReq(this, p);
                return;
            }
            if (p.privateData != null && p.privateData.length > CmaHeader.USER_DATA_SIZE) {
                throw einval("REQ private data is at most " + CmaHeader.USER_DATA_SIZE + " bytes");
            }
            CmProtocol.sendReq(this, p);
        }
    }

    /**
     * {@code rdma_listen}: REQs for this id's port come as CONNECT_REQUEST events; beyond
     * {@code backlog} requests not yet accepted or rejected, new ones are rejected (a REJ,
     * consumer defined; for UD a SIDR_REP reject).
     *
     * @param backlog requests waiting for the application at most; less than 1 counts as 1
     * @throws VerbsException EINVAL unless the id is bound; EADDRINUSE when the port has a listener
     */
    public void listen(int backlog) {
        synchronized (agent) {
            if (state != ADDR_BOUND) {
                throw einval("bind the id first (rdma_bind_addr)");
            }
            long sid = ServiceIds.of(portSpace, localPort);
            if (agent.listeners.containsKey(sid)) {
                throw new VerbsException(Errno.EADDRINUSE, "port " + localPort + " has a listener");
            }
            agent.listeners.put(sid, this);
            this.backlog = Math.max(1, backlog);
            state = LISTEN;
        }
    }

    /**
     * {@code rdma_accept}, on the passive id of a CONNECT_REQUEST: moves the QP to RTR and RTS and
     * sends the REP; ESTABLISHED follows the RTU (UNREACHABLE when none comes). For an RDMA_PS_UDP
     * id: the SIDR_REP with the QP's number and Q_Key, and no event.
     *
     * @param param what to grant (at most what the REQ asked); read during the call; null for
     *     the defaults of {@link ConnParam}
     * @throws VerbsException EINVAL unless the id has an unanswered request and a QP, or when the
     *     private data is too long (196 bytes for a REP, 136 for a SIDR_REP); what the QP's
     *     {@code modify} throws
     */
    public void accept(ConnParam param) {
        synchronized (agent) {
            requireState(REQ_RCVD, "accept");
            if (qp == null) {
                throw einval("create the QP first (rdma_create_qp)");
            }
            ConnParam p = param == null ? new ConnParam() : param;
            if (portSpace == ServiceIds.PS_UDP) {
                if (p.privateData != null && p.privateData.length > CmMessages.SidrRep.PRIVATE_DATA_SIZE) {
                    throw einval("SIDR_REP private data is at most " + CmMessages.SidrRep.PRIVATE_DATA_SIZE);
                }
                CmProtocol.sendSidrRep(this, CmMessages.SidrRep.SUCCESS, p.privateData);
                return;
            }
            if (p.privateData != null && p.privateData.length > CmMessages.Rep.PRIVATE_DATA_SIZE) {
                throw einval("REP private data is at most " + CmMessages.Rep.PRIVATE_DATA_SIZE);
            }
            CmProtocol.sendRep(this, p);
        }
    }

    /**
     * {@code rdma_reject}: a REJ (consumer defined, with {@code privateData}, at most 148 bytes); for
     * an RDMA_PS_UDP id a SIDR_REP with status reject. The id is done: close it.
     *
     * @param privateData what the peer's REJECTED event carries, or null
     * @throws VerbsException EINVAL unless the id has an unanswered request, or when the private
     *     data is longer than 148 bytes
     */
    public void reject(byte[] privateData) {
        synchronized (agent) {
            requireState(REQ_RCVD, "reject");
            if (privateData != null && privateData.length > CmMessages.Rej.PRIVATE_DATA_SIZE) {
                throw einval("REJ private data is at most " + CmMessages.Rej.PRIVATE_DATA_SIZE);
            }
            if (portSpace == ServiceIds.PS_UDP) {
                CmProtocol.sendSidrRep(this, CmMessages.SidrRep.REJECT, privateData);
            } else {
                CmProtocol.sendRej(this, CmMessages.RejReason.CONSUMER_DEFINED, CmMessages.Rej.MSG_REQ, privateData);
            }
            finish();
            state = CLOSED; // nothing more to say: close() sends no second REJ, accept() is refused
        }
    }

    /**
     * {@code rdma_disconnect}: the QP goes to ERR and a DREQ leaves (or, after the peer's DREQ,
     * the DREP); DISCONNECTED follows the DREP (or the DREQ's last retry); after the peer's DREQ
     * it came already. Again after that: nothing. An RDMA_PS_UDP id only moves its QP to ERR.
     *
     * @throws VerbsException EINVAL for an id that is not (or not yet) connected
     */
    public void disconnect() {
        synchronized (agent) {
            if (portSpace == ServiceIds.PS_UDP) {
                toError(); // a UD id has no connection to end on the wire
                return;
            }
            if (state == ESTABLISHED) {
                toError();
                CmProtocol.sendDreq(this);
            } else if (state == DREQ_RCVD) {
                toError();
                CmProtocol.sendDrep(agent, remoteAddr, localCommId, remoteCommId, tid);
                state = TIMEWAIT;
                finish();
            } else if (state != DREQ_SENT && state != TIMEWAIT && state != CLOSED) {
                throw einval("disconnect in state " + STATES[state]);
            }
        }
    }

    /**
     * {@code rdma_destroy_id}, and {@code rdma_destroy_qp} of the QP {@link #createQp} made. What
     * the peer is owed goes first, as Linux's cm_destroy_id sends it: REJ (timeout) for a REQ
     * under way, REJ for an unanswered one, DREQ for an established connection, DREP for a DREQ;
     * nothing waits for answers. A listener stops listening. Idempotent: a second call does nothing.
     */
    @Override
    public void close() {
        synchronized (agent) {
            if (destroyed) {
                return;
            }
            destroyed = true;
            if (portSpace == ServiceIds.PS_UDP && state == REQ_RCVD) {
                CmProtocol.sendSidrRep(this, CmMessages.SidrRep.REJECT, null); // unanswered: refused
            }
            int st = portSpace == ServiceIds.PS_UDP && state != LISTEN ? CLOSED : state; // SIDR owes nothing more
            switch (st) {
                case REQ_SENT -> CmProtocol.sendRej(this, CmMessages.RejReason.TIMEOUT, CmMessages.Rej.MSG_REQ, null);
                case REQ_RCVD, REP_SENT -> CmProtocol.sendRej(this, CmMessages.RejReason.CONSUMER_DEFINED,
                    state == REQ_RCVD ? CmMessages.Rej.MSG_REQ : CmMessages.Rej.MSG_REP, null);
                case ESTABLISHED -> {
                    toError();
                    CmProtocol.sendDreqOnce(this);
                }
                case DREQ_RCVD -> CmProtocol.sendDrep(agent, remoteAddr, localCommId, remoteCommId, tid);
                case LISTEN -> agent.listeners.remove(ServiceIds.of(portSpace, localPort), this);
                default -> {
                }
            }
            finish();
            state = CLOSED;
            if (ownQp && qp != null) {
                qp.close();
                qp = null;
            }
        }
        agent.leave(this);
    }

    /** {@link #close} ran (guarded by the agent): a second close must not leave the agent twice. */
    private boolean destroyed;

    // ------------------------------------------------------------------ for the protocol

    /** Whether a DREQ of ours waits for its DREP. */
    boolean awaitingDrep() {
        synchronized (agent) {
            return state == DREQ_SENT;
        }
    }

    void acked() {
        // events need no acknowledgement before destroy here: nothing waits on them
    }

    void event(int type, int status, byte[] privateData, ConnParam param) {
        channel.post(new CmEvent(type, this, listener, status, privateData, param));
    }

    /** Arms the retransmission of {@code mad} every {@code timeoutMs}, {@code retries} times. */
    void arm(Mad mad, long timeoutMs, int retries) {
        pending = mad;
        mraTaken = false;
        timeoutNanos = timeoutMs * 1_000_000L;
        deadline = System.nanoTime() + timeoutNanos;
        retriesLeft = retries;
    }

    void disarm() {
        pending = null;
    }

    /** The retransmission timer at {@code now}; returns its next deadline or Long.MAX_VALUE. */
    long timer(long now) {
        if (pending == null) {
            return Long.MAX_VALUE;
        }
        if (now - deadline < 0) {
            return deadline;
        }
        if (retriesLeft-- > 0) {
            agent.send(remoteAddr, pending);
            deadline = now + timeoutNanos;
            return deadline;
        }
        pending = null;
        CmProtocol.timedOut(this);
        return Long.MAX_VALUE;
    }

    /** The connection is over: no timers, no more lookups by its IDs. Holding the agent. */
    void finish() {
        disarm();
        if (localCommId != 0) {
            agent.byLocalId.remove(localCommId, this);
        }
        if (listener != null) {
            agent.byRemote.remove(CmProtocol.remoteKey(remoteAddr, remoteCommId), this);
        }
    }

    void toError() {
        if (qp != null && qp.state() != QpState.ERR && qp.state() != QpState.RESET) {
            try {
                qp.modify(new QpAttr().state(QpState.ERR), QpAttrMask.STATE);
            } catch (VerbsException e) {
                // already on its way down
            }
        }
    }

    /** RTR then RTS with what the CM exchanged (rdma_init_qp_attr, cm_init_qp_rtr/rts_attr). */
    void toRts(int maxDestRdAtomic, int maxRdAtomic, int sqRnrRetry) {
        QpAttr r = new QpAttr();
        r.qpState = QpState.RTR;
        r.pathMtu = Math.min(mtuEnum, device.activeMtu());
        r.destQpNum = remoteQpn;
        r.rqPsn = localPsn;
        r.maxDestRdAtomic = maxDestRdAtomic;
        r.minRnrTimer = 12;
        r.ahAttr = new AhAttr(Gid.ofIpv4(remoteAddr), 1);
        r.ahAttr.flowLabel = CmProtocol.flowLabel(this);
        qp.modify(r, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
            | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        QpAttr s = new QpAttr();
        s.qpState = QpState.RTS;
        s.sqPsn = remotePsn;
        s.timeout = CmProtocol.ackTimeout(packetLifeTime);
        s.retryCnt = retryCount;
        s.rnrRetry = sqRnrRetry;
        s.maxRdAtomic = maxRdAtomic;
        qp.modify(s, QpAttrMask.STATE | QpAttrMask.SQ_PSN | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT
            | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    private static VerbsException einval(String why) {
        return new VerbsException(Errno.EINVAL, why);
    }

    private void requireState(int s, String what) {
        if (state != s) {
            throw einval(what + " in state " + STATES[state]);
        }
    }

    private int ephemeralPort() {
        return 32768 + agent.random.nextInt(61000 - 32768);
    }

    @Override
    public String toString() {
        return "cm_id{" + STATES[state] + " " + dev.jrxe.net.Links.formatAddress(localAddr) + ":" + localPort + " -> "
            + dev.jrxe.net.Links.formatAddress(remoteAddr) + ":" + remotePort + "}";
    }
}
