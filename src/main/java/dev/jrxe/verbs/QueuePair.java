package dev.jrxe.verbs;

import dev.jrxe.ib.Flush;
import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;
import dev.jrxe.transport.Qp;
import dev.jrxe.transport.QpControl;
import dev.jrxe.transport.RecvQueue;
import dev.jrxe.transport.RecvWqe;
import dev.jrxe.transport.SendQueue;
import dev.jrxe.transport.SendWqe;
import java.lang.foreign.Arena;

/**
 * A queue pair ({@code struct ibv_qp}): a send queue and a receive queue (or a
 * {@link SharedReceiveQueue}) of one transport type, RC, UC, UD or SRD ({@code IBV_QPT_DRIVER},
 * see {@link SrdDv}), made by {@link ProtectionDomain#createQp} in RESET. {@link #modify} walks
 * the IBTA state machine (invalid transitions or attribute masks fail with EINVAL and change
 * nothing; {@link RcConnect}, {@link RcBootstrap} and {@link UdSetup} do the usual walks to RTS).
 * {@link #postSend} / {@link #postRecv} copy work requests into the queues without allocating;
 * {@link #trySend} / {@link #tryRecv} return the errno instead of throwing. Work requests complete
 * on the CQs named in its {@link QpInitAttr}; {@link #ex()} is the extended post-send API.
 *
 * <p>Thread safety: any thread may call any method. {@code postSend}, {@code trySend},
 * {@code bindMw} and {@link QpEx} batches serialize on the QP's send-queue lock, {@code postRecv}
 * and {@code tryRecv} on its receive queue, so one posting thread per queue is fastest.
 * {@code modify} runs under the device's engine and is thread safe. {@link #lastError()} is the
 * QP's, not the thread's. After {@link #close} or the device's close, posting and {@code modify}
 * throw {@link IllegalStateException}.
 *
 * <pre>{@code
 * QueuePair qp = pd.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(64, 64, 1, 1, 0)));
 * new RcConnect().pair(qp, 100, peerQp, 200);         // RESET -> RTS, both QPs in this JVM
 * qp.postRecv(new RecvWr(1).sge(mr, 0, 4096));
 * SendWr wr = new SendWr(1).sge(mr, 4096, 64);
 * wr.sendFlags = SendFlags.SIGNALED;
 * qp.postSend(wr);                                    // a SEND; its completion comes on cq
 * }</pre>
 */
public final class QueuePair implements AutoCloseable {
    /** QP1's Q_Key (IBTA 13.4.6.2). */
    static final int GSI_QKEY = 0x80010000;
    private static final int QP_ACCESS_SUPPORTED =
        Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.REMOTE_ATOMIC | Access.MW_BIND
            | Access.FLUSH_GLOBAL | Access.FLUSH_PERSISTENT;

    private final ProtectionDomain pd;
    private final Device device;
    private final Qp qp;
    /** The device's engine that serves this QP ({@link Device#placeQp}). */
    private final dev.jrxe.transport.Engine engine;
    private final int type;
    private final QpCap cap;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final Arena arena = Arena.ofShared();
    private final AhAttr ahAttr = new AhAttr();
    /** Posting to the send queue: held by post_send, and by an extended-API batch from start to complete. */
    final java.util.concurrent.locks.ReentrantLock sqLock = new java.util.concurrent.locks.ReentrantLock();
    /** Reused by {@link #bindMw} (under the send queue's lock). */
    private final SendWr bindWr = new SendWr(1);
    private volatile boolean closed;
    private final QpEx ex;
    private final SharedReceiveQueue srq;
    /** The device's QP1: its Q_Key is the GSI one whatever a modify says. */
    private final boolean gsi;

    QueuePair(ProtectionDomain pd, QpInitAttr init) {
        this(pd, init, false);
    }

    /** {@code gsi}: the device's QP1 (see {@link ProtectionDomain#createGsiQp}). */
    QueuePair(ProtectionDomain pd, QpInitAttr init, boolean gsi) {
        this(pd, init, gsi, -1);
    }

    /**
     * {@code srdFlags} >= 0: a jrxe SRD QP ({@link SrdDv#createQp}) with those flags; the init
     * attributes' type must be {@link QpType#DRIVER}.
     */
    QueuePair(ProtectionDomain pd, QpInitAttr init, boolean gsi, int srdFlags) {
        this.pd = pd;
        this.gsi = gsi;
        this.device = pd.device();
        this.type = init.qpType;
        if (type != QpType.RC && type != QpType.UC && type != QpType.UD && !(type == QpType.DRIVER && srdFlags >= 0)) {
            throw new VerbsException(Errno.EOPNOTSUPP, "QP type " + QpType.name(type) + " is not supported"
                + (type == QpType.DRIVER ? " here (an SRD QP is made by SrdDv.createQp)" : ""));
        }
        if (type == QpType.DRIVER && init.srq != null) {
            throw new VerbsException(Errno.EOPNOTSUPP, "an SRD QP has no shared receive queue (as EFA's)");
        }
        this.srq = init.srq;
        if (srq != null && srq.pd().device() != device) {
            throw VerbsException.einval("the SRQ belongs to another device");
        }
        if (init.sendCq == null || init.recvCq == null) {
            throw VerbsException.einval("a QP needs a send and a receive CQ");
        }
        int mkeyOps = type == QpType.RC ? dev.jrxe.ib.MkeySendOps.ALL : 0;
        if ((init.mkeySendOpsFlags & ~mkeyOps) != 0) {
            throw new VerbsException(Errno.EOPNOTSUPP, "mkey send_ops_flags 0x"
                + Integer.toHexString(init.mkeySendOpsFlags) + " not supported on " + QpType.name(type));
        }
        int sendOps = dev.jrxe.ib.SendOps.supported(type);
        if ((init.sendOpsFlags & ~sendOps) != 0) {
            throw new VerbsException(Errno.EOPNOTSUPP, "send_ops_flags 0x"
                + Integer.toHexString(init.sendOpsFlags & ~sendOps) + " not supported on " + QpType.name(type));
        }
        QpCap c = init.cap;
        if (c.maxSendWr < 0 || c.maxSendWr > Device.MAX_QP_WR || c.maxRecvWr < 0 || c.maxRecvWr > Device.MAX_QP_WR
            || c.maxSendSge < 0 || c.maxSendSge > Device.MAX_SGE || c.maxRecvSge < 0 || c.maxRecvSge > Device.MAX_SGE
            || c.maxInlineData < 0 || c.maxInlineData > Device.MAX_INLINE) {
            throw VerbsException.einval("QP capabilities exceed the device's");
        }
        this.cap = c.copy();
        // rxe grants at least one SGE and reports the inline room it really has
        cap.maxSendSge = Math.max(1, cap.maxSendSge);
        cap.maxRecvSge = Math.max(1, cap.maxRecvSge);
        init.cap.maxSendSge = cap.maxSendSge;
        init.cap.maxRecvSge = cap.maxRecvSge;
        this.sendCq = init.sendCq;
        this.recvCq = init.recvCq;
        if (srq != null) {
            srq.attach(); // EINVAL once destroyed; counted as a user from here on
        }
        try {
            device.reserveQp();
            try {
                // the engine that serves it (and produces its CQs' completions); EINVAL when they disagree
                this.engine = device.placeQp(sendCq, recvCq, srq, gsi);
            } catch (RuntimeException e) {
                device.unreserveQp();
                throw e;
            }
        } catch (RuntimeException e) {
            if (srq != null) {
                srq.users.decrementAndGet();
            }
            throw e;
        }
        Qp made = null;
        try {
            SendQueue sq = new SendQueue(cap.maxSendWr, cap.maxSendSge, cap.maxInlineData, arena);
            // with an SRQ the QP has no receive queue of its own (rdma-core ignores max_recv_wr then)
            RecvQueue rq = srq == null ? new RecvQueue(cap.maxRecvWr, cap.maxRecvSge) : null;
            this.qp = made = new Qp(engine, type, pd.handle(), sq, rq, srq == null ? null : srq.queue(),
                sendCq.ring(), recvCq.ring(),
                init.sqSigAll, arena, gsi);
            if (type == QpType.UD) {
                // a UD QP has no path: messages go at the port's MTU, from rxe's per-QP source port,
                // to the device UDP port of whoever the address handle names
                qp.pathMtu = Mtu.bytes(device.activeMtu());
                qp.srcPort = QpControl.udSourcePort(qp.qpn);
                qp.destPort = device.udpPort();
                if (gsi) {
                    qp.srcPort = Qp.GSI_SOURCE_PORT;
                    qp.qkey = GSI_QKEY;
                }
                engine.holdSourcePort(qp, qp.srcPort);
            }
            if (type == QpType.DRIVER) {
                QpControl.srdSetup(qp, Mtu.bytes(device.activeMtu()), device.udpPort(),
                    (srdFlags & SrdDv.UNSOLICITED_WRITE_RECV) != 0);
            }
            this.ex = init.sendOpsFlags != 0 || init.mkeySendOpsFlags != 0
                ? new QpEx(this, init.sendOpsFlags, init.mkeySendOpsFlags, cap.maxSendWr) : null;
            engine.register(qp);
            sendCq.users.incrementAndGet();
            recvCq.users.incrementAndGet();
            device.qpCreated(this);
        } catch (RuntimeException e) {
            // refused after all: give back the engine's place, the QP count, the SRQ and the source port
            if (made != null) {
                dev.jrxe.transport.Qp m = made;
                engine.withEngine(() -> engine.holdSourcePort(m, 0));
            }
            device.qpLeft(engine);
            device.unreserveQp();
            if (srq != null) {
                srq.users.decrementAndGet();
            }
            arena.close();
            throw e;
        }
    }

    /** The engine that serves this QP. */
    dev.jrxe.transport.Engine engine() {
        return engine;
    }

    /** IllegalStateException once the QP, or its device, is closed. */
    void ensureUsable() {
        if (closed) {
            throw new IllegalStateException("QP 0x" + Integer.toHexString(qp.qpn)
                + (device.isClosed() ? " was closed with its device " + device.name() : " is destroyed"));
        }
    }

    /**
     * {@code ibv_qp_to_qp_ex}: the extended post-send API of this QP, the same object on every
     * call.
     *
     * @return the QP's {@link QpEx}
     * @throws VerbsException EINVAL when the QP was created with neither {@code sendOpsFlags} nor
     *                        {@code mkeySendOpsFlags}
     */
    public QpEx ex() {
        if (ex == null) {
            throw VerbsException.einval("the QP was created without send_ops_flags");
        }
        return ex;
    }

    Qp qp() {
        return qp;
    }

    Device device() {
        return device;
    }

    /** {@return {@code qp_num}: the QP number (24 bits) a peer addresses it by} */
    public int qpNum() {
        return qp.qpn;
    }

    /** {@return {@code qp_type}: a {@link QpType} ({@code RC}, {@code UC}, {@code UD} or {@code DRIVER} for SRD)} */
    public int qpType() {
        return type;
    }

    /**
     * {@return the current state, a {@link QpState} ({@code IBV_QPS_*})} Read without a lock:
     * the engine may move the QP to ERR at any moment (a peer's NAK, retries exhausted).
     */
    public int state() {
        return qp.state();
    }

    /** {@return the protection domain the QP was created in} */
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@return a new copy of the capabilities granted at creation (as {@code ibv_query_qp}'s {@code cap})} */
    public QpCap cap() {
        return cap.copy();
    }

    /**
     * {@code ibv_modify_qp}: validates everything first; on EINVAL nothing has changed. Validation
     * and the change are one step under the engine, so a QP the engine moves to ERR meanwhile
     * (a peer's NAK, retries exhausted) is never moved back by a modify checked against its old
     * state. A path MTU above the port's active MTU is capped to it.
     *
     * @param attr the new attributes; only those named in {@code mask} are read
     * @param mask {@link QpAttrMask} bits ({@code IBV_QP_*}); the mask a transition requires or
     *             allows is rdma-core's
     * @throws VerbsException        EINVAL for an invalid transition or mask, or an attribute out of
     *                               range (port other than 1, P_Key index other than 0, timeout or
     *                               RNR timer over 31, retry counts over 7, READ/atomic depths over
     *                               128, an AV without an IPv4-mapped GRH); EPERM for a privileged
     *                               Q_Key (high bit set) unless {@code DeviceConfig.privilegedQkey}
     * @throws IllegalStateException when the QP or its device is closed
     */
    public void modify(QpAttr attr, int mask) {
        ensureUsable();
        engine.withEngine(() -> {
            int cur = qp.state();
            int next = (mask & QpAttrMask.STATE) != 0 ? attr.qpState : cur;
            if ((mask & QpAttrMask.CUR_STATE) != 0 && attr.curQpState != cur) {
                throw VerbsException.einval("cur_qp_state " + QpState.name(attr.curQpState) + " but QP is "
                    + QpState.name(cur));
            }
            if (!QpStateTable.isOk(type, cur, next, mask)) {
                throw VerbsException.einval("invalid transition " + QpState.name(cur) + " -> " + QpState.name(next)
                    + " with mask 0x" + Integer.toHexString(mask));
            }
            if (cur == QpState.SQD && qp.sqDraining() && next != QpState.ERR) {
                // rxe: a draining QP may only be moved to ERR until IBV_EVENT_SQ_DRAINED
                throw VerbsException.einval("the send queue is still draining");
            }
            checkAttributes(attr, mask);
            apply(attr, mask, next);
        });
    }

    private void checkAttributes(QpAttr a, int mask) {
        if ((mask & QpAttrMask.PORT) != 0 && a.portNum != 1) {
            throw VerbsException.einval("port " + a.portNum + " does not exist");
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0 && a.pkeyIndex != 0) {
            throw VerbsException.einval("pkey_index " + a.pkeyIndex + " out of the P_Key table");
        }
        if ((mask & QpAttrMask.QKEY) != 0 && a.qkey < 0 && !gsi && !device.config().privilegedQkey()) {
            // the kernel's rule (ib_uverbs modify_qp): a controlled Q_Key (high bit set) needs
            // CAP_NET_RAW or the rdma "privileged-qkey" setting; here DeviceConfig.privilegedQkey
            throw new VerbsException(Errno.EPERM, "Q_Key 0x" + Integer.toHexString(a.qkey)
                + " is privileged (high bit set)");
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0 && (a.qpAccessFlags & ~QP_ACCESS_SUPPORTED) != 0) {
            throw VerbsException.einval("unsupported QP access flags 0x" + Integer.toHexString(a.qpAccessFlags));
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0 && (Mtu.bytes(a.pathMtu) < 0 || a.pathMtu > Mtu.MTU_4096)) {
            throw VerbsException.einval("path_mtu " + a.pathMtu);
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0 && (a.maxRdAtomic < 0 || a.maxRdAtomic > Device.MAX_RD_ATOMIC)) {
            throw VerbsException.einval("max_rd_atomic " + a.maxRdAtomic);
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0
            && (a.maxDestRdAtomic < 0 || a.maxDestRdAtomic > Device.MAX_RD_ATOMIC)) {
            throw VerbsException.einval("max_dest_rd_atomic " + a.maxDestRdAtomic);
        }
        if ((mask & QpAttrMask.TIMEOUT) != 0 && (a.timeout < 0 || a.timeout > 31)) {
            throw VerbsException.einval("timeout " + a.timeout);
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0 && (a.retryCnt < 0 || a.retryCnt > 7)) {
            throw VerbsException.einval("retry_cnt " + a.retryCnt);
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0 && (a.rnrRetry < 0 || a.rnrRetry > 7)) {
            throw VerbsException.einval("rnr_retry " + a.rnrRetry);
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0 && (a.minRnrTimer < 0 || a.minRnrTimer > 31)) {
            throw VerbsException.einval("min_rnr_timer " + a.minRnrTimer);
        }
        if ((mask & QpAttrMask.AV) != 0) {
            AhAttr ah = a.ahAttr;
            if (ah == null || !ah.isGlobal || ah.dgid == null || !ah.dgid.isIpv4()) {
                throw VerbsException.einval("RoCEv2 needs a GRH with an IPv4-mapped destination GID");
            }
            if (!device.gidValid(ah.sgidIndex)) {
                throw VerbsException.einval("sgid_index " + ah.sgidIndex);
            }
        }
        if ((mask & QpAttrMask.CAP) != 0) {
            throw VerbsException.einval("QP capabilities cannot be modified");
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0 && qp.repliesPending()) {
            // a new max_dest_rd_atomic starts the READ/atomic resources over (rxe): not while
            // READ responses the peer waits for are still going out
            throw VerbsException.einval("max_dest_rd_atomic cannot change while READ responses are pending");
        }
    }

    private void apply(QpAttr a, int mask, int next) {
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0) {
            qp.accessFlags = a.qpAccessFlags;
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0) {
            qp.pkeyIndex = a.pkeyIndex;
        }
        if ((mask & QpAttrMask.PORT) != 0) {
            qp.port = a.portNum;
        }
        if ((mask & QpAttrMask.QKEY) != 0 && !gsi) {
            qp.qkey = a.qkey;
        }
        if ((mask & QpAttrMask.AV) != 0) {
            AhAttr ah = a.ahAttr;
            qp.destAddr = ah.dgid.ipv4();
            qp.destPort = device.udpPort();
            qp.hopLimit = ah.hopLimit;
            qp.trafficClass = ah.trafficClass;
            qp.flowLabel = ah.flowLabel;
            qp.sgidIndex = ah.sgidIndex;
            qp.dgid = ah.dgid.raw();
            copyAh(ah);
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0) {
            qp.pathMtu = Mtu.bytes(Math.min(a.pathMtu, device.activeMtu()));
        }
        if ((mask & QpAttrMask.TIMEOUT) != 0) {
            qp.timeout = a.timeout;
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0) {
            qp.retryCnt = a.retryCnt;
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0) {
            qp.rnrRetry = a.rnrRetry;
        }
        if ((mask & QpAttrMask.RQ_PSN) != 0) {
            qp.rqPsn = a.rqPsn & 0xFFFFFF;
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) {
            qp.maxRdAtomic = a.maxRdAtomic;
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0) {
            qp.minRnrTimer = a.minRnrTimer;
        }
        if ((mask & QpAttrMask.SQ_PSN) != 0) {
            qp.sqPsn = a.sqPsn & 0xFFFFFF;
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) {
            qp.maxDestRdAtomic = a.maxDestRdAtomic;
            QpControl.resizeResponderResources(qp);
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0) {
            qp.destQpn = a.destQpNum & 0xFFFFFF;
        }
        if ((mask & QpAttrMask.EN_SQD_ASYNC_NOTIFY) != 0) {
            qp.sqDrainNotify = a.sqDrainNotify;
        }
        if ((mask & QpAttrMask.STATE) != 0) {
            QpControl.enter(qp, next, (mask & QpAttrMask.SQ_PSN) != 0);
        }
    }

    private void copyAh(AhAttr ah) {
        ahAttr.dgid = ah.dgid;
        ahAttr.sgidIndex = ah.sgidIndex;
        ahAttr.hopLimit = ah.hopLimit;
        ahAttr.trafficClass = ah.trafficClass;
        ahAttr.flowLabel = ah.flowLabel;
        ahAttr.isGlobal = ah.isGlobal;
        ahAttr.dlid = ah.dlid;
        ahAttr.sl = ah.sl;
        ahAttr.portNum = ah.portNum;
    }

    /**
     * {@code ibv_query_qp}: current attributes (all of them, whatever the mask). A control call:
     * it allocates the result.
     *
     * @return a new {@link QpAttr} holding the QP's state, PSNs, path, limits and capabilities
     * @throws IllegalStateException when the QP or its device is closed
     */
    public QpAttr query() {
        ensureUsable();
        QpAttr a = new QpAttr();
        a.qpState = qp.state();
        a.curQpState = a.qpState;
        a.pathMtu = Mtu.fromBytes(qp.pathMtu);
        a.qkey = qp.qkey;
        a.rqPsn = qp.rqPsn;
        a.sqPsn = qp.sqPsn;
        a.destQpNum = qp.destQpn;
        a.qpAccessFlags = qp.accessFlags;
        a.cap = cap.copy();
        a.ahAttr = ahAttr.copy();
        a.pkeyIndex = qp.pkeyIndex;
        a.sqDrainNotify = qp.sqDrainNotify;
        a.sqDraining = qp.sqDraining();
        a.maxRdAtomic = qp.maxRdAtomic;
        a.maxDestRdAtomic = qp.maxDestRdAtomic;
        a.minRnrTimer = qp.minRnrTimer;
        a.portNum = qp.port;
        a.timeout = qp.timeout;
        a.retryCnt = qp.retryCnt;
        a.rnrRetry = qp.rnrRetry;
        return a;
    }

    // ------------------------------------------------------------------ posting

    /**
     * {@code ibv_post_send}: posts the chain starting at {@code wr}. Stops at the first bad request
     * with a {@link PostException} naming it (EINVAL for a bad request or state, ENOMEM when the
     * send queue is full, EFAULT for unreadable inline data); the ones before it are posted.
     * Sends may be posted from RTS on (RESET, INIT and RTR are EINVAL); posted in ERR they
     * complete with {@code IBV_WC_WR_FLUSH_ERR}.
     *
     * @param wr the first request of the chain; copied, so it may be refilled as soon as this returns
     * @throws PostException         at the first request that could not be posted
     * @throws IllegalStateException when the QP or its device is closed
     */
    public void postSend(SendWr wr) {
        ensureUsable();
        int posted = 0;
        sqLock.lock();
        try {
            for (SendWr w = wr; w != null; w = w.next) {
                postOne(w);
                posted++;
            }
        } finally {
            sqLock.unlock();
            if (posted > 0) {
                engine.kick();
            }
        }
    }

    private void postOne(SendWr wr) {
        int err = tryPostOne(wr);
        if (err != 0) {
            throw new PostException(err, verdict == QUEUE_FULL ? "send queue full (" + cap.maxSendWr + ")" : verdict, wr);
        }
    }

    /**
     * {@code ibv_post_send} without exceptions, for back-pressure on the hot path: posts the chain
     * starting at {@code wr} and returns 0, or stops at the first request it cannot post and
     * returns its errno (those before it are posted), as the C call's return value: ENOMEM when
     * the send queue is full (poll the CQ and retry; this path allocates nothing), EINVAL for a
     * bad request or state (why: {@link #lastError()}), EFAULT for unreadable inline data.
     *
     * <pre>{@code
     * while (qp.trySend(wr) == Errno.ENOMEM) {
     *     cq.poll(wc);               // make room: reap send completions
     * }
     * }</pre>
     *
     * @param wr the first request of the chain; copied, so it may be refilled as soon as this returns
     * @return 0, or the errno of the first request not posted
     * @throws IllegalStateException when the QP or its device is closed
     */
    public int trySend(SendWr wr) {
        ensureUsable();
        int posted = 0;
        int err = 0;
        sqLock.lock();
        try {
            for (SendWr w = wr; w != null && err == 0; w = w.next) {
                err = tryPostOne(w);
                if (err == 0) {
                    posted++;
                }
            }
        } finally {
            sqLock.unlock();
            if (posted > 0) {
                engine.kick();
            }
        }
        return err;
    }

    /**
     * {@return why the last post on this QP that returned or threw an errno refused ("queue
     * full" for ENOMEM), or null before any refusal} Shared by the send and receive paths and
     * by all threads: read it on the thread that got the errno, before that thread posts again.
     */
    public String lastError() {
        return verdict;
    }

    /** Posts one request: 0 or an errno ({@link #verdict} says why, except for ENOMEM: nothing allocated). */
    private int tryPostOne(SendWr wr) {
        int state = qp.state();
        if (!canPostSend(state)) {
            return reject(Errno.EINVAL, "post_send in state " + QpState.name(state));
        }
        if (wr.numSge < 0 || wr.numSge > wr.sgList.length) {
            return reject(Errno.EINVAL, "num_sge " + wr.numSge + " but " + wr.sgList.length + " SGEs");
        }
        SendWqe w = qp.sq.claim();
        if (w == null) {
            return reject(Errno.ENOMEM, QUEUE_FULL);
        }
        int err = fill(w, wr);
        if (err == 0 && (type == QpType.UD || type == QpType.DRIVER)) {
            err = udAddress(w, wr.ah, wr.remoteQpn, wr.remoteQkey);
        }
        if (err == 0) {
            err = checkWqe(w);
        }
        if (err != 0) {
            return err;
        }
        if (copyInline(w) != 0) {
            return reject(Errno.EFAULT, "inline data not readable");
        }
        qp.sq.publish();
        if (wr.opcode == WrOpcode.BIND_MW) {
            wr.mw.posted(w.rkey);
        }
        return 0;
    }

    /** Copies a classic work request into its WQE; 0 or an errno (with {@link #verdict}). */
    private int fill(SendWqe w, SendWr wr) {
        if (wr.opcode == WrOpcode.BIND_MW && (wr.mw == null || wr.mw.pd().device() != device
            || (wr.bindMr != null && wr.bindMr.pd().device() != device))) {
            return reject(Errno.EINVAL, "BIND_MW needs a window (and region) of this device");
        }
        begin(w, wr.opcode, wr.wrId, wr.sendFlags);
        w.numSge = Math.min(wr.numSge, w.sgeAddr.length);
        if (wr.numSge > w.sgeAddr.length) {
            return reject(Errno.EINVAL, "num_sge " + wr.numSge + " > max_send_sge " + cap.maxSendSge);
        }
        long length = 0;
        for (int i = 0; i < w.numSge; i++) {
            Sge sge = wr.sgList[i];
            w.sgeAddr[i] = sge.addr;
            w.sgeLength[i] = sge.length;
            w.sgeLkey[i] = sge.lkey;
            length += Integer.toUnsignedLong(sge.length);
        }
        w.length = length;
        w.immData = wr.immData;
        w.remoteAddr = wr.remoteAddr;
        w.rkey = wr.rkey;
        w.compareAdd = wr.compareAdd;
        w.swap = wr.swap;
        w.invalidateRkey = wr.invalidateRkey;
        switch (wr.opcode) {
            case WrOpcode.BIND_MW -> bindFields(w, wr.mw, wr.rkey, wr.bindMr, wr.bindAddr, wr.bindLength, wr.bindAccess);
            case WrOpcode.FLUSH -> {
                w.flushType = wr.flushType;
                w.flushLevel = wr.flushLevel;
                w.length = wr.flushLength;
            }
            case WrOpcode.ATOMIC_WRITE -> {
                w.compareAdd = wr.atomicWriteValue;
                w.length = 8;
            }
            default -> {
            }
        }
        return 0;
    }

    /**
     * UD: the destination of a work request from its address handle, remote QPN and Q_Key. 0 or
     * EINVAL (no handle, a destroyed one, or one of another protection domain).
     */
    int udAddress(SendWqe w, AddressHandle ah, int remoteQpn, int remoteQkey) {
        if (ah == null || ah.closed()) {
            return reject(Errno.EINVAL, "a UD send needs a live address handle");
        }
        if (ah.pd() != pd) {
            return reject(Errno.EINVAL, "the address handle belongs to another protection domain");
        }
        w.udDestAddr = ah.destAddr();
        w.udDestQpn = remoteQpn & 0xFFFFFF;
        w.udQkey = remoteQkey;
        return 0;
    }

    /** Starts a WQE: the fields every work request sets, the rest cleared. */
    void begin(SendWqe w, int opcode, long wrId, int sendFlags) {
        w.wrId = wrId;
        w.opcode = opcode;
        w.sendFlags = sendFlags;
        w.numSge = 0;
        w.length = 0;
        w.immData = 0;
        w.remoteAddr = 0;
        w.rkey = 0;
        w.compareAdd = 0;
        w.swap = 0;
        w.invalidateRkey = 0;
        w.bindMwKey = 0;
        w.bindMrKey = 0;
        w.bindLength = 0;
        w.bindAccess = 0;
        w.flushType = 0;
        w.flushLevel = 0;
        w.umrKey = 0;
        w.umrAccess = 0;
        w.umrSpec = null;
        w.umrSettersLeft = 0;
        w.udDestAddr = 0;
        w.udDestQpn = 0;
        w.udQkey = 0;
        w.state = SendWqe.POSTED;
        w.inlined = false;
        w.inlineLength = 0;
    }

    /** BIND_MW: the window's rkey as of the last bind posted, and the one it gets. */
    void bindFields(SendWqe w, MemoryWindow mw, int newRkey, MemoryRegion mr, long addr, long length, int access) {
        w.bindMwKey = mw.rkey();
        w.bindMrKey = mr == null ? 0 : mr.lkey();
        w.remoteAddr = addr;
        w.bindLength = length;
        w.bindAccess = access;
        w.rkey = (w.bindMwKey & ~0xFF) | (newRkey & 0xFF);
        w.length = 0;
    }

    /**
     * The rules every posted WQE obeys, whichever API filled it: opcode for the QP type, SGE
     * count, message length, 8-byte atomics, inline room, FLUSH and ATOMIC_WRITE parameters.
     * Returns 0 or an errno, the reason in {@link #verdict}.
     */
    int checkWqe(SendWqe w) {
        int op = w.opcode;
        if (!opcodeAllowed(op)) {
            return reject(Errno.EINVAL, "opcode " + WrOpcode.name(op) + " not valid on " + QpType.name(type));
        }
        if (w.numSge < 0 || w.numSge > cap.maxSendSge) {
            return reject(Errno.EINVAL, "num_sge " + w.numSge + " > max_send_sge " + cap.maxSendSge);
        }
        if ((type == QpType.UD || type == QpType.DRIVER) && w.udDestAddr == 0) {
            return reject(Errno.EINVAL, "a UD request without a destination (ibv_wr_set_ud_addr)");
        }
        if (type == QpType.DRIVER && WrOpcode.isSend(op) && w.length > qp.pathMtu) {
            return reject(Errno.EINVAL, "an SRD message is at most the MTU (" + qp.pathMtu + " bytes)");
        }
        if (type == QpType.DRIVER && w.length > SrdDv.MAX_RDMA_SIZE) {
            return reject(Errno.EINVAL, "an SRD RDMA operation is at most max_rdma_size (" + SrdDv.MAX_RDMA_SIZE
                + " bytes)");
        }
        if (w.length > Device.MAX_MSG_SZ || w.length < 0) {
            return reject(Errno.EINVAL, "message longer than max_msg_sz");
        }
        if (WrOpcode.isAtomic(op) && w.length != 8) {
            return reject(Errno.EINVAL, "atomic operations move exactly 8 bytes");
        }
        boolean inline = (w.sendFlags & SendFlags.INLINE) != 0 && (WrOpcode.isSend(op) || WrOpcode.isWrite(op));
        if (inline && w.length > cap.maxInlineData) {
            return reject(Errno.EINVAL, "inline data " + w.length + " > max_inline_data " + cap.maxInlineData);
        }
        if (op == WrOpcode.FLUSH && (w.flushType == 0 || (w.flushType & ~(Flush.GLOBAL | Flush.PERSISTENT)) != 0
            || (w.flushLevel != Flush.RANGE && w.flushLevel != Flush.MR) || w.numSge != 0)) {
            return reject(Errno.EINVAL, "FLUSH: placement " + w.flushType + ", level " + w.flushLevel);
        }
        if ((op == WrOpcode.ATOMIC_WRITE || op == WrOpcode.BIND_MW || op == WrOpcode.LOCAL_INV
            || op == WrOpcode.DRIVER1) && w.numSge != 0) {
            return reject(Errno.EINVAL, WrOpcode.name(op) + " takes no SGEs");
        }
        if (op == WrOpcode.DRIVER1 && (w.umrSpec == null || w.umrSettersLeft != 0)) {
            return reject(Errno.EINVAL, "an indirect key configuration without its layout or announced setters");
        }
        return 0;
    }

    /**
     * IBV_SEND_INLINE on a SEND or WRITE with SGEs: the bytes are copied into the WQE now, so the
     * buffer may be reused once the post returns. 0 or EFAULT.
     */
    int copyInline(SendWqe w) {
        boolean inline = (w.sendFlags & SendFlags.INLINE) != 0 && (WrOpcode.isSend(w.opcode) || WrOpcode.isWrite(w.opcode));
        if (!inline || w.inlined || w.length == 0) {
            return 0;
        }
        if (InlineCopy.copy(device.keys(), w) != 0) {
            return Errno.EFAULT;
        }
        w.inlined = true;
        w.inlineLength = (int) w.length;
        return 0;
    }

    /** Reason of the last refusal (under the send queue lock). */
    String verdict;

    private int reject(int errno, String why) {
        verdict = why;
        return errno;
    }

    static boolean canPostSend(int state) {
        return state != QpState.RESET && state != QpState.INIT && state != QpState.RTR;
    }

    /**
     * The operations of each QP type (rxe's wr_opcode_mask): UD sends only; UC sends, writes and
     * the local operations (UC has no SEND_WITH_INV opcode on the wire); RC everything; SRD
     * (DRIVER) sends, writes and reads (EFA's).
     */
    private boolean opcodeAllowed(int op) {
        return switch (op) {
            case WrOpcode.SEND, WrOpcode.SEND_WITH_IMM -> true;
            case WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM -> type != QpType.UD;
            case WrOpcode.RDMA_READ -> type == QpType.RC || type == QpType.DRIVER;
            case WrOpcode.LOCAL_INV, WrOpcode.BIND_MW -> type == QpType.RC || type == QpType.UC;
            case WrOpcode.SEND_WITH_INV, WrOpcode.ATOMIC_CMP_AND_SWP,
                 WrOpcode.ATOMIC_FETCH_AND_ADD, WrOpcode.FLUSH, WrOpcode.ATOMIC_WRITE, WrOpcode.DRIVER1 ->
                type == QpType.RC;
            default -> false;
        };
    }

    /**
     * {@code ibv_bind_mw}: binds a type 1 window to {@code [addr, addr+length)} of {@code mr}
     * with {@code access} (REMOTE_READ / REMOTE_WRITE / REMOTE_ATOMIC; ZERO_BASED is not allowed
     * for type 1), or unbinds it with length 0 and no region. Posts a BIND_MW work request (a
     * completion comes when asked for, or on failure: MW_BIND_ERR) and returns the window's new
     * rkey, {@link MemoryWindow#incRkey} of the old one. EINVAL for a type 2 window (bind those
     * with a BIND_MW work request) and for arguments libibverbs refuses.
     *
     * @param mw        a type 1 window of this QP's device
     * @param wrId      the {@code wr_id} of the bind's completion
     * @param sendFlags {@link SendFlags} bits, e.g. {@code SIGNALED} for a completion on success
     * @param mr        the region to bind into, in the window's PD; null (with {@code addr} and
     *                  {@code length} 0) to unbind
     * @param addr      the window's first byte, in the region's address space
     * @param length    the window's length, bytes; 0 unbinds
     * @param access    {@code Access.REMOTE_READ}, {@code REMOTE_WRITE}, {@code REMOTE_ATOMIC}
     * @return the window's new rkey, valid once the bind has executed
     * @throws VerbsException        EINVAL as above; EPERM when region and window are in
     *                               different protection domains
     * @throws PostException         when the BIND_MW request cannot be posted (as {@link #postSend})
     * @throws IllegalStateException when the QP or its device is closed
     */
    public int bindMw(MemoryWindow mw, long wrId, int sendFlags, MemoryRegion mr, long addr, long length, int access) {
        if (mw == null || mw.type() != MemoryWindow.TYPE_1) {
            throw VerbsException.einval("ibv_bind_mw binds type 1 windows; type 2 takes a BIND_MW work request");
        }
        if (mr == null && (addr != 0 || length != 0)) {
            throw VerbsException.einval("a bind without a region must have address and length 0");
        }
        if ((access & Access.ZERO_BASED) != 0) {
            throw VerbsException.einval("type 1 windows cannot be zero based");
        }
        if (mr != null && mr.pd() != mw.pd()) {
            throw new VerbsException(Errno.EPERM, "the region and the window are in different protection domains");
        }
        sqLock.lock();
        try {
            bindWr.wrId = wrId;
            bindWr.sendFlags = sendFlags;
            bindWr.bindMw(mw, MemoryWindow.incRkey(mw.rkey()), mr, addr, length, access);
            postSend(bindWr);
            return mw.rkey();
        } finally {
            sqLock.unlock();
        }
    }

    /**
     * {@code ibv_post_recv}: EINVAL in RESET or with too many SGEs, ENOMEM when the receive queue
     * is full; stops at the first bad request (the ones before it are posted). Receives may be
     * posted from INIT on.
     *
     * @param wr the first request of the chain; copied, so it may be refilled as soon as this returns
     * @throws PostException         at the first request that could not be posted; EINVAL for all
     *                               of them when the QP takes its receives from an SRQ
     * @throws IllegalStateException when the QP or its device is closed
     */
    public void postRecv(RecvWr wr) {
        ensureUsable();
        if (qp.rq == null) {
            throw new PostException(Errno.EINVAL, "the QP takes its receives from an SRQ (post them there)", wr);
        }
        RecvWr bad = postRecvChain(wr);
        if (bad != null) {
            throw new PostException(recvErrno, verdict == QUEUE_FULL ? "receive queue full (" + cap.maxRecvWr + ")"
                : verdict, bad);
        }
    }

    /**
     * {@code ibv_post_recv} without exceptions: 0 when the whole chain was posted, else the errno
     * of the first request that was not (those before it are posted): ENOMEM when the receive
     * queue is full (allocates nothing), EINVAL in RESET, with too many SGEs or on a QP whose
     * receives come from an SRQ ({@link #lastError()} says why).
     *
     * @param wr the first request of the chain; copied, so it may be refilled as soon as this returns
     * @return 0, or the errno of the first request not posted
     * @throws IllegalStateException when the QP or its device is closed
     */
    public int tryRecv(RecvWr wr) {
        ensureUsable();
        if (qp.rq == null) {
            return reject(Errno.EINVAL, "the QP takes its receives from an SRQ (post them there)");
        }
        return postRecvChain(wr) == null ? 0 : recvErrno;
    }

    private int recvErrno;
    /** The verdict of a full queue: a constant, so that back-pressure allocates nothing. */
    private static final String QUEUE_FULL = "queue full";

    /** Posts the chain; null, or the first request not posted (its errno in {@link #recvErrno}). */
    private RecvWr postRecvChain(RecvWr wr) {
        RecvWr bad = null;
        synchronized (qp.rq) {
            for (RecvWr r = wr; r != null; r = r.next) {
                int state = qp.state();
                if (state == QpState.RESET) {
                    recvErrno = reject(Errno.EINVAL, "post_recv in RESET");
                    bad = r;
                    break;
                }
                if (r.numSge < 0 || r.numSge > cap.maxRecvSge || r.numSge > r.sgList.length) {
                    recvErrno = reject(Errno.EINVAL, "num_sge " + r.numSge + " > max_recv_sge " + cap.maxRecvSge);
                    bad = r;
                    break;
                }
                RecvWqe w = qp.rq.claim();
                if (w == null) {
                    recvErrno = reject(Errno.ENOMEM, QUEUE_FULL);
                    bad = r;
                    break;
                }
                r.copyInto(w);
                qp.rq.publish();
            }
        }
        if (qp.state() == QpState.ERR) {
            engine.kick();
        }
        return bad;
    }

    /**
     * {@code ibv_attach_mcast}: this UD QP receives the datagrams sent to multicast GID
     * {@code gid} (an IPv4-mapped group address, 224.0.0.0/4) and the multicast QPN 0xFFFFFF, each
     * through its own Q_Key and P_Key checks. The device's link joins the IPv4 group on its
     * interface with the first QP attached (the group's socket lives in the calling thread's network
     * namespace). Attaching twice is a no-op. {@code lid} is ignored on RoCE.
     *
     * @param gid the group's GID, IPv4-mapped (224.0.0.0/4)
     * @param lid ignored (RoCE has no LIDs)
     * @throws VerbsException EINVAL for a QP that is not UD or a GID that is not a group; ENOMEM
     *                        past max_mcast_grp or max_mcast_qp_attach; the link's errno when it
     *                        cannot join (EOPNOTSUPP for links without multicast, ENODEV)
     * @throws IllegalStateException when the QP or its device is closed
     */
    public void attachMcast(Gid gid, int lid) {
        ensureUsable();
        int group = multicastGroup(gid);
        dev.jrxe.transport.MulticastGroups groups = engine.multicast();
        synchronized (groups) {
            boolean fresh = !groups.has(group);
            int r = groups.attach(qp, group);
            if (r != 0) {
                throw new VerbsException(r, "attach_mcast " + gid);
            }
            if (fresh) {
                int j = engine.link().joinMulticast(group);
                if (j != 0) {
                    groups.detach(qp, group);
                    throw new VerbsException(-j, "the link cannot join " + gid + ": " + Errno.name(-j));
                }
            }
        }
    }

    /**
     * {@code ibv_detach_mcast}: stops delivering {@code gid}'s datagrams to this QP; the link
     * leaves the group when no QP of the device is attached any more.
     *
     * @param gid the group's GID, as given to {@link #attachMcast}
     * @param lid ignored (RoCE has no LIDs)
     * @throws VerbsException EINVAL when the QP is not attached to {@code gid}
     * @throws IllegalStateException when the QP or its device is closed
     */
    public void detachMcast(Gid gid, int lid) {
        ensureUsable();
        int group = multicastGroup(gid);
        dev.jrxe.transport.MulticastGroups groups = engine.multicast();
        synchronized (groups) {
            int r = groups.detach(qp, group);
            if (r != 0) {
                throw new VerbsException(r, "QP 0x" + Integer.toHexString(qp.qpn) + " is not attached to " + gid);
            }
            if (!groups.has(group)) {
                engine.link().leaveMulticast(group);
            }
        }
    }

    private int multicastGroup(Gid gid) {
        if (type != QpType.UD) {
            throw VerbsException.einval("only UD QPs attach to multicast groups");
        }
        if (gid == null || !gid.isIpv4() || (gid.ipv4() >>> 28) != 0xE) {
            throw VerbsException.einval(gid + " is not an IPv4 multicast GID");
        }
        return gid.ipv4();
    }

    /** {@code IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS}. */
    public static final int DATA_IN_ORDER_RETURN_CAPS = 1;
    /** {@code IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG}: a whole message is written in order. */
    public static final int DATA_IN_ORDER_WHOLE_MSG = 1;
    /** {@code IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES}: each 128-byte block is written in order. */
    public static final int DATA_IN_ORDER_ALIGNED_128_BYTES = 1 << 1;

    /**
     * {@code ibv_query_qp_data_in_order(qp, op, flags)}: whether the data of operation
     * {@code op} ({@link WrOpcode}) lands in memory in order. jrxe places every packet of a message
     * in PSN order and each packet's bytes in address order, from one thread, so it does: 1
     * with flags 0; with {@link #DATA_IN_ORDER_RETURN_CAPS}, WHOLE_MSG | ALIGNED_128_BYTES.
     * EINVAL for any other flag.
     *
     * @param op    the operation, a {@link WrOpcode}; every one is in order in jrxe
     * @param flags 0 or {@link #DATA_IN_ORDER_RETURN_CAPS}
     * @return 1 (in order) with flags 0; the capability bits with {@code DATA_IN_ORDER_RETURN_CAPS}
     * @throws VerbsException EINVAL for an unknown flag
     */
    public int queryDataInOrder(int op, int flags) {
        if ((flags & ~DATA_IN_ORDER_RETURN_CAPS) != 0) {
            throw VerbsException.einval("flags 0x" + Integer.toHexString(flags));
        }
        return (flags & DATA_IN_ORDER_RETURN_CAPS) != 0 ? DATA_IN_ORDER_WHOLE_MSG | DATA_IN_ORDER_ALIGNED_128_BYTES : 1;
    }

    /** {@return the transport's view of this QP (PSNs, queue positions, timers) as text, for diagnostics} */
    public String transportState() {
        return qp.debugState();
    }

    /**
     * {@code ibv_destroy_qp}: unregisters the QP from the engine, frees its queues and releases
     * its CQs and SRQ (which count it as a user until then). A second call does nothing.
     *
     * @throws VerbsException EBUSY while the QP is attached to a multicast group
     */
    @Override
    public synchronized void close() {
        // synchronized: two closing threads must not both count the QP out of its CQs and SRQ
        if (closed) {
            return;
        }
        if (!device.isClosed() && engine.multicast().attached(qp)) {
            // uverbs: a QP still attached to a multicast group cannot be destroyed
            throw new VerbsException(Errno.EBUSY, "QP 0x" + Integer.toHexString(qp.qpn)
                + " is attached to a multicast group (detach_mcast first)");
        }
        closed = true;
        engine.withEngine(() -> engine.unregister(qp));
        device.qpLeft(engine);
        sendCq.users.decrementAndGet();
        recvCq.users.decrementAndGet();
        if (srq != null) {
            srq.users.decrementAndGet();
        }
        device.qpClosed(this);
        arena.close();
    }
}
