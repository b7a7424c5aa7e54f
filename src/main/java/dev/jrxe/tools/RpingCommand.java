package dev.jrxe.tools;

import dev.jrxe.cm.CmEvent;
import dev.jrxe.cm.CmEventType;
import dev.jrxe.cm.CmId;
import dev.jrxe.cm.ConnParam;
import dev.jrxe.cm.EventChannel;
import dev.jrxe.cm.ServiceIds;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.net.Links;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.VerbsException;
import dev.jrxe.verbs.WorkCompletion;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * rdma_cm's rping (librdmacm/examples/rping.c): connects with rdma_cm and, per iteration, the
 * client advertises its ping buffer (16 bytes: address, rkey, size), the server RDMA READs it,
 * answers "go ahead", the client advertises its pong buffer, the server RDMA WRITEs the data
 * back and answers "go ahead" again; with -V the client compares the two buffers. The exchange,
 * the MADs and the messages are rping's, so rping on Linux rxe and this are each other's peers.
 */
@Command(name = "rping", sortOptions = false, version = "jrxe 0.1.0",
    description = {"rdma_cm ping-pong of RDMA READ and WRITE, as librdmacm's rping."})
public final class RpingCommand implements Callable<Integer> {
    /** sizeof(stringify(INT_MAX)) + sizeof("rdma-ping-%d: "): 11 + 15. */
    static final int MIN_SIZE = 26;
    static final int MAX_SIZE = 65535;
    private static final int INFO = 16;
    private static final long WAIT_MS = 30_000;
    /** How long a step other than the server's wait for its client may take ({@link #WAIT_MS}; tests shorten it). */
    long waitMs = WAIT_MS;

    @Spec
    CommandSpec spec;

    // rping's -V is "validate": no standard -V for the version here
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Option(names = "--version", versionHelp = true, description = "print the version and exit")
    boolean version;

    @Option(names = "-s", description = "server side")
    boolean server;

    @Option(names = "-c", description = "client side")
    boolean client;

    @Option(names = "-a", paramLabel = "addr",
        description = "server: the address its device binds (default 127.0.0.1); client: the server's address")
    String addr;

    @Option(names = "-I", paramLabel = "addr", description = "client: source address (the device's; as --ip)")
    String source;

    @Option(converter = Converters.Port.class,
        names = "-p", paramLabel = "port", defaultValue = "7174", description = "rdma_cm port (default ${DEFAULT-VALUE})")
    int port;

    @Option(converter = Converters.NonNegative.class,
        names = "-C", paramLabel = "count", defaultValue = "0", description = "ping count, 0 = forever (default ${DEFAULT-VALUE})")
    int count;

    @Option(names = "-S", paramLabel = "size", defaultValue = "64", description = "ping data size (default ${DEFAULT-VALUE})")
    int size;

    @Option(names = "-v", description = "display ping data to stdout")
    boolean verbose;

    @Option(names = "-V", description = "validate ping data")
    boolean validate;

    @Option(names = "-d", description = "debug printfs")
    boolean debug;

    @Option(names = "-P", description = "persistent server mode: serve connection after connection")
    boolean persistent;

    @Option(converter = Converters.DeviceAddress.class,
        names = "--ip", description = "client: IPv4 address of the local jrxe device (default 127.0.0.1)")
    String ip;

    @Option(names = "--no-gso",
        description = "never send UDP GSO trains: every packet alone, as a capture on lo or veth shows it (docs/CAPTURE.md)")
    boolean noGso;

    @Option(converter = Converters.Port.class,
        names = "--udp-port", defaultValue = "4791", description = "UDP port of the devices (default ${DEFAULT-VALUE})")
    int udpPort;

    private PrintWriter out;
    private PrintWriter err;

    @Override
    public Integer call() throws Exception {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        Converters.require(spec, server != client, "exactly one of -s (server) and -c (client)");
        // rping's own words for -S, and its off-by-one upper bound
        Converters.require(spec, size >= MIN_SIZE && size <= MAX_SIZE,
            String.format("Invalid size %d (valid range is %d to %d)", size, MIN_SIZE, MAX_SIZE + 1));
        Converters.require(spec, !client || addr != null, "the client needs -a, the server's address");
        String local = server ? (addr == null ? "127.0.0.1" : addr) : (source != null ? source : ip != null ? ip : "127.0.0.1");
        try (Device dev = Device.open(DeviceConfig.of("jrxe0", local).udpPort(udpPort).noGso(noGso));
             EventChannel ch = new EventChannel();
             Arena arena = Arena.ofShared()) {
            return server ? runServer(dev, ch, arena) : runClient(dev, ch, arena);
        } catch (VerbsException e) {
            err.println("rping: " + e.getMessage());
            return 1;
        }
    }

    private void debug(String fmt, Object... args) {
        if (debug) {
            out.printf(fmt + "%n", args);
        }
    }

    /** One side's resources: PD, CQ, QP (16 sends, 2 receives, 1 SGE), rping's four buffers. */
    private final class Conn implements AutoCloseable {
        final CmId id;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemorySegment recvBuf;
        final MemorySegment sendBuf;
        final MemorySegment rdmaBuf;
        final MemorySegment startBuf;
        final MemoryRegion recvMr;
        final MemoryRegion sendMr;
        final MemoryRegion rdmaMr;
        final MemoryRegion startMr;
        final EventChannel ch;
        private final WorkCompletion[] wc = {new WorkCompletion()};

        Conn(CmId id, Device dev, EventChannel ch, Arena arena, boolean withStart) {
            this.id = id;
            this.ch = ch;
            pd = dev.allocPd();
            cq = dev.createCq(32);
            qp = id.createQp(pd, new QpInitAttr(QpType.RC, cq, cq, new QpCap(16, 2, 1, 1, 0)));
            recvBuf = arena.allocate(INFO, 8);
            sendBuf = arena.allocate(INFO, 8);
            rdmaBuf = arena.allocate(size, 8);
            int remote = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
            recvMr = pd.registerMemory(recvBuf, Access.LOCAL_WRITE);
            sendMr = pd.registerMemory(sendBuf, 0);
            rdmaMr = pd.registerMemory(rdmaBuf, remote);
            startBuf = withStart ? arena.allocate(size, 8) : null;
            startMr = withStart ? pd.registerMemory(startBuf, remote) : null;
        }

        void postRecv() {
            qp.postRecv(new RecvWr(1).sge(recvBuf.address(), INFO, recvMr.lkey()));
        }

        /** SEND of the 16-byte info block (address, rkey, size, big-endian) of {@code buf}. */
        void sendInfo(MemorySegment buf, MemoryRegion mr) {
            ValueLayout.OfLong l = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            ValueLayout.OfInt i = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            sendBuf.set(l, 0, buf.address());
            sendBuf.set(i, 8, mr.rkey());
            sendBuf.set(i, 12, size);
            sendGoAhead();
        }

        void sendGoAhead() {
            SendWr w = new SendWr(1).sge(sendBuf.address(), INFO, sendMr.lkey());
            w.opcode = WrOpcode.SEND;
            w.sendFlags = SendFlags.SIGNALED;
            qp.postSend(w);
        }

        void rdma(int opcode, long remoteAddr, int rkey, int len) {
            SendWr w = new SendWr(1).sge(rdmaBuf.address(), len, rdmaMr.lkey()).rdma(remoteAddr, rkey);
            w.opcode = opcode;
            w.sendFlags = SendFlags.SIGNALED;
            qp.postSend(w);
        }

        /**
         * Waits for a completion of {@code wanted} (RECV: reposts the receive), polling the CQ and
         * the CM: DISCONNECTED (printed as rping does) ends the wait with -1; a failed completion
         * with -2 (message printed). Returns the byte_len of a receive, 0 otherwise.
         */
        int await(int wanted) throws InterruptedException {
            long end = System.nanoTime() + waitMs * 1_000_000L;
            while (System.nanoTime() < end) {
                int n = cq.poll(wc);
                if (n > 0) {
                    WorkCompletion w = wc[0];
                    if (w.status != WcStatus.SUCCESS) {
                        if (w.status == WcStatus.WR_FLUSH_ERR) {
                            continue;
                        }
                        err.printf("cq completion failed status %d%n", w.status);
                        return -2;
                    }
                    if (w.opcode == WcOpcode.RECV) {
                        int len = w.byteLen;
                        if (len != INFO) {
                            err.printf("Received bogus data, size %d%n", len);
                            return -2;
                        }
                        postRecv();
                        if (wanted == WcOpcode.RECV) {
                            return len;
                        }
                    } else if (w.opcode == wanted) {
                        return 0;
                    }
                    continue;
                }
                CmEvent e = ch.getEvent(0, TimeUnit.MILLISECONDS);
                if (e != null) {
                    e.ack();
                    if (e.type() == CmEventType.DISCONNECTED) {
                        err.printf("%s DISCONNECT EVENT...%n", server ? "server" : "client");
                        return -1;
                    }
                    err.printf("cma event %s, error %d%n", CmEventType.str(e.type()), e.status());
                    return -2;
                }
                Thread.onSpinWait();
            }
            err.println("rping: no completion within " + waitMs / 1000 + " s");
            return -2;
        }

        @Override
        public void close() {
            id.close(); // and its QP
            for (MemoryRegion mr : new MemoryRegion[] {recvMr, sendMr, rdmaMr, startMr}) {
                if (mr != null) {
                    mr.close();
                }
            }
            cq.close();
            pd.close();
        }
    }

    private CmEvent expect(EventChannel ch, int type) throws InterruptedException {
        // a server waits for its client as long as rping does (rdma_get_cm_event blocks): forever
        CmEvent e = type == CmEventType.CONNECT_REQUEST ? ch.getEvent() : ch.getEvent(waitMs, TimeUnit.MILLISECONDS);
        if (e == null) {
            err.printf("rping: no %s within %d ms%n", CmEventType.str(type), waitMs);
            return null;
        }
        e.ack();
        if (e.type() != type) {
            err.printf("cma event %s, error %d%n", CmEventType.str(e.type()), e.status());
            return null;
        }
        return e;
    }

    // ------------------------------------------------------------------ server

    private int runServer(Device dev, EventChannel ch, Arena arena) throws InterruptedException {
        CmId listen = CmId.create(ch, dev, ServiceIds.PS_TCP);
        try {
            listen.bindAddr(dev.address(), port);
            listen.listen(3);
            debug("rping: listening on %s:%d", Links.formatAddress(dev.address()), port);
            int rc;
            do {
                CmEvent req = expect(ch, CmEventType.CONNECT_REQUEST);
                if (req == null) {
                    return 1;
                }
                debug("child cma %s", req.id());
                rc = serveOne(req.id(), dev, ch, arena);
            } while (persistent && rc == 0);
            return rc;
        } finally {
            listen.close();
        }
    }

    private int serveOne(CmId child, Device dev, EventChannel ch, Arena arena) throws InterruptedException {
        try (Conn c = new Conn(child, dev, ch, arena, false)) {
            c.postRecv();
            child.accept(null);
            if (expect(ch, CmEventType.ESTABLISHED) == null) {
                return 1;
            }
            ValueLayout.OfLong l = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            ValueLayout.OfInt i = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            while (true) {
                int r = c.await(WcOpcode.RECV); // the client's source buffer
                if (r < 0) {
                    return r == -1 ? disconnect(child) : 1;
                }
                long raddr = c.recvBuf.get(l, 0);
                int rkey = c.recvBuf.get(i, 8);
                int rlen = c.recvBuf.get(i, 12);
                debug("Received rkey %x addr %x len %d from peer", rkey, raddr, rlen);
                if (rlen < 0 || rlen > size) {
                    err.printf("rping: the peer's buffer of %d bytes is larger than -S %d%n", rlen, size);
                    return 1;
                }
                c.rdma(WrOpcode.RDMA_READ, raddr, rkey, rlen);
                if (c.await(WcOpcode.RDMA_READ) < 0) {
                    return 1;
                }
                if (verbose) {
                    out.printf("server ping data: %s%n", cString(c.rdmaBuf, size));
                }
                c.sendGoAhead();
                r = c.await(WcOpcode.RECV); // the client's sink buffer
                if (r < 0) {
                    return r == -1 ? disconnect(child) : 1;
                }
                raddr = c.recvBuf.get(l, 0);
                rkey = c.recvBuf.get(i, 8);
                int len = Math.min(size, cString(c.rdmaBuf, size).length() + 1);
                c.rdma(WrOpcode.RDMA_WRITE, raddr, rkey, len);
                if (c.await(WcOpcode.RDMA_WRITE) < 0) {
                    return 1;
                }
                c.sendGoAhead();
            }
        }
    }

    /** The peer disconnected: answer (DREP) and end this connection well. */
    private int disconnect(CmId id) {
        try {
            id.disconnect();
        } catch (VerbsException e) {
            // already down
        }
        return 0;
    }

    // ------------------------------------------------------------------ client

    private int runClient(Device dev, EventChannel ch, Arena arena) throws InterruptedException {
        int server;
        try {
            server = Links.toInt(addr);
        } catch (RuntimeException e) {
            out.printf("getaddrinfo failed (%s) - invalid hostname or IP address%n", addr);
            return 1;
        }
        CmId id = CmId.create(ch, dev, ServiceIds.PS_TCP);
        id.resolveAddr(0, server, port, 2000);
        if (expect(ch, CmEventType.ADDR_RESOLVED) == null) {
            id.close();
            return 1;
        }
        id.resolveRoute(2000);
        if (expect(ch, CmEventType.ROUTE_RESOLVED) == null) {
            id.close();
            return 1;
        }
        try (Conn c = new Conn(id, dev, ch, arena, true)) {
            c.postRecv();
            ConnParam p = new ConnParam();
            p.responderResources = 1;
            p.initiatorDepth = 1;
            p.retryCount = 7;
            p.rnrRetryCount = 7;
            id.connect(p);
            if (expect(ch, CmEventType.ESTABLISHED) == null) {
                err.println("connect error -1");
                return 1;
            }
            int start = 65;
            for (int ping = 0; count == 0 || ping < count; ping++) {
                byte[] head = ("rdma-ping-" + ping + ": ").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                int cc = Math.min(head.length, size);
                MemorySegment.copy(head, 0, c.startBuf, ValueLayout.JAVA_BYTE, 0, cc);
                int ch2 = start;
                for (int k = cc; k < size; k++) {
                    c.startBuf.set(ValueLayout.JAVA_BYTE, k, (byte) ch2);
                    if (++ch2 > 122) {
                        ch2 = 65;
                    }
                }
                if (++start > 122) {
                    start = 65;
                }
                c.startBuf.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
                c.sendInfo(c.startBuf, c.startMr);
                if (c.await(WcOpcode.RECV) < 0) { // "go ahead": the server read the ping
                    return 1;
                }
                c.sendInfo(c.rdmaBuf, c.rdmaMr);
                if (c.await(WcOpcode.RECV) < 0) { // "go ahead": the server wrote the pong
                    return 1;
                }
                if (validate && c.startBuf.asSlice(0, size).mismatch(c.rdmaBuf.asSlice(0, size)) >= 0) {
                    err.println("data mismatch!");
                    return 1;
                }
                if (verbose) {
                    out.printf("ping data: %s%n", cString(c.rdmaBuf, size));
                }
            }
            id.disconnect();
            CmEvent e = ch.getEvent(5, TimeUnit.SECONDS);
            if (e != null) {
                e.ack();
                if (e.type() == CmEventType.DISCONNECTED) {
                    err.println("client DISCONNECT EVENT...");
                }
            }
            return 0;
        }
    }

    /** The bytes of {@code buf} up to its first NUL (or {@code max}), as ASCII. */
    static String cString(MemorySegment buf, int max) {
        int n = 0;
        while (n < max && buf.get(ValueLayout.JAVA_BYTE, n) != 0) {
            n++;
        }
        return new String(buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), java.nio.charset.StandardCharsets.US_ASCII);
    }
}
