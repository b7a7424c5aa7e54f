package dev.jrxe.verbs;

import dev.jrxe.Configuration;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;

/**
 * How to open a {@link Device} ({@code ibv_open_device} takes none: a jrxe device is made, not
 * found): its name, IPv4 address and UDP port, link options (pcap, faults, GSO) and every
 * per-device tunable (memory, progress thread, ACK hold, SRD), each starting at its
 * {@code jrxe.*} system property or default. A fluent builder, not thread safe; {@link Device#open}
 * reads it once.
 *
 * <pre>{@code
 * Device dev = Device.open(DeviceConfig.of("jrxe0", "127.0.0.2").udpPort(4791).maxMr(1024));
 * }</pre>
 */
public final class DeviceConfig {
    private DeviceConfig() {
    }

    String name = "jrxe0";
    Inet4Address address;
    int udpPort = Configuration.port();
    Path pcap;
    String linkMode;
    double dropRate;
    double duplicateRate;
    double reorderRate;
    int reorderDepth = 3;
    double corruptRate;
    long faultSeed = 1;
    int activeMtu = 4096;
    boolean manualProgress;
    java.util.function.LongSupplier clock = System::nanoTime;
    long seed;
    dev.jrxe.net.Link link;
    boolean privilegedQkey;
    boolean noGso;
    boolean detached;
    // link: 0 = the link's own default (its Configuration property)
    int linkBatch;
    int maxDatagram;
    int sendBufferBytes;
    int receiveBufferBytes;
    // memory and engine: each starts at its Configuration property (or default)
    int maxMr = Configuration.memoryMaxMr();
    long pinLimitBytes = Configuration.memoryPinLimitBytes();
    long odpChildIdleNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Configuration.memoryChildIdleMillis());
    int odpMaxLiveChildren = Configuration.memoryMaxLiveChildren();
    long appActiveNanos = Configuration.engineAppActiveNanos();
    int spinRounds = Configuration.engineSpinRounds();
    long maxSleepNanos = Configuration.engineMaxSleepNanos();
    int pollYieldEvery = Configuration.enginePollYieldEvery();
    boolean waitServes = Configuration.engineWaitServes();
    long ackHoldNanos = Configuration.engineAckHoldNanos();
    long lazyAckNanos = Configuration.engineLazyAckNanos();
    int srdPaths = Configuration.srdPaths();
    long srdTimeoutNanos = Configuration.srdTimeoutMillis() * 1_000_000L;
    int srdMaxPeers = Configuration.srdMaxPeers();
    int maxPayload = Configuration.wireMaxPayload();
    boolean jmx = Configuration.jmx();
    int engines = Configuration.engines();
    /** {@link #engines} was called (else an injected link, a simulation's, keeps one engine whatever jrxe.engines says). */
    boolean enginesSet;

    /**
     * A configuration for a device named {@code name} on the IPv4 {@code address} (each device
     * its own address; any of 127.0.0.0/8 works without setup), every other setting its default.
     *
     * @param name    the device's name ({@code ibv_get_device_name}; in counters, MBeans, thread names)
     * @param address an IPv4 address of this machine, or a host name that resolves to one
     * @return the configuration, to adjust with the setters below
     * @throws VerbsException EINVAL when the address is not IPv4 or does not resolve
     */
    public static DeviceConfig of(String name, String address) {
        try {
            InetAddress a = InetAddress.getByName(address);
            if (!(a instanceof Inet4Address v4)) {
                throw VerbsException.einval("jrxe devices bind IPv4 addresses: " + address);
            }
            DeviceConfig c = new DeviceConfig();
            c.name = name;
            c.address = v4;
            return c;
        } catch (UnknownHostException e) {
            throw VerbsException.einval("bad address " + address);
        }
    }

    /**
     * The UDP port the device binds and sends to: 4791 by RoCEv2 ({@code jrxe.port}); tests use others.
     *
     * @param port the UDP port (1..65535); both ends of a connection must use the same
     * @return this configuration
     */
    public DeviceConfig udpPort(int port) {
        this.udpPort = port;
        return this;
    }

    /**
     * Writes every packet sent and received to this pcapng file.
     *
     * @param file the pcapng file to create (overwritten)
     * @return this configuration
     */
    public DeviceConfig pcap(Path file) {
        this.pcap = file;
        return this;
    }

    /**
     * Link mode: AUTO (default), CHANNEL, MMSG or GSO.
     *
     * @param mode {@code AUTO}, {@code CHANNEL}, {@code MMSG} or {@code GSO} (case does not matter)
     * @return this configuration
     */
    public DeviceConfig linkMode(String mode) {
        this.linkMode = mode;
        return this;
    }

    /**
     * Fault injection on what this device's link sends (drop, duplicate, reorder probabilities).
     *
     * @param drop probability (0..1) that a sent datagram is dropped
     * @param duplicate probability (0..1) that it is sent twice
     * @param reorder probability (0..1) that it is held back behind later ones
     * @param seed seed of the random draws, so that a run repeats
     * @return this configuration
     */
    public DeviceConfig faults(double drop, double duplicate, double reorder, long seed) {
        this.dropRate = drop;
        this.duplicateRate = duplicate;
        this.reorderRate = reorder;
        this.faultSeed = seed;
        return this;
    }

    /**
     * Corrupts what this device's link sends, for tests of the ICRC check.
     *
     * @param rate probability (0..1) that a sent datagram has a byte flipped (its ICRC then fails at the peer)
     * @return this configuration
     */
    public DeviceConfig corrupt(double rate) {
        this.corruptRate = rate;
        return this;
    }

    /**
     * Active MTU of the port in bytes (256..4096), standing in for the netdev MTU.
     *
     * @param bytes the MTU in bytes, 256..4096
     * @return this configuration
     */
    public DeviceConfig activeMtu(int bytes) {
        this.activeMtu = bytes;
        return this;
    }

    /**
     * No progress thread: the device runs only when its application drives it
     * ({@link Device#progress()}, posting, polling), like libfabric's manual progress (a post sends;
     * when no full cycle has run for {@link #appActiveNanos(long)}, it receives and runs timers
     * too). For programs
     * that want every step on their own thread, and for the simulator, which runs several devices
     * in one thread.
     *
     * @return this configuration
     */
    public DeviceConfig manualProgress() {
        this.manualProgress = true;
        return this;
    }

    /**
     * The nanosecond clock every timer of the device reads (retransmit, RNR, ACK hold, ODP idle
     * reclaim); default {@code System::nanoTime}. The simulator gives a virtual clock.
     *
     * @param nanos the clock, in nanoseconds
     * @return this configuration
     */
    public DeviceConfig clock(java.util.function.LongSupplier nanos) {
        this.clock = java.util.Objects.requireNonNull(nanos, "clock");
        return this;
    }

    /**
     * Seeds what the device draws at random (QPNs, the 8-bit part of memory keys), so that a run
     * repeats exactly; default 0: unpredictable ({@code SecureRandom}), which is what a device on a
     * network should be (docs/SECURITY.md).
     *
     * @param seed seed of the random draws, so that a run repeats
     * @return this configuration
     */
    public DeviceConfig seed(long seed) {
        this.seed = seed;
        return this;
    }

    /** A link to use instead of opening a UDP socket (the simulator's in-memory network). */
    DeviceConfig link(dev.jrxe.net.Link link) {
        this.link = link;
        return this;
    }

    /**
     * Never sends UDP GSO trains (the AUTO and GSO link modes become MMSG, or CHANNEL where FFM is
     * not available): every datagram goes to the kernel alone, so a capture on lo or a veth, which
     * sees GSO trains whole (docs/CAPTURE.md), shows each RoCE packet as the wire carries it.
     *
     * @param noGso true: no GSO trains
     * @return this configuration
     */
    public DeviceConfig noGso(boolean noGso) {
        this.noGso = noGso;
        return this;
    }

    /**
     * Opens the device for queries only ({@code ibv_devinfo}'s use): its link binds no socket,
     * drops whatever is sent and receives nothing, so the query works while another process holds
     * the address and port. Attributes are those of the same device opened normally.
     *
     * @return this configuration
     */
    public DeviceConfig detached() {
        this.detached = true;
        return this;
    }

    /**
     * Lets QPs of this device take a controlled Q_Key (high bit set, e.g. 0x80000000), as the
     * kernel allows a process with CAP_NET_RAW or after {@code rdma system set privileged-qkey on};
     * default false: modify_qp with such a Q_Key fails with EPERM.
     *
     * @param allowed true: controlled Q_Keys are allowed
     * @return this configuration
     */
    public DeviceConfig privilegedQkey(boolean allowed) {
        this.privilegedQkey = allowed;
        return this;
    }

    boolean privilegedQkey() {
        return privilegedQkey;
    }

    // ------------------------------------------------------------ tuning (defaults: Configuration)

    private static long positive(String what, long v) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + v);
        }
        return v;
    }

    private static long notNegative(String what, long v) {
        if (v < 0) {
            throw new IllegalArgumentException(what + " must not be negative: " + v);
        }
        return v;
    }

    /** {@code v}, unless it is above {@code max}: then IllegalArgumentException. */
    private static long atMost(String what, long v, long max) {
        if (v > max) {
            throw new IllegalArgumentException(what + " must be at most " + max + ": " + v);
        }
        return v;
    }

    /**
     * Datagrams per {@code sendmmsg}/{@code recvmmsg} call ({@code jrxe.link.batch}).
     *
     * @param datagrams datagrams per call (at least 1)
     * @return this configuration
     */
    public DeviceConfig linkBatch(int datagrams) {
        this.linkBatch = (int) positive("linkBatch", datagrams);
        return this;
    }

    /**
     * Largest UDP datagram the link receives, bytes ({@code jrxe.link.maxDatagram}).
     *
     * @param bytes bytes (positive)
     * @return this configuration
     */
    public DeviceConfig maxDatagram(int bytes) {
        this.maxDatagram = (int) positive("maxDatagram", bytes);
        return this;
    }

    /**
     * The socket's SO_SNDBUF, bytes ({@code jrxe.link.sendBuffer}).
     *
     * @param bytes bytes (positive; the kernel may cap it at net.core.wmem_max)
     * @return this configuration
     */
    public DeviceConfig sendBufferBytes(int bytes) {
        this.sendBufferBytes = (int) positive("sendBufferBytes", bytes);
        return this;
    }

    /**
     * The socket's SO_RCVBUF, bytes ({@code jrxe.link.receiveBuffer}).
     *
     * @param bytes bytes (positive; the kernel may cap it at net.core.rmem_max)
     * @return this configuration
     */
    public DeviceConfig receiveBufferBytes(int bytes) {
        this.receiveBufferBytes = (int) positive("receiveBufferBytes", bytes);
        return this;
    }

    /**
     * Most memory regions at once; beyond it registration fails with ENOMEM ({@code jrxe.memory.maxMr}).
     *
     * @param regions most regions (at least 1)
     * @return this configuration
     */
    public DeviceConfig maxMr(int regions) {
        this.maxMr = (int) positive("maxMr", regions);
        return this;
    }

    /**
     * Most bytes pinned at once by this device's regions, -1 for only the kernel's RLIMIT_MEMLOCK
     * ({@code jrxe.memory.pinLimitBytes}).
     *
     * @param bytes bytes, or -1
     * @return this configuration
     */
    public DeviceConfig pinLimitBytes(long bytes) {
        if (bytes < -1) {
            throw new IllegalArgumentException("pinLimitBytes must be -1 or more: " + bytes);
        }
        this.pinLimitBytes = bytes;
        return this;
    }

    /**
     * Implicit-ODP children idle this long are reclaimed ({@code jrxe.memory.childIdleMillis}).
     *
     * @param idle the idle time (0 or more)
     * @return this configuration
     */
    public DeviceConfig odpChildIdle(java.time.Duration idle) {
        this.odpChildIdleNanos = notNegative("odpChildIdle", idle.toNanos());
        return this;
    }

    /**
     * Most live 2 MiB children per implicit-ODP region, least recently used reclaimed first ({@code jrxe.memory.maxLiveChildren}).
     *
     * @param children most children (at least 1)
     * @return this configuration
     */
    public DeviceConfig odpMaxLiveChildren(int children) {
        this.odpMaxLiveChildren = (int) positive("odpMaxLiveChildren", children);
        return this;
    }

    /**
     * How long after an application thread last drove the device its progress thread stays out
     * of the way ({@code jrxe.engine.appActiveNanos}).
     *
     * @param nanos nanoseconds (positive, at most 100 ms)
     * @return this configuration
     */
    public DeviceConfig appActiveNanos(long nanos) {
        this.appActiveNanos = atMost("appActiveNanos", positive("appActiveNanos", nanos), 100_000_000);
        return this;
    }

    /**
     * Empty rounds the progress thread makes (each yielding the CPU) before it sleeps in poll(2)
     * ({@code jrxe.engine.spinRounds}).
     *
     * @param rounds rounds (0 or more)
     * @return this configuration
     */
    public DeviceConfig spinRounds(int rounds) {
        this.spinRounds = (int) notNegative("spinRounds", rounds);
        return this;
    }

    /**
     * The longest sleep of an idle progress thread ({@code jrxe.engine.maxSleepNanos}).
     *
     * @param nanos nanoseconds (positive, at most 1 s)
     * @return this configuration
     */
    public DeviceConfig maxSleepNanos(long nanos) {
        this.maxSleepNanos = atMost("maxSleepNanos", positive("maxSleepNanos", nanos), 1_000_000_000);
        return this;
    }

    /**
     * A thread polling an empty CQ yields every this many empty polls, 0 never ({@code jrxe.engine.pollYieldEvery}).
     *
     * @param polls empty polls between yields (0: never yield)
     * @return this configuration
     */
    public DeviceConfig pollYieldEvery(int polls) {
        this.pollYieldEvery = (int) notNegative("pollYieldEvery", polls);
        return this;
    }

    /**
     * Whether a thread waiting for a completion event serves the device meanwhile, sleeping in
     * poll(2) on its socket itself (one wake-up per message), or parks while the progress thread
     * serves it ({@code jrxe.engine.waitServes}, default true). A device of more than one engine,
     * or without a progress thread ({@link #manualProgress()}), always parks, as a virtual thread does.
     *
     * @param serves true to serve while waiting
     * @return this configuration
     */
    public DeviceConfig waitServes(boolean serves) {
        this.waitServes = serves;
        return this;
    }

    /**
     * How long an owed ACK may wait for the application's answer to ride with, 0 never ({@code jrxe.engine.ackHoldNanos}).
     *
     * @param nanos nanoseconds (0 .. 1 ms)
     * @return this configuration
     */
    public DeviceConfig ackHoldNanos(long nanos) {
        this.ackHoldNanos = atMost("ackHoldNanos", notNegative("ackHoldNanos", nanos), 1_000_000);
        return this;
    }

    /**
     * How long one coalesced ACK may wait for more messages, 0 no lazy ACKs ({@code jrxe.engine.lazyAckNanos}).
     *
     * @param nanos nanoseconds (0 .. 10 ms)
     * @return this configuration
     */
    public DeviceConfig lazyAckNanos(long nanos) {
        this.lazyAckNanos = atMost("lazyAckNanos", notNegative("lazyAckNanos", nanos), 10_000_000);
        return this;
    }

    /**
     * UDP source ports (paths) an SRD QP spreads its packets over, 1..16 ({@code jrxe.srd.paths}).
     *
     * @param paths paths (1..16)
     * @return this configuration
     */
    public DeviceConfig srdPaths(int paths) {
        if (paths < 1 || paths > 16) {
            throw new IllegalArgumentException("srdPaths must be 1..16: " + paths);
        }
        this.srdPaths = paths;
        return this;
    }

    /**
     * How long an SRD packet may stay unanswered before its peer is given up ({@code jrxe.srd.timeoutMillis}).
     *
     * @param timeout the timeout (positive, at most an hour)
     * @return this configuration
     */
    public DeviceConfig srdTimeout(java.time.Duration timeout) {
        this.srdTimeoutNanos = atMost("srdTimeout", positive("srdTimeout", timeout.toNanos()), 3_600_000_000_000L);
        return this;
    }

    /**
     * Most peers an SRD QP keeps state for ({@code jrxe.srd.maxPeers}).
     *
     * @param peers most peers (at least 1)
     * @return this configuration
     */
    public DeviceConfig srdMaxPeers(int peers) {
        this.srdMaxPeers = (int) positive("srdMaxPeers", peers);
        return this;
    }

    /**
     * Largest RoCE payload accepted per packet, 256..65536 bytes ({@code jrxe.wire.maxPayload}).
     *
     * @param bytes bytes, 256..65536
     * @return this configuration
     */
    public DeviceConfig maxPayload(int bytes) {
        if (bytes < 256 || bytes > 65536) {
            throw new IllegalArgumentException("maxPayload must be 256..65536: " + bytes);
        }
        this.maxPayload = bytes;
        return this;
    }

    /**
     * Registers the device's counters as an MBean ({@code jrxe.jmx}, default true).
     *
     * @param register false: no MBean
     * @return this configuration
     */
    public DeviceConfig jmx(boolean register) {
        this.jmx = register;
        return this;
    }

    /**
     * How many engines the device runs ({@code jrxe.engines}, default 1): each has its own socket
     * on the device's address and port (SO_REUSEPORT), its own progress thread and lock, and
     * serves the QPs whose numbers the kernel steers to it (DestQP modulo K, a classic-BPF
     * program). A new QP goes to the engine of its CQs or SRQ when some QP already uses them,
     * else to the engine with the fewest QPs; QPs that share a CQ or an SRQ therefore share an
     * engine (give QPs CQs of their own to spread them). More than one needs a native link (not
     * {@code linkMode("channel")}), no capture file and no injected link.
     *
     * @param k engines, 1 to 16
     * @return this configuration
     */
    public DeviceConfig engines(int k) {
        this.engines = (int) atMost("engines", positive("engines", k), dev.jrxe.net.QpSteering.MAX_ENGINES);
        this.enginesSet = true;
        return this;
    }

    /** The engine's tuning as this configuration sets it. */
    dev.jrxe.transport.EngineTuning tuning() {
        return new dev.jrxe.transport.EngineTuning(appActiveNanos, spinRounds, maxSleepNanos, pollYieldEvery,
            ackHoldNanos, lazyAckNanos, srdPaths, srdTimeoutNanos, srdMaxPeers, maxPayload, waitServes);
    }

    /** The memory layer's settings as this configuration sets them. */
    dev.jrxe.memory.MemoryConfig memory() {
        return new dev.jrxe.memory.MemoryConfig(maxMr, pinLimitBytes, odpChildIdleNanos, odpMaxLiveChildren, clock);
    }

    /** {@return the device's name} */
    public String name() {
        return name;
    }

    /** {@return the device's IPv4 address} */
    public Inet4Address address() {
        return address;
    }
}
