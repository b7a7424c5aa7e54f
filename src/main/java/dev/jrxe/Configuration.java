package dev.jrxe;

/**
 * Every tunable of jrxe in one place: the system property name and its default. The system
 * properties are only defaults: each link, memory, engine and SRD setting is per device, set on
 * its {@code DeviceConfig} (e.g. {@code jrxe.engine.ackHoldNanos} is
 * {@code DeviceConfig.ackHoldNanos}), which starts from the value here. The diagnostics
 * ({@code jrxe.trace}, {@code jrxe.traceErrors}, {@code jrxe.dumpCounters}) and the tools'
 * {@code jrxe.examples} are JVM-wide by nature. DeviceTuningTest checks the mapping.
 */
public final class Configuration {
    private Configuration() {
    }

    // ---------------------------------------------------------------- net (link)

    /** UDP port of RoCEv2. Tests may use another port; the wire always says 4791 by default. */
    public static final String PORT_PROP = "jrxe.port";
    public static final int PORT_DEFAULT = 4791;

    public static int port() {
        return Integer.getInteger(PORT_PROP, PORT_DEFAULT);
    }

    /** Link mode: AUTO (fastest that works), CHANNEL, MMSG or GSO; see dev.jrxe.net.LinkMode. */
    public static final String LINK_MODE_PROP = "jrxe.link.mode";
    public static final String LINK_MODE_DEFAULT = "AUTO";

    public static String linkMode() {
        return System.getProperty(LINK_MODE_PROP, LINK_MODE_DEFAULT);
    }

    /** Datagrams per batch: committed datagrams before an automatic flush, and per receive call. */
    public static final String LINK_BATCH_PROP = "jrxe.link.batch";
    public static final int LINK_BATCH_DEFAULT = 64;

    public static int linkBatch() {
        return Integer.getInteger(LINK_BATCH_PROP, LINK_BATCH_DEFAULT);
    }

    /** Largest UDP payload the link sends or accepts: 4096 bytes of RoCE payload plus headers. */
    public static final String LINK_MAX_DATAGRAM_PROP = "jrxe.link.maxDatagram";
    public static final int LINK_MAX_DATAGRAM_DEFAULT = 4096 + 128;

    public static int linkMaxDatagram() {
        return Integer.getInteger(LINK_MAX_DATAGRAM_PROP, LINK_MAX_DATAGRAM_DEFAULT);
    }

    /**
     * Whether a native link sends an RC packet's payload (1 KiB or more, in one SGE) from the
     * registered memory by {@code iovec} instead of copying it into the datagram's buffer first,
     * the memory held from the key check until the QP's requester has flushed; only where nothing
     * else reads the datagram (no capture, no send faults) and only for pinned memory of jrxe's
     * own allocator (docs/ARCHITECTURE.md, "The data path"; docs/BENCHMARKS.md, "Payloads sent
     * from where they lie").
     */
    public static final String LINK_SEND_BY_REFERENCE_PROP = "jrxe.link.sendByReference";
    public static final boolean LINK_SEND_BY_REFERENCE_DEFAULT = true;

    public static boolean linkSendByReference() {
        String v = System.getProperty(LINK_SEND_BY_REFERENCE_PROP);
        return v == null ? LINK_SEND_BY_REFERENCE_DEFAULT : Boolean.parseBoolean(v);
    }

    /** Socket send buffer (SO_SNDBUF; forced past wmem_max where the process may). */
    public static final String LINK_SEND_BUFFER_PROP = "jrxe.link.sendBuffer";
    public static final int LINK_SEND_BUFFER_DEFAULT = 4 << 20;

    public static int linkSendBuffer() {
        return Integer.getInteger(LINK_SEND_BUFFER_PROP, LINK_SEND_BUFFER_DEFAULT);
    }

    /** Socket receive buffer (SO_RCVBUF; forced past rmem_max where the process may). */
    public static final String LINK_RECEIVE_BUFFER_PROP = "jrxe.link.receiveBuffer";
    public static final int LINK_RECEIVE_BUFFER_DEFAULT = 8 << 20;

    public static int linkReceiveBuffer() {
        return Integer.getInteger(LINK_RECEIVE_BUFFER_PROP, LINK_RECEIVE_BUFFER_DEFAULT);
    }

    /** pcapng file every link of this JVM writes to (unset: no capture). */
    public static final String LINK_PCAP_PROP = "jrxe.link.pcap";

    public static String linkPcap() {
        return System.getProperty(LINK_PCAP_PROP);
    }

    /** Send-side fault injection, e.g. "drop=0.01,duplicate=0,reorder=0.02,depth=3,corrupt=0,seed=1". */
    public static final String LINK_TX_FAULTS_PROP = "jrxe.link.txFaults";
    /** Receive-side fault injection, same syntax as {@link #LINK_TX_FAULTS_PROP}. */
    public static final String LINK_RX_FAULTS_PROP = "jrxe.link.rxFaults";

    public static String linkTxFaults() {
        return System.getProperty(LINK_TX_FAULTS_PROP, "");
    }

    public static String linkRxFaults() {
        return System.getProperty(LINK_RX_FAULTS_PROP, "");
    }

    // ---------------------------------------------------------------- wire

    /** Largest RoCE payload a device accepts per packet (the largest IB MTU). */
    public static final String WIRE_MAX_PAYLOAD_PROP = "jrxe.wire.maxPayload";
    public static final int WIRE_MAX_PAYLOAD_DEFAULT = 4096;

    public static int wireMaxPayload() {
        return Integer.getInteger(WIRE_MAX_PAYLOAD_PROP, WIRE_MAX_PAYLOAD_DEFAULT);
    }

    // ---------------------------------------------------------------- memory

    /** Most memory regions one device (key table) holds; rxe's max_mr. */
    public static final String MEMORY_MAX_MR_PROP = "jrxe.memory.maxMr";
    public static final int MEMORY_MAX_MR_DEFAULT = 524287;

    public static int memoryMaxMr() {
        return Integer.getInteger(MEMORY_MAX_MR_PROP, MEMORY_MAX_MR_DEFAULT);
    }

    /** Most bytes one device may pin (pinned MRs); -1 leaves it to the kernel's RLIMIT_MEMLOCK. */
    public static final String MEMORY_PIN_LIMIT_PROP = "jrxe.memory.pinLimitBytes";
    public static final long MEMORY_PIN_LIMIT_DEFAULT = -1;

    public static long memoryPinLimitBytes() {
        return Long.getLong(MEMORY_PIN_LIMIT_PROP, MEMORY_PIN_LIMIT_DEFAULT);
    }

    /** An implicit ODP child (2 MiB) idle longer than this is reclaimed. */
    public static final String MEMORY_CHILD_IDLE_MS_PROP = "jrxe.memory.childIdleMillis";
    public static final long MEMORY_CHILD_IDLE_MS_DEFAULT = 30_000;

    public static long memoryChildIdleMillis() {
        return Long.getLong(MEMORY_CHILD_IDLE_MS_PROP, MEMORY_CHILD_IDLE_MS_DEFAULT);
    }

    /** Most live 2 MiB children one implicit ODP region keeps; beyond it the least recently used go. */
    public static final String MEMORY_MAX_LIVE_CHILDREN_PROP = "jrxe.memory.maxLiveChildren";
    public static final int MEMORY_MAX_LIVE_CHILDREN_DEFAULT = 4096;

    public static int memoryMaxLiveChildren() {
        return Integer.getInteger(MEMORY_MAX_LIVE_CHILDREN_PROP, MEMORY_MAX_LIVE_CHILDREN_DEFAULT);
    }

    // ---------------------------------------------------------------- transport

    /**
     * After an application thread drove a device's engine (poll or post), its background progress
     * thread stays away this long, so that the two do not fight over 2 cores. 1 ms: against 200 µs
     * it cut the p99 of a 4 KiB RC ping-pong from ~500 to ~120 µs at the same median
     * (`jrxe bench pingpong --modes rc --jvm-opt=-Djrxe.engine.appActiveNanos=...`, quiet machine).
     */
    public static final String ENGINE_APP_ACTIVE_NANOS_PROP = "jrxe.engine.appActiveNanos";
    public static final long ENGINE_APP_ACTIVE_NANOS_DEFAULT = 1_000_000;

    public static long engineAppActiveNanos() {
        return Long.getLong(ENGINE_APP_ACTIVE_NANOS_PROP, ENGINE_APP_ACTIVE_NANOS_DEFAULT);
    }

    /**
     * A polling application that found nothing this many times in a row yields its CPU once
     * (sched_yield), so that on a 2-core machine the peer process and the kernel get to run.
     * 0 (the default) disables yielding: in `jrxe bench pingpong` yielding every 8 empty polls
     * doubled the median round trip (81 -> 30 us at 8 bytes without it, under load).
     */
    public static final String ENGINE_POLL_YIELD_EVERY_PROP = "jrxe.engine.pollYieldEvery";
    public static final int ENGINE_POLL_YIELD_EVERY_DEFAULT = 0;

    public static int enginePollYieldEvery() {
        return Integer.getInteger(ENGINE_POLL_YIELD_EVERY_PROP, ENGINE_POLL_YIELD_EVERY_DEFAULT);
    }

    /**
     * Engines of a device: each a NIC of its own (socket, progress thread, lock) serving a share
     * of its QPs, the kernel steering each packet to its QP's engine (SO_REUSEPORT and a
     * classic-BPF program on the BTH's DestQP). 1 (the default) fits a 2-core machine where both
     * peers run; more lets one device use more cores (docs/ARCHITECTURE.md, "More cores").
     */
    public static final String ENGINES_PROP = "jrxe.engines";
    public static final int ENGINES_DEFAULT = 1;

    public static int engines() {
        return Integer.getInteger(ENGINES_PROP, ENGINES_DEFAULT);
    }

    /** Whether each open device registers its counters as an MBean (dev.jrxe:type=Device,name=...). */
    public static final String JMX_PROP = "jrxe.jmx";
    public static final boolean JMX_DEFAULT = true;

    public static boolean jmx() {
        String v = System.getProperty(JMX_PROP);
        return v == null ? JMX_DEFAULT : Boolean.parseBoolean(v);
    }

    // ---------------------------------------------------------------- tools

    /**
     * Where {@code jrxe example} finds the examples' sources; by default the {@code examples}
     * directory beside the directory that holds jrxe's jar (or classes), else {@code ./examples}.
     */
    public static final String EXAMPLES_DIR_PROP = "jrxe.examples";

    /** The examples directory named by {@link #EXAMPLES_DIR_PROP}, or null when unset. */
    public static String examplesDir() {
        return System.getProperty(EXAMPLES_DIR_PROP);
    }

    // ---------------------------------------------------------------- diagnostics

    /** Prints every RC responder and completer decision to stderr (very verbose; debugging only). */
    public static final String TRACE_PROP = "jrxe.trace";
    public static final boolean TRACE_DEFAULT = false;

    public static boolean trace() {
        return Boolean.getBoolean(TRACE_PROP);
    }

    /** Prints unexpected transport errors (a QP moved to ERR by an exception) to stderr; implied by jrxe.trace. */
    public static final String TRACE_ERRORS_PROP = "jrxe.traceErrors";
    public static final boolean TRACE_ERRORS_DEFAULT = false;

    public static boolean traceErrors() {
        return trace() || Boolean.getBoolean(TRACE_ERRORS_PROP);
    }

    /** Prints a device's counters (transport and link) to stderr when it closes. */
    public static final String DUMP_COUNTERS_PROP = "jrxe.dumpCounters";
    public static final boolean DUMP_COUNTERS_DEFAULT = false;

    public static boolean dumpCounters() {
        return Boolean.getBoolean(DUMP_COUNTERS_PROP);
    }

    /**
     * Idle rounds the background thread makes, each yielding the CPU to any thread that wants it,
     * before it sleeps in the kernel. Yielding, not spinning: `rc-pingpong -e -n 5000` measured
     * ~300 usec/iter with 64 spinning rounds (the application thread an event woke waited for a
     * core while both peers' progress threads spun), 117 with none, 111-115 with 64 yielding ones.
     */
    public static final String ENGINE_SPIN_ROUNDS_PROP = "jrxe.engine.spinRounds";
    public static final int ENGINE_SPIN_ROUNDS_DEFAULT = 64;

    public static int engineSpinRounds() {
        return Integer.getInteger(ENGINE_SPIN_ROUNDS_PROP, ENGINE_SPIN_ROUNDS_DEFAULT);
    }

    /** Longest the idle background thread sleeps before it looks at timers again. */
    public static final String ENGINE_MAX_SLEEP_NANOS_PROP = "jrxe.engine.maxSleepNanos";
    public static final long ENGINE_MAX_SLEEP_NANOS_DEFAULT = 1_000_000;

    public static long engineMaxSleepNanos() {
        return Long.getLong(ENGINE_MAX_SLEEP_NANOS_PROP, ENGINE_MAX_SLEEP_NANOS_DEFAULT);
    }

    /**
     * A thread that waits for a completion event ({@code CompletionChannel.getEvent}) serves its
     * device meanwhile, sleeping in poll(2) on the device's socket itself, so that the packet that
     * brings the event wakes that thread, not the progress thread that would then wake it: one
     * wake-up per message instead of two (rc-pingpong -e, docs/BENCHMARKS.md). False: the thread
     * parks and the progress thread serves the device, as before.
     */
    public static final String ENGINE_WAIT_SERVES_PROP = "jrxe.engine.waitServes";
    public static final boolean ENGINE_WAIT_SERVES_DEFAULT = true;

    public static boolean engineWaitServes() {
        String v = System.getProperty(ENGINE_WAIT_SERVES_PROP);
        return v == null ? ENGINE_WAIT_SERVES_DEFAULT : Boolean.parseBoolean(v);
    }

    /**
     * Longest an ACK that only acknowledges completed receives waits for the application's answer
     * (or, probing, for the requester's next message) when an application thread drives the
     * engine, so that answer and ACK leave in one system call; 0: never hold (transport.AckHold).
     */
    public static final String ENGINE_ACK_HOLD_NANOS_PROP = "jrxe.engine.ackHoldNanos";
    public static final long ENGINE_ACK_HOLD_NANOS_DEFAULT = 20_000;

    public static long engineAckHoldNanos() {
        return Long.getLong(ENGINE_ACK_HOLD_NANOS_PROP, ENGINE_ACK_HOLD_NANOS_DEFAULT);
    }

    /**
     * Once a requester has shown that it does not wait for ACKs (it sent again while one was
     * owed), one ACK covers its messages of up to this long (and at most 16); 0: never
     * (transport.AckHold).
     */
    public static final String ENGINE_LAZY_ACK_NANOS_PROP = "jrxe.engine.lazyAckNanos";
    public static final long ENGINE_LAZY_ACK_NANOS_DEFAULT = 100_000;

    public static long engineLazyAckNanos() {
        return Long.getLong(ENGINE_LAZY_ACK_NANOS_PROP, ENGINE_LAZY_ACK_NANOS_DEFAULT);
    }

    // ---------------------------------------------------------------- verbs / device

    /** SRD: UDP source ports (paths) each SRD QP spreads its packets over (1..16). */
    public static final String SRD_PATHS_PROP = "jrxe.srd.paths";
    public static final int SRD_PATHS_DEFAULT = 4;

    public static int srdPaths() {
        return Math.max(1, Math.min(16, Integer.getInteger(SRD_PATHS_PROP, SRD_PATHS_DEFAULT)));
    }

    /**
     * SRD: how long a packet may stay unanswered before its sender gives the peer up and every
     * request to it still outstanding completes with RETRY_EXC_ERR (docs/SRD.md §5).
     */
    public static final String SRD_TIMEOUT_MILLIS_PROP = "jrxe.srd.timeoutMillis";
    public static final long SRD_TIMEOUT_MILLIS_DEFAULT = 500;

    public static long srdTimeoutMillis() {
        return Math.max(1, Long.getLong(SRD_TIMEOUT_MILLIS_PROP, SRD_TIMEOUT_MILLIS_DEFAULT));
    }

    /** SRD: most peer contexts an SRD QP keeps on each side (requester, responder). */
    public static final String SRD_MAX_PEERS_PROP = "jrxe.srd.maxPeers";
    public static final int SRD_MAX_PEERS_DEFAULT = 4096;

    public static int srdMaxPeers() {
        return Math.max(1, Integer.getInteger(SRD_MAX_PEERS_PROP, SRD_MAX_PEERS_DEFAULT));
    }
}
