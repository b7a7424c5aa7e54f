package dev.jrxe.transport;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import java.lang.foreign.Arena;

/**
 * The transport's side of a queue pair: its queues, the attributes the verbs layer applied, and
 * the state of its requester, responder and completer. The verbs layer validates every modify;
 * this class only holds what is valid. Engine-owned fields are touched by the engine thread only.
 */
public final class Qp {
    public final int qpn;
    /** QP1's number. */
    public static final int GSI_QPN = 1;
    /** The UDP source port of QP1 in rxe (the captures: 55410). */
    public static final int GSI_SOURCE_PORT = 0xD872;
    /**
     * Unique in the process for this QP's lifetime, unlike its QPN (reused after destruction): what
     * a type 2 memory window is bound to, so that no later QP with the same number can use it.
     */
    public final long token = TOKENS.incrementAndGet();
    private static final java.util.concurrent.atomic.AtomicLong TOKENS = new java.util.concurrent.atomic.AtomicLong();
    /** The engine's array index of this QP (see {@link QpNumbers}). */
    final int slot;
    public final int type;
    public final int pdHandle;
    public final Engine engine;
    /** Requester, responder and completer of this QP's type. */
    final Transport transport;
    public final SendQueue sq;
    /** Own receive queue, or null when the QP uses a shared one. */
    public final RecvQueue rq;
    public final RecvQueue srq;
    public final CompletionRing sendCq;
    public final CompletionRing recvCq;
    public final boolean sqSigAll;
    final Arena arena;

    // ---- attributes (written by modify under the engine lock)
    volatile int state = QpState.RESET;
    public int accessFlags;
    public int pkeyIndex;
    /** The P_Key of {@link #pkeyIndex} in the port's table (which has one entry: 0xFFFF). */
    public int pkey = 0xFFFF;
    public int port = 1;
    public int qkey;
    public int pathMtu = 1024;
    public int destQpn;
    public int destAddr;
    public int destPort;
    public int srcPort;
    /** The source port this QP holds on the link (0: none), see {@link Engine#holdSourcePort}. */
    int heldPort;
    public int hopLimit = 64;
    public int trafficClass;
    public int flowLabel;
    public int sgidIndex;
    public byte[] dgid = new byte[16];
    public int timeout;
    public int retryCnt;
    public int rnrRetry;
    public int minRnrTimer;
    public int sqPsn;
    public int rqPsn;
    public int maxRdAtomic;
    public int maxDestRdAtomic;
    public boolean sqDrainNotify;
    /** In SQD with work requests still in progress (IBV_EVENT_SQ_DRAINED not raised yet). */
    volatile boolean sqDraining;

    // ---- requester (engine only). PSNs of the requester and completer are extended: a long
    // that counts on past 2^24 (the wire carries its low 24 bits), so that windows of up to 2^23
    // PSNs compare exactly (a 2 GiB READ at MTU 256 spans 2^23 PSNs).
    /** Next PSN to send. */
    long psn;
    /** Newest PSN (exclusive) ever sent: ACKs beyond it are bogus. */
    long psnHigh;
    /** A local error stopped the requester until the QP leaves the error state. */
    boolean requesterHalted;
    /** PSN the requester resumes at when the RNR wait ends. */
    long rnrPsn;
    /** The PSN the RNR NAK named: once it is acknowledged (a duplicate got through), the wait is moot. */
    long rnrNakedPsn;
    /** PSN of the last go-back-N, while that retry is running (rxe's started_retry). */
    long retryPsn;
    int noAckPackets;
    int rdAtomicInFlight;
    /** Counters of the current retry budget; reset on forward progress. */
    int retryLeft;
    int rnrRetryLeft;
    long retransmitDeadline;
    /** The requester sent in this duty cycle: the ACK timeout runs from the flush that follows. */
    boolean timerFromFlush;
    long rnrDeadline;
    boolean rnrWaiting;
    boolean retryStarted;

    // ---- completer (engine only)
    /** Oldest PSN not yet acknowledged. */
    long compPsn;

    // ---- responder (engine only)
    final ResponderState resp;

    /** SRD's contexts and paths (a {@link dev.jrxe.ib.QpType#DRIVER} QP), else null. */
    public final SrdState srd;

    /** Registered with the engine's list of QPs to serve. */
    boolean active;

    /** A QP of {@code engine} with a QPN it allocates now (see {@link Engine#register}). */
    public Qp(Engine engine, int type, int pdHandle, SendQueue sq, RecvQueue rq, RecvQueue srq,
              CompletionRing sendCq, CompletionRing recvCq, boolean sqSigAll, Arena arena) {
        this(engine, type, pdHandle, sq, rq, srq, sendCq, recvCq, sqSigAll, arena, false);
    }

    /**
     * {@code gsi}: the device's QP1, the General Services Interface that MADs (the connection
     * manager's) go to: a UD QP with QPN 1, the GSI Q_Key 0x80010000 and rxe's UDP source port
     * 55410. At most one per engine ({@link Engine#register}).
     */
    public Qp(Engine engine, int type, int pdHandle, SendQueue sq, RecvQueue rq, RecvQueue srq,
              CompletionRing sendCq, CompletionRing recvCq, boolean sqSigAll, Arena arena, boolean gsi) {
        this.engine = engine;
        this.slot = engine.allocateSlot();
        this.qpn = gsi ? GSI_QPN : engine.qpnOf(slot);
        this.type = type;
        this.transport = engine.transportFor(type);
        this.pdHandle = pdHandle;
        this.sq = sq;
        this.rq = rq;
        this.srq = srq;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.sqSigAll = sqSigAll;
        this.arena = arena;
        this.resp = new ResponderState(engine.tuning());
        this.srd = type == QpType.DRIVER ? new SrdState(this, sq.slotCount()) : null;
        this.resp.taken = new RecvWqe(Math.max(1, recvQueue() == null ? 1 : recvQueue().maxSge()));
    }

    public int state() {
        return state;
    }

    /** Whether READ responses or atomic acknowledgements are still to be sent (read under the engine). */
    public boolean repliesPending() {
        return resp.pendingReplies > 0;
    }

    /** Whether the QP is in SQD with work requests still in progress. */
    public boolean sqDraining() {
        return sqDraining;
    }

    public boolean isRc() {
        return type == QpType.RC;
    }

    /** Transport state for diagnostics (racy read; never on the data path). */
    public String debugState() {
        long now = engine.now;
        return "qpn=0x" + Integer.toHexString(qpn) + " state=" + QpState.name(state) + " psn=" + psn + " compPsn="
            + compPsn + " psnHigh=" + psnHigh + " sq[consumer=" + sq.consumer() + " next=" + sq.next + " producer="
            + sq.producer() + "] rdAtomic=" + rdAtomicInFlight + " rnrWaiting=" + rnrWaiting + " retryStarted="
            + retryStarted + "@" + retryPsn + " timer=" + (retransmitDeadline == 0 ? "off" : (retransmitDeadline - now) / 1000 + "us")
            + " retryLeft=" + retryLeft + " halted=" + requesterHalted + " | resp ePsn=" + resp.ePsn + " msn=" + resp.msn
            + " nakSent=" + resp.seqNakSent + " inProgress=" + resp.inProgress + " rq=" + (rq == null ? -1 : rq.depth());
    }

    /** The receive queue the responder takes WQEs from. */
    RecvQueue recvQueue() {
        return srq != null ? srq : rq;
    }
}
