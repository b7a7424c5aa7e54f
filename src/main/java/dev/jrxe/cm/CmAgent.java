package dev.jrxe.cm;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.verbs.AddressHandle;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.CompletionChannel;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.UdSetup;
import dev.jrxe.verbs.VerbsException;
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One device's connection manager (Linux cm.c's per-port agent): the GSI QP1 that CM MADs arrive
 * at and leave from (UD, Q_Key 0x80010000, 256-byte MADs after the 40-byte GRH area), the
 * listeners by service ID and the connections by communication ID, and a thread that takes MADs
 * and runs the retransmission timers. Every state change happens holding the agent's monitor, by
 * that thread (MADs, timers) or an application thread (connect, accept, reject, disconnect,
 * destroy). One agent per device, made with the device's first {@link CmId} and closed with its
 * last.
 */
final class CmAgent {
    private static final Map<Device, CmAgent> AGENTS = new ConcurrentHashMap<>();
    /** Receive WQEs on QP1: a burst of this many MADs (REQs of clients connecting at once) is taken whole. */
    private static final int RECVS = 512;
    private static final int SENDS = 128;
    private static final int GRH = 40;
    private static final int SLOT = GRH + Mad.SIZE;
    static final int GSI_QPN = 1;
    static final int GSI_QKEY = 0x80010000;

    final Device device;
    final long guid;
    private final Arena arena = Arena.ofShared();
    private final ProtectionDomain pd;
    private final CompletionChannel channel;
    private final CompletionQueue cq;
    private final QueuePair qp1;
    private final MemorySegment recvBufs;
    private final MemorySegment sendBufs;
    private final MemoryRegion mr;
    private final MemoryRegion sendMr;
    /**
     * Address handles by destination, least recently used first, at most {@link #MAX_HANDLES}:
     * replies to anyone (a REJ, a DREP to a spoofed source) must not exhaust the device's max_ah.
     * Closing one is safe even with a send outstanding: the send copied the destination.
     */
    private final java.util.LinkedHashMap<Integer, AddressHandle> handles = new java.util.LinkedHashMap<>(16, 0.75f, true);
    private static final int MAX_HANDLES = 256;
    /** MADs queued for room on QP1's send queue at most (beyond: dropped; the timers resend). */
    private static final int MAX_BACKLOG = 1024;
    private record Queued(int destAddr, Mad mad) {
    }

    /** MADs waiting for room on QP1's send queue. */
    private final java.util.ArrayDeque<Queued> backlog = new java.util.ArrayDeque<>();
    private int nextSend;
    private int sendsOutstanding;
    private final SendWr sendWr = new SendWr(1);
    private final RecvWr recvWr = new RecvWr(1);
    private final WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(),
        new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
    final SecureRandom random = new SecureRandom();
    /** High word of the transaction IDs of new requests (Linux: the MAD agent's hi_tid). */
    private final int hiTid = random.nextInt();
    /** Listeners by service ID. */
    final Map<Long, CmId> listeners = new HashMap<>();
    /** Connections by local communication ID. */
    final Map<Integer, CmId> byLocalId = new HashMap<>();
    /** Passive connections by (peer address, peer's communication ID): duplicate REQs. */
    final Map<Long, CmId> byRemote = new HashMap<>();
    private final List<CmId> ids = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    /** MADs taken, and refused (bad header, unknown attribute, no connection they belong to). */
    long madsIn;
    long madsDropped;
    long madsOut;

    private CmAgent(Device device) {
        this.device = device;
        this.guid = device.nodeGuid();
        ProtectionDomain p = null;
        CompletionChannel ch = null;
        CompletionQueue c = null;
        QueuePair q = null;
        MemoryRegion rmr = null;
        MemoryRegion smr = null;
        try {
            p = device.allocPd();
            ch = device.createCompChannel();
            c = device.createCq(RECVS + SENDS + 8, ch, 0);
            q = p.createGsiQp(new QpInitAttr(QpType.UD, c, c, new QpCap(SENDS, RECVS, 1, 1, 0)));
            UdSetup.toRts(q, GSI_QKEY, 0);
            this.recvBufs = arena.allocate((long) RECVS * SLOT, 64);
            this.sendBufs = arena.allocate((long) SENDS * Mad.SIZE, 64);
            rmr = p.registerMemory(recvBufs, Access.LOCAL_WRITE);
            smr = p.registerMemory(sendBufs, 0);
            this.pd = p;
            this.channel = ch;
            this.cq = c;
            this.qp1 = q;
            this.mr = rmr;
            this.sendMr = smr;
            for (int i = 0; i < RECVS; i++) {
                postRecv(i);
            }
            cq.requestNotify(false);
            this.thread = Thread.ofPlatform().daemon().name("jrxe-cm-" + device.name()).start(this::loop);
        } catch (RuntimeException | Error e) {
            // a half-made agent must not keep the device's QP1 (the next CmId could not have it)
            for (AutoCloseable r : new AutoCloseable[] {q, smr, rmr, c, ch, p}) {
                if (r != null) {
                    try {
                        r.close();
                    } catch (Exception ignored) {
                        // releasing the rest matters more
                    }
                }
            }
            arena.close();
            throw e;
        }
    }


    /** The agent of {@code device}, made on first use; {@code id} becomes one of its users. */
    static CmAgent join(Device device, CmId id) {
        synchronized (AGENTS) {
            CmAgent a = AGENTS.computeIfAbsent(device, CmAgent::new);
            synchronized (a) {
                a.ids.add(id);
            }
            return a;
        }
    }

    /** A passive id made by this agent's thread (holding the agent) becomes a user. */
    CmAgent adopt(CmId id) {
        ids.add(id);
        return this;
    }

    /** {@code id} is destroyed; the last user closes the agent. */
    void leave(CmId id) {
        synchronized (AGENTS) {
            boolean last;
            synchronized (this) {
                ids.remove(id);
                last = ids.isEmpty();
            }
            if (last) {
                AGENTS.remove(device, this);
                // still holding AGENTS: a new id of this device waits for QP1 to be free again
                close();
            }
        }
    }

    long newTid(int localCommId) {
        return (long) hiTid << 32 | (Integer.reverseBytes(localCommId) & 0xFFFFFFFFL);
    }

    /** A fresh local communication ID, unique among this agent's connections. Holding the agent. */
    int newCommId() {
        int id;
        do {
            id = random.nextInt();
        } while (id == 0 || byLocalId.containsKey(id));
        return id;
    }

    // ------------------------------------------------------------------ sending

    /** Sends {@code mad} to QP1 of the device at {@code destAddr}. Holding the agent. */
    void send(int destAddr, Mad mad) {
        if (!running) {
            return;
        }
        if (sendsOutstanding >= SENDS) {
            if (backlog.size() < MAX_BACKLOG) {
                backlog.add(new Queued(destAddr, mad)); // sent as QP1's send completions free room
            } else {
                madsDropped++;
            }
            return;
        }
        AddressHandle ah = handles.get(destAddr);
        try {
            if (ah == null) {
                if (handles.size() >= MAX_HANDLES) {
                    var eldest = handles.entrySet().iterator().next();
                    handles.remove(eldest.getKey());
                    eldest.getValue().close();
                }
                ah = pd.createAh(new AhAttr(Gid.ofIpv4(destAddr), 1));
                handles.put(destAddr, ah);
            }
            int slot = nextSend;
            nextSend = (nextSend + 1) % SENDS;
            MemorySegment.copy(MemorySegment.ofArray(mad.bytes()), 0, sendBufs, (long) slot * Mad.SIZE, Mad.SIZE);
            sendWr.sge(sendBufs.address() + (long) slot * Mad.SIZE, Mad.SIZE, sendMr.lkey());
            sendWr.sendFlags = SendFlags.SIGNALED;
            sendWr.ah = ah;
            sendWr.remoteQpn = GSI_QPN;
            sendWr.remoteQkey = GSI_QKEY;
            sendWr.wrId = -1;
            qp1.postSend(sendWr);
            sendsOutstanding++;
            madsOut++;
        } catch (VerbsException e) {
            madsDropped++; // an address no handle can reach, or a full queue: the timer retries
        }
    }

    // ------------------------------------------------------------------ receiving

    private void postRecv(int slot) {
        recvWr.wrId = slot;
        recvWr.sge(recvBufs.address() + (long) slot * SLOT, SLOT, mr.lkey());
        qp1.postRecv(recvWr);
    }

    private void loop() {
        while (running) {
            try {
                drain();
                long wait;
                synchronized (this) {
                    wait = runTimers(System.nanoTime());
                }
                cq.requestNotify(false);
                drain();
                CompletionQueue fired = channel.getEvent(Math.max(1, Math.min(wait, 50)), TimeUnit.MILLISECONDS);
                if (fired != null) {
                    fired.ackEvents(1);
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable e) {
                // one bad MAD, a failed transition, even an OutOfMemoryError must not stop the CM
                synchronized (this) {
                    madsDropped++;
                }
            }
        }
    }

    private void drain() {
        int n;
        while (running && (n = cq.poll(wcs)) > 0) {
            for (int i = 0; i < n; i++) {
                try {
                    take(wcs[i]);
                } catch (Throwable t) {
                    // one completion's trouble must not lose the others of the batch
                    synchronized (this) {
                        madsDropped++;
                    }
                }
            }
        }
    }

    /** One completion of QP1: a send's credit back, or a MAD to dispatch and its buffer reposted. */
    private void take(WorkCompletion wc) {
        if (wc.opcode == WcOpcode.SEND || wc.wrId < 0) {
            synchronized (this) {
                sendsOutstanding--;
                Queued q;
                while (sendsOutstanding < SENDS && (q = backlog.poll()) != null) {
                    send(q.destAddr(), q.mad());
                }
            }
            return;
        }
        int slot = (int) wc.wrId;
        try {
            if (wc.ok() && wc.byteLen == SLOT) {
                MemorySegment at = recvBufs.asSlice((long) slot * SLOT, SLOT);
                int src = at.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 32);
                byte[] bytes = at.asSlice(GRH, Mad.SIZE).toArray(ValueLayout.JAVA_BYTE);
                synchronized (this) {
                    dispatch(src, new Mad(bytes));
                }
            } else {
                synchronized (this) {
                    madsDropped++;
                }
            }
        } finally {
            // whatever the MAD did, its buffer goes back: a CM that stops receiving is deaf
            if (running && qp1.state() != dev.jrxe.ib.QpState.ERR) {
                postRecv(slot);
            }
        }
    }

    /** A received MAD from {@code src}: checked as Linux's validate_mad, then to its handler. */
    private void dispatch(int src, Mad m) {
        madsIn++;
        if (m.baseVersion() != Mad.BASE_VERSION || m.mgmtClass() != Mad.CLASS_CM
            || m.classVersion() != Mad.CM_CLASS_VERSION || m.method() != Mad.METHOD_SEND) {
            madsDropped++;
            return;
        }
        boolean taken = switch (m.attributeId()) {
            case Mad.ATTR_REQ -> CmProtocol.onReq(this, src, m);
            case Mad.ATTR_REP -> CmProtocol.onRep(this, src, m);
            case Mad.ATTR_RTU -> CmProtocol.onRtu(this, src, m);
            case Mad.ATTR_REJ -> CmProtocol.onRej(this, src, m);
            case Mad.ATTR_MRA -> CmProtocol.onMra(this, src, m);
            case Mad.ATTR_DREQ -> CmProtocol.onDreq(this, src, m);
            case Mad.ATTR_DREP -> CmProtocol.onDrep(this, src, m);
            case Mad.ATTR_SIDR_REQ -> CmProtocol.onSidrReq(this, src, m);
            case Mad.ATTR_SIDR_REP -> CmProtocol.onSidrRep(this, src, m);
            default -> false;
        };
        if (!taken) {
            madsDropped++;
        }
    }

    /** Retransmits due MADs; returns the milliseconds until the next timer. Holding the agent. */
    private long runTimers(long now) {
        long next = Long.MAX_VALUE;
        for (CmId id : List.copyOf(byLocalId.values())) {
            next = Math.min(next, id.timer(now));
        }
        return next == Long.MAX_VALUE ? 50 : Math.max(1, (next - now) / 1_000_000);
    }

    private void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            qp1.close();
            for (AddressHandle ah : handles.values()) {
                ah.close();
            }
            mr.close();
            sendMr.close();
            cq.close();
            channel.close();
            pd.close();
        } catch (VerbsException e) {
            // the device is closing under us: its close releases what is left
        } finally {
            arena.close();
        }
    }
}
