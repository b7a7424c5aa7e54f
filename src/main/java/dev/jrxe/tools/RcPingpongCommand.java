package dev.jrxe.tools;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.SendOps;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.memory.Access;
import dev.jrxe.memory.Advice;
import dev.jrxe.memory.OdpCaps;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.CompletionChannel;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.CqEx;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceAttr;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpAttr;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpEx;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.Sge;
import dev.jrxe.verbs.VerbsException;
import dev.jrxe.verbs.WcFlagsEx;
import dev.jrxe.verbs.WorkCompletion;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jrxe rc-pingpong}: {@code ibv_rc_pingpong} over a jrxe device, with its options, defaults,
 * TCP exchange (52-byte "LID:QPN:PSN:GID" messages, then "done"), QP transitions, messages and
 * output lines, so that either side can face the real tool.
 *
 * <p>Deviations, all because jrxe is a RoCE-only library device: {@code -g} defaults to 1 (the
 * IPv4-mapped GID) instead of -1, {@code --ip}/{@code --udp-port} say where the device lives, the
 * client retries the TCP connect for a few seconds (the server JVM may still be starting), and
 * waiting for a CQ event with {@code -e} gives up after {@link #EVENT_TIMEOUT_SECONDS}.
 */
@Command(name = "rc-pingpong", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"RC SEND ping-pong like ibv_rc_pingpong.",
        "Without SERVER it starts a server and waits for a connection; with SERVER it connects to it."})
public final class RcPingpongCommand implements Callable<Integer> {
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;
    /** sizeof "0000:000000:000000:00000000000000000000000000000000" in C: 51 characters and the NUL. */
    static final int MSG_SIZE = 52;
    /** sizeof "done": four characters and the NUL. */
    static final int DONE_SIZE = 5;
    static final int PAGE_SIZE = 4096;
    static final long EVENT_TIMEOUT_SECONDS = 30;
    private static final int CONNECT_ATTEMPTS = 50;
    private static final long CONNECT_RETRY_MILLIS = 100;

    @CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "server to connect to (client mode)")
    String servername;

    @Option(names = {"-p", "--port"}, description = "listen on/connect to TCP port (default ${DEFAULT-VALUE})",
        defaultValue = "18515")
    int port;

    @Option(names = {"-d", "--ib-dev"}, description = "use device DEV (default ${DEFAULT-VALUE})",
        paramLabel = "DEV", defaultValue = "jrxe0")
    String ibDev;

    @Option(names = {"-i", "--ib-port"}, description = "use port PORT of the device (default ${DEFAULT-VALUE})",
        paramLabel = "PORT", defaultValue = "1")
    int ibPort;

    @Option(names = {"-s", "--size"}, description = "size of message to exchange (default ${DEFAULT-VALUE})",
        defaultValue = "4096")
    int size;

    @Option(names = {"-m", "--mtu"}, description = "path MTU (default ${DEFAULT-VALUE})", defaultValue = "1024")
    int mtu;

    @Option(names = {"-r", "--rx-depth"}, description = "number of receives to post at a time (default ${DEFAULT-VALUE})",
        paramLabel = "DEP", defaultValue = "500")
    int rxDepth;

    @Option(names = {"-n", "--iters"}, description = "number of exchanges (default ${DEFAULT-VALUE})",
        defaultValue = "1000")
    int iters;

    @Option(names = {"-l", "--sl"}, description = "service level value (default ${DEFAULT-VALUE})", defaultValue = "0")
    int sl;

    @Option(names = {"-e", "--events"}, description = "sleep on CQ events (default poll)")
    boolean useEvents;

    @Option(names = {"-g", "--gid-idx"}, paramLabel = "IDX", defaultValue = "1",
        description = "local port gid index (default ${DEFAULT-VALUE}, the IPv4-mapped RoCEv2 GID; unlike "
            + "ibv_rc_pingpong's -1, because jrxe is RoCE-only and always needs a GID)")
    int gidx;

    @Option(names = {"-o", "--odp"}, description = "use on demand paging")
    boolean odp;

    @Option(names = {"-O", "--iodp"}, description = "use implicit on demand paging")
    boolean implicitOdp;

    @Option(names = {"-P", "--prefetch"}, description = "prefetch an ODP MR")
    boolean prefetch;

    @Option(names = {"-t", "--ts"}, description = "get CQE with timestamp")
    boolean useTs;

    @Option(names = {"-c", "--chk"}, description = "validate received buffer")
    boolean validate;

    @Option(names = {"-N", "--new_send"}, description = "use new post send WR API")
    boolean newSend;

    @Option(names = "--ip", description = "IPv4 address of the local jrxe device (default ${DEFAULT-VALUE})",
        defaultValue = "127.0.0.1")
    String ip;

    @Option(names = "--udp-port", description = "UDP port of both devices (default ${DEFAULT-VALUE}, RoCEv2)",
        defaultValue = "4791")
    int udpPort;

    @Option(names = "--pcap", paramLabel = "FILE", description = "write every RoCE packet this device sends and "
        + "receives to FILE (pcapng, Wireshark decodes it as RoCEv2)")
    java.nio.file.Path pcap;

    private PrintWriter out;
    private PrintWriter err;

    /** One side's address as exchanged over TCP. */
    record Dest(int lid, int qpn, int psn, Gid gid) {
        /** The text ibv_rc_pingpong sends: "%04x:%06x:%06x:%s" with the GID as 32 hex digits. */
        String message() {
            return String.format("%04x:%06x:%06x:%s", lid, qpn, psn, gid.toWireString());
        }

        /** The 52 bytes on the wire: the message, NUL-padded. */
        byte[] encode() {
            byte[] wire = new byte[MSG_SIZE];
            byte[] b = message().getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(b, 0, wire, 0, Math.min(b.length, MSG_SIZE - 1));
            return wire;
        }

        /** Parses what sscanf("%x:%x:%x:%s") reads from the 52 bytes; null if they are not a message. */
        static Dest decode(byte[] wire) {
            int n = 0;
            while (n < wire.length && wire[n] != 0) {
                n++;
            }
            String[] f = new String(wire, 0, n, StandardCharsets.US_ASCII).split(":", 4);
            try {
                if (f.length != 4 || f[3].length() < 32) {
                    return null;
                }
                return new Dest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                    Gid.fromWireString(f[3].substring(0, 32)));
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }

    @Override
    public Integer call() throws Exception {
        try (JfrOption.Session recording = jfr.start(spec.commandLine().getErr())) {
            return execute();
        }
    }

    private Integer execute() throws Exception {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        try {
            return validateOptions() ? runOnDevice() : 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** The checks ibv_rc_pingpong makes before it opens the device; on failure it prints usage. */
    private boolean validateOptions() {
        if (port < 0 || port > 65535 || ibPort < 1 || Mtu.fromBytes(mtu) < 0 || size < 0 || rxDepth < 1
            || iters < 0) {
            spec.commandLine().usage(out);
            return false;
        }
        if (implicitOdp) {
            odp = true;
        }
        if (!odp && prefetch) {
            err.println("prefetch is valid only with on-demand memory region");
            return false;
        }
        return true;
    }

    private int runOnDevice() throws IOException, InterruptedException {
        Device dev;
        try {
            DeviceConfig config = DeviceConfig.of(ibDev, ip).udpPort(udpPort);
            if (pcap != null) {
                config.pcap(pcap);
            }
            dev = Device.open(config);
        } catch (RuntimeException e) { // bad address, port in use
            err.printf("Couldn't get context for %s: %s%n", ibDev, e.getMessage());
            return 1;
        }
        try (dev; Arena arena = Arena.ofShared()) {
            return run(dev, arena, Mtu.fromBytes(mtu));
        }
    }

    private int run(Device dev, Arena arena, int mtuEnum) throws IOException, InterruptedException {
        // rc_pingpong: page-aligned buffer filled with 0x7b
        MemorySegment buf = arena.allocate(Math.max(size, 1), PAGE_SIZE);
        buf.fill((byte) 0x7b);
        CompletionChannel channel = useEvents ? dev.createCompChannel() : null;
        ProtectionDomain pd = dev.allocPd();
        int access = Access.LOCAL_WRITE;
        if (odp) {
            DeviceAttr attr = dev.query();
            int rcMask = OdpCaps.SEND | OdpCaps.RECV;
            if ((attr.odpGeneralCaps & OdpCaps.ODP_SUPPORT) == 0 || (attr.odpRcCaps & rcMask) != rcMask) {
                err.println("The device isn't ODP capable or does not support RC send and receive with ODP");
                return 1;
            }
            if (implicitOdp && (attr.odpGeneralCaps & OdpCaps.ODP_SUPPORT_IMPLICIT) == 0) {
                err.println("The device doesn't support implicit ODP");
                return 1;
            }
            access |= Access.ON_DEMAND;
        }
        if (useTs) {
            tsMask = dev.query().completionTimestampMask;
            if (tsMask == 0) {
                err.println("The device isn't completion timestamp capable");
                return 1;
            }
        }
        MemoryRegion mr;
        try {
            mr = implicitOdp ? pd.registerMemory(0, -1L, access) : pd.registerMemory(buf, access);
        } catch (VerbsException e) {
            err.println("Couldn't register MR");
            return 1;
        }
        if (prefetch) {
            try {
                pd.adviseMr(Advice.PREFETCH_WRITE, Advice.FLAG_FLUSH, new Sge(buf.address(), size, mr.lkey()));
            } catch (VerbsException e) {
                err.printf("Couldn't prefetch MR(%d). Continue anyway%n", e.errno());
            }
        }
        CompletionQueue cq;
        try {
            cq = useTs ? dev.createCqEx(rxDepth + 1, channel, 0, WcFlagsEx.WITH_COMPLETION_TIMESTAMP)
                : dev.createCq(rxDepth + 1, channel, 0);
        } catch (VerbsException e) {
            err.println("Couldn't create CQ");
            return 1;
        }
        QueuePair qp;
        try {
            QpInitAttr init = new QpInitAttr(QpType.RC, cq, cq, new QpCap(1, rxDepth, 1, 1, 0));
            init.sendOpsFlags = newSend ? SendOps.SEND : 0;
            qp = pd.createQp(init);
        } catch (VerbsException e) {
            err.println("Couldn't create QP");
            return 1;
        }
        boolean useInline = qp.cap().maxInlineData >= size;
        if (!toInit(qp)) {
            return 1;
        }

        RecvWr rwr = new RecvWr(1);
        rwr.wrId = RECV_WRID;
        rwr.sge(buf.address(), size, mr.lkey());
        int routs = postRecvs(qp, rwr, rxDepth);
        if (routs < rxDepth) {
            err.printf("Couldn't post receive (%d)%n", routs);
            return 1;
        }
        if (useEvents) {
            cq.requestNotify(false);
        }
        Gid myGid;
        try {
            myGid = gidx >= 0 ? dev.queryGid(ibPort, gidx) : new Gid(new byte[16]);
        } catch (VerbsException e) {
            err.printf("can't read sgid of index %d%n", gidx);
            return 1;
        }
        int lid;
        try {
            lid = dev.queryPort(ibPort).lid;
        } catch (VerbsException e) {
            err.println("Couldn't get port info");
            return 1;
        }
        Dest me = new Dest(lid, qp.qpNum(), new SecureRandom().nextInt() & 0xFFFFFF, myGid);
        out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", me.lid, me.qpn, me.psn,
            DevinfoCommand.ntop(me.gid));
        Dest rem = servername != null ? clientExchange(me) : serverExchange(me, qp, mtuEnum);
        if (rem == null) {
            return 1;
        }
        out.printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", rem.lid, rem.qpn,
            rem.psn, DevinfoCommand.ntop(rem.gid));
        if (servername != null && !connect(qp, me, rem, mtuEnum)) {
            return 1;
        }

        SendWr swr = new SendWr(1);
        swr.wrId = SEND_WRID;
        swr.opcode = WrOpcode.SEND;
        swr.sendFlags = SendFlags.SIGNALED | (useInline ? SendFlags.INLINE : 0);
        swr.sge(buf.address(), size, mr.lkey());
        int pending = RECV_WRID;
        if (servername != null) {
            if (validate) {
                // rc_pingpong marks each page with i / page_size % sizeof(char), which is always 0
                for (long i = 0; i < size; i += PAGE_SIZE) {
                    buf.set(ValueLayout.JAVA_BYTE, i, pageMark(i));
                }
            }
            if (!postSend(qp, swr)) {
                return 1;
            }
            pending |= SEND_WRID;
        }

        long start = System.nanoTime();
        rcnt = 0;
        scnt = 0;
        routsLeft = routs;
        this.pending = pending;
        int numCqEvents = 0;
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
        while (rcnt < iters || scnt < iters) {
            if (useEvents) {
                CompletionQueue ev = channel.getEvent(EVENT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                if (ev == null) {
                    err.println("Failed to get cq_event");
                    return 1;
                }
                ++numCqEvents;
                if (ev != cq) {
                    err.printf("CQ event for unknown CQ %s%n", ev);
                    return 1;
                }
                cq.requestNotify(false);
            }
            if (useTs) {
                // rc_pingpong -t: one completion from start_poll, at most one more from next_poll
                CqEx x = cq.ex();
                boolean got;
                do {
                    got = x.startPoll();
                } while (!useEvents && !got);
                if (!got) {
                    continue;
                }
                boolean ok = parseSingleWc(qp, rwr, swr, x.wrId(), x.status(), x.readCompletionTs());
                if (ok && x.nextPoll()) {
                    ok = parseSingleWc(qp, rwr, swr, x.wrId(), x.status(), x.readCompletionTs());
                }
                x.endPoll();
                if (!ok) {
                    return 1;
                }
                continue;
            }
            int ne;
            do {
                ne = cq.poll(wc);
            } while (!useEvents && ne < 1);
            for (int i = 0; i < ne; i++) {
                WorkCompletion w = wc[i];
                if (!parseSingleWc(qp, rwr, swr, w.wrId, w.status, 0)) {
                    err.printf("parse WC failed %d%n", ne);
                    return 1;
                }
            }
        }
        long elapsedNanos = System.nanoTime() - start;
        printResults(elapsedNanos);
        if (servername == null && validate) {
            for (long i = 0; i < size; i += PAGE_SIZE) {
                if (buf.get(ValueLayout.JAVA_BYTE, i) != pageMark(i)) {
                    out.printf("invalid data in page %d%n", i / PAGE_SIZE);
                }
            }
        }
        if (useEvents) {
            cq.ackEvents(numCqEvents);
        }
        return close(qp, cq, mr, pd, channel);
    }

    // the loop's counters, shared with parseSingleWc as rc_pingpong shares them through pointers
    private int rcnt;
    private int scnt;
    private int routsLeft;
    private int pending;
    private long tsMask;
    private long tsMax;
    private long tsMin = 0xffffffffL;
    private long tsTotal;
    private long tsPrev;
    private boolean tsLast;
    private long tsIters;

    /** rc_pingpong's parse_single_wc: counts one completion, reposts receives, sends the next ping. */
    private boolean parseSingleWc(QueuePair qp, RecvWr rwr, SendWr swr, long wrId, int status, long ts) {
        if (status != WcStatus.SUCCESS) {
            err.printf("Failed status %s (%d) for wr_id %d%n", WcStatus.str(status), status, (int) wrId);
            return false;
        }
        switch ((int) wrId) {
            case SEND_WRID -> ++scnt;
            case RECV_WRID -> {
                if (--routsLeft <= 1) {
                    routsLeft += postRecvs(qp, rwr, rxDepth - routsLeft);
                    if (routsLeft < rxDepth) {
                        err.printf("Couldn't post receive (%d)%n", routsLeft);
                        return false;
                    }
                }
                ++rcnt;
                if (useTs) {
                    if (tsLast) {
                        // a wrapped clock counts on from the mask
                        long delta = Long.compareUnsigned(ts, tsPrev) >= 0 ? ts - tsPrev : tsMask - tsPrev + ts + 1;
                        tsMax = Long.compareUnsigned(delta, tsMax) > 0 ? delta : tsMax;
                        tsMin = Long.compareUnsigned(delta, tsMin) < 0 ? delta : tsMin;
                        tsTotal += delta;
                        tsIters++;
                    }
                    tsPrev = ts;
                    tsLast = true;
                }
            }
            default -> {
                err.printf("Completion for unknown wr_id %d%n", (int) wrId);
                return false;
            }
        }
        pending &= ~(int) wrId;
        if (scnt < iters && pending == 0) {
            if (!postSend(qp, swr)) {
                err.println("Couldn't post send");
                return false;
            }
            pending = RECV_WRID | SEND_WRID;
        }
        return true;
    }

    private static byte pageMark(long offset) {
        return (byte) (offset / PAGE_SIZE % 1);
    }

    /** ibv_rc_pingpong's two result lines (the usec it measures with gettimeofday). */
    private void printResults(long elapsedNanos) {
        double usec = elapsedNanos / 1e3;
        long bytes = (long) size * iters * 2;
        out.printf("%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1e6, bytes * 8.0 / usec);
        out.printf("%d iters in %.2f seconds = %.2f usec/iter%n", iters, usec / 1e6, usec / iters);
        if (useTs && tsIters > 0) {
            out.printf("Max receive completion clock cycles = %s%n", Long.toUnsignedString(tsMax));
            out.printf("Min receive completion clock cycles = %s%n", Long.toUnsignedString(tsMin));
            out.printf("Average receive completion clock cycles = %f%n", (double) tsTotal / tsIters);
        }
    }

    private int close(QueuePair qp, CompletionQueue cq, MemoryRegion mr, ProtectionDomain pd,
                      CompletionChannel channel) {
        String step = "destroy QP";
        try {
            qp.close();
            step = "destroy CQ";
            cq.close();
            step = "deregister MR";
            mr.close();
            step = "deallocate PD";
            pd.close();
            step = "destroy completion channel";
            if (channel != null) {
                channel.close();
            }
        } catch (VerbsException e) {
            err.printf("Couldn't %s%n", step);
            return 1;
        }
        return 0;
    }

    private boolean toInit(QueuePair qp) {
        QpAttr attr = new QpAttr();
        attr.qpState = QpState.INIT;
        attr.pkeyIndex = 0;
        attr.portNum = ibPort;
        attr.qpAccessFlags = 0;
        try {
            qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
            return true;
        } catch (VerbsException e) {
            err.println("Failed to modify QP to INIT");
            return false;
        }
    }

    /** pp_post_send: the classic post, or (-N) ibv_wr_start / ibv_wr_send / ibv_wr_set_sge / ibv_wr_complete. */
    private boolean postSend(QueuePair qp, SendWr swr) {
        try {
            if (newSend) {
                QpEx x = qp.ex();
                x.start();
                x.wrId = swr.wrId;
                x.wrFlags = swr.sendFlags;
                x.send();
                x.setSge(swr.sgList[0].lkey, swr.sgList[0].addr, swr.sgList[0].length);
                x.complete();
            } else {
                qp.postSend(swr);
            }
            return true;
        } catch (VerbsException e) {
            err.println("Couldn't post send");
            return false;
        }
    }

    private static int postRecvs(QueuePair qp, RecvWr wr, int n) {
        int i = 0;
        try {
            for (; i < n; i++) {
                qp.postRecv(wr);
            }
        } catch (VerbsException e) {
            return i;
        }
        return i;
    }

    /** pp_connect_ctx: RTR with the peer's QPN, PSN and GID, then RTS with our PSN, as rc_pingpong. */
    private boolean connect(QueuePair qp, Dest me, Dest rem, int mtuEnum) {
        QpAttr a = new QpAttr();
        a.qpState = QpState.RTR;
        a.pathMtu = mtuEnum;
        a.destQpNum = rem.qpn;
        a.rqPsn = rem.psn;
        a.maxDestRdAtomic = 1;
        a.minRnrTimer = 12;
        AhAttr ah = new AhAttr();
        ah.isGlobal = false;
        ah.dlid = rem.lid;
        ah.sl = sl;
        ah.srcPathBits = 0;
        ah.portNum = ibPort;
        if (rem.gid.interfaceId() != 0) {
            ah.isGlobal = true;
            ah.hopLimit = 1;
            ah.dgid = rem.gid;
            ah.sgidIndex = gidx;
        }
        a.ahAttr = ah;
        try {
            qp.modify(a, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
                | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        } catch (VerbsException e) {
            err.println("Failed to modify QP to RTR");
            return false;
        }
        a.qpState = QpState.RTS;
        a.timeout = 14;
        a.retryCnt = 7;
        a.rnrRetry = 7;
        a.sqPsn = me.psn;
        a.maxRdAtomic = 1;
        try {
            qp.modify(a, QpAttrMask.STATE | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                | QpAttrMask.SQ_PSN | QpAttrMask.MAX_QP_RD_ATOMIC);
        } catch (VerbsException e) {
            err.println("Failed to modify QP to RTS");
            return false;
        }
        return true;
    }

    /** pp_client_exch_dest: send ours, read theirs, send "done". */
    private Dest clientExchange(Dest me) throws InterruptedException {
        Socket s = connectWithRetry();
        if (s == null) {
            err.printf("Couldn't connect to %s:%d%n", servername, port);
            return null;
        }
        try (s) {
            OutputStream o = s.getOutputStream();
            try {
                o.write(me.encode());
                o.flush();
            } catch (IOException e) {
                err.println("Couldn't send local address");
                return null;
            }
            byte[] msg = new byte[MSG_SIZE];
            try {
                new DataInputStream(s.getInputStream()).readFully(msg);
                o.write("done\0".getBytes(StandardCharsets.US_ASCII));
                o.flush();
            } catch (IOException e) {
                err.println("client read/write: " + e.getMessage());
                err.println("Couldn't read/write remote address");
                return null;
            }
            Dest rem = Dest.decode(msg);
            if (rem == null) {
                err.println("Couldn't read/write remote address");
            }
            return rem;
        } catch (IOException e) {
            return null; // close failed after the exchange; nothing to add
        }
    }

    private Socket connectWithRetry() throws InterruptedException {
        for (int i = 0; i < CONNECT_ATTEMPTS; i++) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(servername, port), 2000);
                return s;
            } catch (IOException e) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // nothing was open
                }
                Thread.sleep(CONNECT_RETRY_MILLIS);
            }
        }
        return null;
    }

    /** pp_server_exch_dest: read theirs, connect the QP, send ours, read "done". */
    private Dest serverExchange(Dest me, QueuePair qp, int mtuEnum) {
        Socket s;
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(port), 1);
            s = ss.accept();
        } catch (IOException e) {
            err.printf("Couldn't listen to port %d%n", port);
            return null;
        }
        try (s) {
            InputStream in = s.getInputStream();
            byte[] msg = new byte[MSG_SIZE];
            int n = in.readNBytes(msg, 0, MSG_SIZE);
            Dest rem = n == MSG_SIZE ? Dest.decode(msg) : null;
            if (rem == null) {
                err.printf("%d/%d: Couldn't read remote address%n", n, MSG_SIZE);
                return null;
            }
            if (!connect(qp, me, rem, mtuEnum)) {
                err.println("Couldn't connect to remote QP");
                return null;
            }
            s.getOutputStream().write(me.encode());
            s.getOutputStream().flush();
            if (in.readNBytes(msg, 0, DONE_SIZE) != DONE_SIZE) {
                err.println("Couldn't send/recv local address");
                return null;
            }
            return rem;
        } catch (IOException e) {
            err.println("Couldn't send/recv local address");
            return null;
        }
    }
}
