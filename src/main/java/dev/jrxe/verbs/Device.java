package dev.jrxe.verbs;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.Mtu;
import dev.jrxe.memory.KeyTable;
import dev.jrxe.memory.OdpCaps;
import dev.jrxe.net.Link;
import dev.jrxe.ib.Errno;
import dev.jrxe.transport.Engine;
import dev.jrxe.transport.EventSink;
import dev.jrxe.transport.Qp;
import dev.jrxe.transport.TransportCounters;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A jrxe device: a software RoCEv2 NIC bound to one IPv4 address and UDP port, with one port
 * (number 1). The entry point of the verbs API ({@code ibv_open_device}, {@code ibv_context}).
 *
 * <pre>{@code
 * try (Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2"))) {
 *     ProtectionDomain pd = dev.allocPd();
 *     CompletionQueue cq = dev.createCq(256);
 *     // ... regions and QPs from pd; close() closes them all, QPs first
 * }
 * }</pre>
 *
 * <p>Thread safe. The device's NIC (receive, transmit, timers) is one engine behind one lock:
 * an application thread that polls a CQ or posts runs it when it is free, and a background
 * progress thread runs it when no application does (none with
 * {@link DeviceConfig#manualProgress()}: then {@link #progress()} does). Unrelated devices share
 * nothing. After {@link #close()}, every call on the device or anything made from it throws
 * {@link IllegalStateException}.
 */
public final class Device implements AutoCloseable {
    /** Limits jrxe enforces, rxe's values where rxe has them. */
    static final int MAX_QP_WR = 1 << 20;
    static final int MAX_SGE = 32;
    static final int MAX_INLINE = 512;
    static final int MAX_CQE = (1 << 15) - 1;
    static final int MAX_CQ = 1 << 20;
    static final int MAX_QP = (1 << 20) - 16;
    static final int MAX_RD_ATOMIC = 128;
    static final int MAX_PD = 1 << 20;
    static final long MAX_MSG_SZ = 1L << 31;
    /** rxe's SRQ limits (max_srq, max_srq_wr, max_srq_sge). */
    static final int MAX_SRQ = 917503;
    static final int MAX_SRQ_WR = 1 << 20;
    static final int MAX_SRQ_SGE = 27;

    private final DeviceConfig config;
    private final int addr;
    /** Engine 0's link and engine; a device of one engine has no other. */
    private final Link link;
    private final Engine engine;
    /** One link and engine per {@link DeviceConfig#engines}; index i owns QPNs {@code qpn % K == i}. */
    private final Link[] links;
    private final Engine[] engines;
    /** QPs each engine serves (placement's load figure), guarded by {@link #placement}. */
    private final int[] qpsPerEngine;
    private final Object placement = new Object();
    private final KeyTable keys;
    private final LinkedBlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
    private final AtomicInteger nextPd = new AtomicInteger(1);
    private final AtomicInteger liveQps = new AtomicInteger();
    private final AtomicInteger livePds = new AtomicInteger();
    private final AtomicInteger liveCqs = new AtomicInteger();
    private final Map<Integer, QueuePair> qps = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** Its counters' MBean, registered off the opening thread (the platform MBean server is slow to start). */
    private final java.util.concurrent.CompletableFuture<javax.management.ObjectName> mbean;

    static {
        dev.jrxe.internal.Internals.install(new dev.jrxe.internal.Internals.Verbs() {
            @Override
            public KeyTable keys(Device device) {
                return device.keys;
            }

            @Override
            public TransportCounters transportCounters(Device device) {
                return device.engine.counters();
            }

            @Override
            public Link link(Device device) {
                return device.link;
            }

            @Override
            public dev.jrxe.memory.Region region(MemoryRegion mr) {
                return mr.region();
            }

            @Override
            public DeviceConfig withLink(DeviceConfig config, Link link) {
                return config.link(link);
            }
        });
    }

    private final DeviceCounters counterView;

    private Device(DeviceConfig config) {
        this.config = config;
        byte[] a = config.address.getAddress();
        this.addr = (a[0] & 0xFF) << 24 | (a[1] & 0xFF) << 16 | (a[2] & 0xFF) << 8 | (a[3] & 0xFF);
        dev.jrxe.memory.MemoryConfig memory = config.memory();
        this.keys = config.seed == 0 ? new KeyTable(memory)
            : new KeyTable(memory, new java.util.SplittableRandom(config.seed * 0x9E3779B97F4A7C15L + 1));
        if (config.engines < 1 || config.engines > dev.jrxe.net.QpSteering.MAX_ENGINES) {
            throw VerbsException.einval("engines " + config.engines + " (jrxe.engines) outside 1.."
                + dev.jrxe.net.QpSteering.MAX_ENGINES);
        }
        if (config.link != null && config.enginesSet && config.engines > 1) {
            throw VerbsException.einval("an injected link serves a device of one engine, not " + config.engines);
        }
        this.links = config.link != null ? new Link[] {config.link} : LinkFactory.openAll(config);
        this.engines = new Engine[links.length];
        dev.jrxe.transport.EngineOptions options =
            new dev.jrxe.transport.EngineOptions(!config.manualProgress, config.clock, config.seed, config.tuning());
        Events sink = new Events();
        for (int i = 0; i < engines.length; i++) {
            // idle ODP reclaim once per device: engine 0's progress thread runs it
            Runnable housekeeping = i == 0 ? keys::reclaimIdleChildren : () -> { };
            engines[i] = new Engine(config.name, links[i], keys::lookup, sink, housekeeping,
                options.engine(i, engines.length));
        }
        this.link = links[0];
        this.engine = engines[0];
        this.qpsPerEngine = new int[engines.length];
        TransportCounters[] t = new TransportCounters[engines.length];
        dev.jrxe.net.LinkCounters[] l = new dev.jrxe.net.LinkCounters[engines.length];
        for (int i = 0; i < engines.length; i++) {
            t[i] = engines[i].counters();
            l[i] = links[i].counters();
        }
        this.counterView = new DeviceCounters(t, l);
        events.add(new AsyncEvent(AsyncEventType.PORT_ACTIVE, null, null, 1));
        this.mbean = config.jmx ? DeviceMBean.registerLater(this)
            : java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    /** QPs created and not yet destroyed. */
    int liveQpCount() {
        return liveQps.get();
    }

    /**
     * QPs of this device not destroyed yet (QP1 of its connection manager included).
     *
     * @return the count, QP1 of the connection manager included
     */
    public int liveQps() {
        return liveQps.get();
    }

    /**
     * Its counters' MBean name ({@code dev.jrxe:type=Device,name=NAME}), once registered (this
     * waits for it); null when not registered ({@code jrxe.jmx=false}, or JMX refused).
     *
     * @return the MBean's name, or null
     */
    public javax.management.ObjectName mbeanName() {
        return mbean.join();
    }

    /**
     * Runs the device's NIC once (receive, send, timers): what its progress thread does. A device
     * opened with {@link DeviceConfig#manualProgress()} has no such thread, and its application
     * calls this (posting and polling drive it too). Returns the work done (packets received and
     * sent), 0 when there was none, -1 when another thread was running it.
     *
     * @return packets received and sent, 0 for none, -1 when another thread held the engine
     */
    public int progress() {
        int work = -1;
        for (Engine e : engines) {
            int r = e.runDutyCycle();
            if (r >= 0) {
                work = Math.max(work, 0) + r;
            }
        }
        return work;
    }

    /**
     * The calling thread stops polling this device's CQs for a while: it is about to block, sleep
     * or compute. A thread that polls runs the device's NIC itself, and while it does the device
     * may hold the ACK of a message it received, to send it with the application's answer; here
     * that ACK leaves at once, and the progress thread serves the device from now on instead of
     * after its grace for a polling application ({@link DeviceConfig#appActiveNanos}, 1 ms by
     * default) and its next look (1-4 ms apart; 4-5 ms after the last poll of a thread that has
     * polled for a while, on a link with a watchdog). Without the call the device serves itself
     * all the same, that much later.
     * Waiting on a {@link CompletionChannel} does it already, driving another device sends the
     * held ACKs, and destroying a QP sends that QP's; polling again resumes. A thread that was
     * not the last to poll only sends the ACKs it held.
     */
    public void pausePolling() {
        for (Engine e : engines) {
            e.appStopsDriving();
        }
    }

    /**
     * The calling thread waits for {@code ready} serving the device ({@link Engine#serveUntil}):
     * a device of one engine only (a thread can sleep in one socket's poll).
     */
    int serveUntil(java.util.function.BooleanSupplier ready, long deadline) throws InterruptedException {
        return engines.length == 1 ? engine.serveUntil(ready, deadline) : Engine.NOT_SERVED;
    }

    /** A thread waits for an event parked ({@code true}) or stops ({@link Engine#waiterParks}). */
    void waiterParks(boolean parks) {
        for (Engine e : engines) {
            e.waiterParks(parks);
        }
    }

    /** An event fired: wake the thread that waits serving the device, if it sleeps. */
    void wakeWaitingServer() {
        if (engines.length == 1) {
            engine.wakeServer();
        }
    }

    /**
     * When the device next has work without a packet arriving (a retransmit or RNR timer, READ
     * responses to send, housekeeping), on its clock ({@link DeviceConfig#clock}); or
     * {@code Long.MAX_VALUE}. What a manual-progress application can sleep until.
     *
     * @return a time on the device's clock, or {@code Long.MAX_VALUE} when nothing is due
     */
    public long nextWork() {
        long t = Long.MAX_VALUE;
        for (Engine e : engines) {
            t = Math.min(t, e.nextWork());
        }
        return t;
    }

    /**
     * Opens a device ({@code ibv_open_device}); its link is up when this returns.
     *
     * @param config the device's name, address, port and settings
     * @return the open device; close it (try-with-resources) to release its address, port and memory
     * @throws VerbsException EADDRINUSE when another device or process holds the address and port,
     *         EADDRNOTAVAIL when the address is not this machine's, EINVAL for a missing address, EIO otherwise
     */
    public static Device open(DeviceConfig config) {
        if (config.address == null) {
            throw VerbsException.einval("device needs an IPv4 address");
        }
        return new Device(config);
    }

    /**
     * Shorthand for {@code open(DeviceConfig.of(name, address))}.
     *
     * @param name    the device's name
     * @param address its IPv4 address
     * @return the open device
     * @throws VerbsException as {@link #open(DeviceConfig)}
     */
    public static Device open(String name, String address) {
        return open(DeviceConfig.of(name, address));
    }

    /**
     * {@code ibv_get_device_name}: the device's name ("jrxe0" by default).
     *
     * @return the name given in its {@link DeviceConfig}
     */
    public String name() {
        return config.name;
    }

    /**
     * The device's IPv4 address, big-endian int.
     *
     * @return the address as an int, most significant byte first (127.0.0.2 is 0x7F000002)
     */
    public int address() {
        return addr;
    }

    /**
     * The UDP port the device's socket is bound to and sends to.
     *
     * @return the port, 4791 unless {@link DeviceConfig#udpPort} chose another
     */
    public int udpPort() {
        return link.localPort();
    }

    /** Engine 0: a device of one engine has only it. */
    Engine engine() {
        return engine;
    }

    /**
     * How many engines the device runs ({@link DeviceConfig#engines}): NICs of their own, each
     * with its socket, progress thread and lock, serving a share of the QPs.
     *
     * @return 1 unless the configuration asked for more
     */
    public int engines() {
        return engines.length;
    }

    /** The engine that serves the QP numbered {@code qpn} (the one the kernel steers its packets to). */
    Engine engineOf(int qpn) {
        return engines[dev.jrxe.net.QpSteering.engineOf(qpn, engines.length)];
    }

    /**
     * The engine a new QP joins: the one its CQs and SRQ are bound to when some QP uses them
     * already (an engine is the only producer of a CQ's ring and the only consumer of an SRQ's),
     * else the one serving the fewest QPs; QP1 always joins the engine the kernel steers QPN 1
     * to. Binds the CQs and SRQ to it. EINVAL when they are bound to different engines.
     */
    Engine placeQp(CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq, boolean gsi) {
        synchronized (placement) {
            Engine e = gsi ? engineOf(dev.jrxe.transport.Qp.GSI_QPN) : null;
            e = sameEngine(e, sendCq.binding.get());
            e = sameEngine(e, recvCq.binding.get());
            e = sameEngine(e, srq == null ? null : srq.binding.get());
            if (e == null) {
                int best = 0;
                for (int i = 1; i < engines.length; i++) {
                    if (qpsPerEngine[i] < qpsPerEngine[best]) {
                        best = i;
                    }
                }
                e = engines[best];
            }
            sendCq.binding.bind(e);
            recvCq.binding.bind(e);
            if (srq != null) {
                srq.binding.bind(e);
            }
            qpsPerEngine[e.index()]++;
            return e;
        }
    }

    private static Engine sameEngine(Engine a, Engine b) {
        if (a == null || b == null || a == b) {
            return a == null ? b : a;
        }
        throw VerbsException.einval("the QP's CQs and SRQ are served by different engines (engines "
            + a.index() + " and " + b.index() + "): QPs that share a CQ or an SRQ share an engine");
    }

    /** A QP placed by {@link #placeQp} is gone. */
    void qpLeft(Engine e) {
        synchronized (placement) {
            qpsPerEngine[e.index()]--;
        }
    }

    /**
     * Runs {@code action} holding engine 0, then holds each other engine once: when this returns,
     * no engine is in the middle of an access that began before {@code action} (a window or key
     * invalidated by it is seen invalid by every access after).
     */
    /** What {@link #placeQp} holds: a CQ resize holds it too, so that no QP binds the CQ meanwhile. */
    Object placementLock() {
        return placement;
    }

    void withEveryEngine(Runnable action) {
        engine.withEngine(action);
        for (int i = 1; i < engines.length; i++) {
            engines[i].withEngine(() -> { });
        }
    }

    /** The device's memory keys (regions) and their ODP counters. */
    KeyTable keys() {
        return keys;
    }

    DeviceConfig config() {
        return config;
    }

    /**
     * {@code ibv_query_device_ex}.
     *
     * @return a new {@link DeviceAttr} filled with this device's limits and capabilities
     */
    public DeviceAttr query() {
        DeviceAttr d = new DeviceAttr();
        long guid = nodeGuid();
        d.nodeGuid = guid;
        d.sysImageGuid = guid;
        d.maxQp = MAX_QP;
        d.maxQpWr = MAX_QP_WR;
        d.deviceCapFlags = DeviceAttr.CAP_BAD_PKEY_CNTR | DeviceAttr.CAP_BAD_QKEY_CNTR
            | DeviceAttr.CAP_AUTO_PATH_MIG | DeviceAttr.CAP_CHANGE_PHY_PORT | DeviceAttr.CAP_UD_AV_PORT_ENFORCE
            | DeviceAttr.CAP_PORT_ACTIVE_EVENT | DeviceAttr.CAP_SYS_IMAGE_GUID | DeviceAttr.CAP_RC_RNR_NAK_GEN
            | DeviceAttr.CAP_MEM_WINDOW | DeviceAttr.CAP_MEM_WINDOW_TYPE_2B
            | DeviceAttr.CAP_FLUSH_GLOBAL | DeviceAttr.CAP_FLUSH_PERSISTENT | DeviceAttr.CAP_ATOMIC_WRITE;
        d.completionTimestampMask = -1L;
        d.hcaCoreClock = 1_000_000; // kHz: timestamps count nanoseconds
        d.maxSge = MAX_SGE;
        d.maxSgeRd = MAX_SGE;
        d.maxCq = MAX_CQ;
        d.maxCqe = MAX_CQE;
        d.maxMr = keys.capacity();
        d.maxPd = MAX_PD;
        d.maxQpRdAtom = MAX_RD_ATOMIC;
        d.maxResRdAtom = 0x3f000;
        d.maxQpInitRdAtom = MAX_RD_ATOMIC;
        d.atomicCap = DeviceAttr.ATOMIC_HCA;
        d.maxMw = keys.capacity(); // windows and regions share the key table
        d.maxAh = MAX_AH;
        d.maxMcastGrp = dev.jrxe.transport.MulticastGroups.MAX_GROUPS;
        d.maxMcastQpAttach = dev.jrxe.transport.MulticastGroups.MAX_QPS_PER_GROUP;
        d.maxTotalMcastQpAttach = dev.jrxe.transport.MulticastGroups.MAX_GROUPS
            * dev.jrxe.transport.MulticastGroups.MAX_QPS_PER_GROUP;
        d.maxSrq = MAX_SRQ;
        d.maxSrqWr = MAX_SRQ_WR;
        d.maxSrqSge = MAX_SRQ_SGE;
        d.maxPkeys = 1;
        d.localCaAckDelay = 15;
        d.maxInlineData = MAX_INLINE;
        d.numCompVectors = 1;
        d.odpGeneralCaps = (int) OdpCaps.GENERAL;
        // exactly the RC operations the transport implements today, all of which work on ODP
        d.odpRcCaps = OdpCaps.RC & (OdpCaps.SEND | OdpCaps.RECV | OdpCaps.WRITE | OdpCaps.READ | OdpCaps.ATOMIC
            | OdpCaps.FLUSH | OdpCaps.ATOMIC_WRITE | OdpCaps.SRQ_RECV);
        // UC and UD move every byte through the same checked, faulting key accesses (UdUcOdpTest)
        d.odpUcCaps = OdpCaps.SEND | OdpCaps.RECV | OdpCaps.WRITE | OdpCaps.SRQ_RECV;
        d.odpUdCaps = OdpCaps.SEND | OdpCaps.RECV | OdpCaps.SRQ_RECV;
        d.odpXrcCaps = 0;
        return d;
    }

    /**
     * The node GUID (EUI-64 of the made-up MAC), as {@code ibv_query_device} reports it.
     *
     * @return the 64-bit GUID
     */
    public long nodeGuid() {
        // EUI-64 of the device's made-up MAC 02:00:a:b:c:d, as rxe derives it from the netdev
        byte[] g = Gid.linkLocal(addr).raw();
        long v = 0;
        for (int i = 8; i < 16; i++) {
            v = v << 8 | (g[i] & 0xFF);
        }
        return v;
    }

    /**
     * {@code ibv_query_port}; jrxe devices have exactly port 1.
     *
     * @param port the port number: 1
     * @return the port's attributes (state ACTIVE, MTUs, GID table length)
     * @throws VerbsException EINVAL for any other port
     */
    public PortAttr queryPort(int port) {
        checkPort(port);
        PortAttr p = new PortAttr();
        p.state = PortAttr.PORT_ACTIVE;
        p.maxMtu = Mtu.MTU_4096;
        p.activeMtu = activeMtu();
        p.gidTblLen = 1024;
        p.portCapFlags = 0x00010000;
        p.maxMsgSz = MAX_MSG_SZ;
        p.pkeyTblLen = 1;
        p.maxVlNum = 1;
        p.activeWidth = 1;
        p.activeSpeed = 1;
        p.physState = 5;
        return p;
    }

    /**
     * The active MTU enum: the link's MTU capped at 4096 (rxe subtracts its header room).
     *
     * @return an {@link dev.jrxe.ib.Mtu} value ({@code IBV_MTU_256} .. {@code IBV_MTU_4096})
     */
    public int activeMtu() {
        // the largest payload the device accepts bounds it too: a peer must never send larger
        int payload = Math.min(link.maxDatagram() - 80, config.maxPayload);
        return Mtu.floor(Math.min(config.activeMtu, Math.max(256, payload)));
    }

    /**
     * The index of the device's one GID, its IPv4-mapped RoCEv2 GID: 1, where rxe puts the GID of
     * a netdev's IPv4 address (after the IPv6 link-local one, which a jrxe device does not have).
     */
    public static final int IPV4_GID_INDEX = 1;

    /**
     * {@code ibv_query_gid}: index {@value #IPV4_GID_INDEX} the IPv4-mapped GID; every other index
     * of the 1024-entry table is empty and reads as zeros (libibverbs' answer for an empty entry).
     * Index 0, rxe's IPv6 link-local GID, is empty because jrxe sends RoCEv2 over IPv4 only: a GID
     * it lists can be used.
     *
     * @param port  the port number: 1
     * @param index the GID table index, 0..1023
     * @return the GID at that index (zeros when empty)
     * @throws VerbsException EINVAL for another port or an index outside the table
     */
    public Gid queryGid(int port, int index) {
        checkPort(port);
        if (index < 0 || index >= 1024) {
            throw VerbsException.einval("GID index " + index + " out of range");
        }
        return index == IPV4_GID_INDEX ? Gid.ofIpv4(addr) : new Gid(new byte[16]);
    }

    /**
     * Whether {@code index} holds a GID this device can send from (only {@link #IPV4_GID_INDEX}).
     *
     * @param index a GID table index
     * @return true for {@link #IPV4_GID_INDEX} only
     */
    public boolean gidValid(int index) {
        return index == IPV4_GID_INDEX;
    }

    private static void checkPort(int port) {
        if (port != 1) {
            throw VerbsException.einval("port " + port + " does not exist");
        }
    }

    /**
     * {@code ibv_alloc_pd}.
     *
     * @return a new protection domain
     * @throws VerbsException ENOMEM beyond the device's max_pd
     */
    public ProtectionDomain allocPd() {
        ensureOpen();
        if (livePds.incrementAndGet() > MAX_PD) {
            livePds.decrementAndGet();
            throw new VerbsException(Errno.ENOMEM, "too many protection domains");
        }
        ProtectionDomain pd = new ProtectionDomain(this, nextPd.getAndIncrement());
        pds.add(pd);
        return pd;
    }

    /** rxe's max_ah. */
    static final int MAX_AH = 32767;
    private final AtomicInteger liveAhs = new AtomicInteger();

    /** Counts a new address handle; ENOMEM past {@link #MAX_AH}. */
    void reserveAh() {
        if (liveAhs.incrementAndGet() > MAX_AH) {
            liveAhs.decrementAndGet();
            throw new VerbsException(dev.jrxe.ib.Errno.ENOMEM, "max_ah (" + MAX_AH + ") address handles exist");
        }
    }

    void ahClosed() {
        liveAhs.decrementAndGet();
    }

    void pdClosed(ProtectionDomain pd) {
        pds.remove(pd);
        livePds.decrementAndGet();
    }

    /** What hangs off this device, closed with it in reverse order of kind (QPs first, PDs last). */
    private final java.util.Set<ProtectionDomain> pds = ConcurrentHashMap.newKeySet();
    private final java.util.Set<CompletionQueue> cqs = ConcurrentHashMap.newKeySet();
    private final java.util.Set<AutoCloseable> pdChildren = ConcurrentHashMap.newKeySet();

    /** An SRQ or address handle was created (closed with the device before its PD). */
    void childCreated(AutoCloseable child) {
        pdChildren.add(child);
    }

    void childClosed(AutoCloseable child) {
        pdChildren.remove(child);
    }

    /** SRQs and address handles of this PD not destroyed yet. */
    int childrenOf(ProtectionDomain pd) {
        int n = 0;
        for (AutoCloseable c : pdChildren) {
            if (c instanceof SharedReceiveQueue s ? s.pd() == pd : ((AddressHandle) c).pd() == pd) {
                n++;
            }
        }
        return n;
    }

    /**
     * {@code ibv_create_comp_channel}.
     *
     * @return a new completion channel, for CQs whose events a thread waits for
     */
    public CompletionChannel createCompChannel() {
        ensureOpen();
        return new CompletionChannel(this);
    }

    /**
     * {@code ibv_create_cq}: at least {@code cqe} entries, optional channel, completion vector.
     *
     * @param cqe        the entries it must hold at least (1..max_cqe)
     * @param channel    the completion channel its events go to, or null for none
     * @param compVector the completion vector, 0..num_comp_vectors-1
     * @return the new CQ
     * @throws VerbsException EINVAL for a size or vector out of range
     */
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        return newCq(cqe, channel, compVector, -1);
    }

    private CompletionQueue newCq(int cqe, CompletionChannel channel, int compVector, int wcFlags) {
        ensureOpen();
        if (cqe < 1 || cqe > MAX_CQE) {
            throw VerbsException.einval("cqe " + cqe + " outside 1.." + MAX_CQE);
        }
        if (compVector < 0 || compVector >= query().numCompVectors) {
            throw VerbsException.einval("comp_vector " + compVector + " does not exist");
        }
        if (liveCqs.incrementAndGet() > MAX_CQ) {
            liveCqs.decrementAndGet();
            throw new VerbsException(Errno.ENOMEM, "too many CQs");
        }
        CompletionQueue cq = new CompletionQueue(this, cqe, channel, wcFlags);
        cqs.add(cq);
        return cq;
    }

    /**
     * {@code ibv_create_cq} without a channel, on vector 0: a CQ polled by the application.
     *
     * @param cqe the entries it must hold at least
     * @return the new CQ
     * @throws VerbsException EINVAL for a size out of range
     */
    public CompletionQueue createCq(int cqe) {
        return createCq(cqe, null, 0);
    }

    /**
     * {@code ibv_create_cq_ex}: a CQ whose completions carry the fields of {@code wcFlags}
     * ({@link WcFlagsEx}), polled with {@link CompletionQueue#ex()} (or {@link CompletionQueue#poll}).
     * A flag jrxe lacks fails with EOPNOTSUPP; bad sizes and vectors as {@link #createCq}.
     *
     * @param cqe        the entries it must hold at least
     * @param channel    the completion channel its events go to, or null
     * @param compVector the completion vector
     * @param wcFlags    the {@link WcFlagsEx} fields its completions carry
     * @return the new CQ
     * @throws VerbsException EOPNOTSUPP for a flag jrxe lacks; EINVAL as {@link #createCq}
     */
    public CompletionQueue createCqEx(int cqe, CompletionChannel channel, int compVector, int wcFlags) {
        if ((wcFlags & ~WcFlagsEx.SUPPORTED) != 0) {
            throw new VerbsException(Errno.EOPNOTSUPP, "wc_flags 0x" + Integer.toHexString(wcFlags & ~WcFlagsEx.SUPPORTED)
                + " not supported");
        }
        return newCq(cqe, channel, compVector, wcFlags);
    }

    private final AtomicInteger liveSrqs = new AtomicInteger();

    /** Counts a new SRQ against max_srq: ENOMEM beyond it. */
    void reserveSrq() {
        if (liveSrqs.incrementAndGet() > MAX_SRQ) {
            liveSrqs.decrementAndGet();
            throw new VerbsException(Errno.ENOMEM, "too many SRQs");
        }
    }

    void srqClosed() {
        liveSrqs.decrementAndGet();
    }

    /** An SRQ's limit was reached ({@code IBV_EVENT_SRQ_LIMIT_REACHED}). */
    void srqLimitReached(SharedReceiveQueue srq) {
        events.add(new AsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, null, null, 0, srq));
    }

    /** A CQ overflowed: the async CQ error event ({@code IBV_EVENT_CQ_ERR}). */
    void cqOverflowed(CompletionQueue cq) {
        events.add(new AsyncEvent(AsyncEventType.CQ_ERR, null, cq, 0));
    }

    void cqClosed(CompletionQueue cq) {
        cqs.remove(cq);
        liveCqs.decrementAndGet();
    }

    /** Counts a new QP against max_qp (its number comes from the engine). */
    void reserveQp() {
        if (liveQps.incrementAndGet() > MAX_QP) {
            liveQps.decrementAndGet();
            throw new VerbsException(Errno.ENOMEM, "too many QPs");
        }
    }

    /** Gives back a {@link #reserveQp} whose QP was refused after all. */
    void unreserveQp() {
        liveQps.decrementAndGet();
    }

    void qpCreated(QueuePair qp) {
        qps.put(qp.qpNum(), qp);
    }

    void qpClosed(QueuePair qp) {
        qps.remove(qp.qpNum());
        liveQps.decrementAndGet();
    }

    /**
     * {@code ibv_get_async_event} with a timeout; null when none came.
     *
     * @param timeout how long to wait
     * @param unit    its unit
     * @return the event, or null when none came in time
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public AsyncEvent getAsyncEvent(long timeout, TimeUnit unit) throws InterruptedException {
        return events.poll(timeout, unit);
    }

    /**
     * Next async event if one is waiting, else null.
     *
     * @return the event, or null
     */
    public AsyncEvent pollAsyncEvent() {
        return events.poll();
    }

    /**
     * The device's counters by name: rxe's hw_counters ({@code rdma statistic}), jrxe's own, the
     * link's. A live, read-only view.
     *
     * @return the counters' view (the same object every call)
     */
    public DeviceCounters counters() {
        return counterView;
    }

    /** Engine 0's transport counters (all of them for a device of one engine; {@link #counters()} sums every engine's). */
    TransportCounters transportCounters() {
        return engine.counters();
    }

    /** The link (packets, bytes, drops by reason). */
    Link link() {
        return link;
    }

    /** IllegalStateException once the device is closed: nothing of it may be used after. */
    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("device " + config.name + " is closed");
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** QPs of this PD not destroyed yet. */
    int qpsOf(ProtectionDomain pd) {
        int n = 0;
        for (QueuePair qp : qps.values()) {
            if (qp.pd() == pd) {
                n++;
            }
        }
        return n;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (dev.jrxe.Configuration.dumpCounters()) {
            StringBuilder sb = new StringBuilder(config.name).append(" counters:");
            for (int i = 0; i < TransportCounters.count(); i++) {
                String n = TransportCounters.name(i);
                sb.append(' ').append(n).append('=').append(counterView.get(n));
            }
            sb.append(" | link tx=").append(counterView.get("link_tx_packets"))
                .append(" rx=").append(counterView.get("link_rx_packets"))
                .append(" tx_calls=").append(counterView.get("link_tx_calls"))
                .append(" rx_calls=").append(counterView.get("link_rx_calls"));
            for (dev.jrxe.net.DropReason r : dev.jrxe.net.DropReason.values()) {
                long d = counterView.get("link_drop_" + r.name().toLowerCase(java.util.Locale.ROOT));
                if (d > 0) {
                    sb.append(" drop_").append(r.name().toLowerCase(java.util.Locale.ROOT)).append('=').append(d);
                }
            }
            System.err.println(sb);
        }
        mbean.thenAccept(DeviceMBean::unregister); // at once, or when its registration ends
        // as ibv_close_device releases a context's resources, in reverse order of dependence; each
        // is closed for good (any later use throws IllegalStateException)
        for (QueuePair qp : qps.values()) {
            closeQuietly(qp);
        }
        for (AutoCloseable c : pdChildren) {
            closeQuietly(c);
        }
        for (Engine e : engines) {
            e.close();
        }
        // unpin and forget every region, window and indirect key
        keys.deregisterAll();
        for (CompletionQueue cq : cqs) {
            closeQuietly(cq);
        }
        for (ProtectionDomain pd : pds) {
            closeQuietly(pd);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception | Error e) {
            // one resource's failure must not keep the others open; the device is going anyway
            if (e instanceof VirtualMachineError vme) {
                throw vme;
            }
        }
    }

    /** Translates the transport's events into verbs events. */
    private final class Events implements EventSink {
        @Override
        public void qpEvent(Qp qp, int type) {
            events.add(new AsyncEvent(type, qps.get(qp.qpn), null, 0));
        }
    }

    @Override
    public String toString() {
        return config.name + "@" + config.address.getHostAddress() + ":" + udpPort();
    }
}
