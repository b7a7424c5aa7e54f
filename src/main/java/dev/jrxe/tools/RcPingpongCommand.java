package dev.jrxe.tools;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.memory.Access;
import dev.jrxe.memory.Advice;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.CompletionChannel;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceAttr;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpAttr;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.Sge;
import dev.jrxe.verbs.VerbsException;
import dev.jrxe.verbs.WorkCompletion;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jrxe rc-pingpong}: {@code ibv_rc_pingpong} over a jrxe device, with its options,
 * defaults, TCP exchange (52-byte "LID:QPN:PSN:GID" messages, then "done"), QP transitions and
 * output lines, so either side can face the real tool.
 */
@Command(name = "rc-pingpong", mixinStandardHelpOptions = true,
    description = "RC SEND ping-pong like ibv_rc_pingpong. Without SERVER it waits for a client.")
public final class RcPingpongCommand implements Callable<Integer> {
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;
    static final int MSG_SIZE = 52;

    @Parameters(arity = "0..1", paramLabel = "SERVER", description = "server to connect to (client mode)")
    String servername;

    @Option(names = {"-p", "--port"}, description = "listen on/connect to TCP port (default ${DEFAULT-VALUE})",
        defaultValue = "18515")
    int port;

    @Option(names = {"-d", "--ib-dev"}, description = "device name (default ${DEFAULT-VALUE})", defaultValue = "jrxe0")
    String ibDev;

    @Option(names = {"-i", "--ib-port"}, description = "port of the device (default ${DEFAULT-VALUE})",
        defaultValue = "1")
    int ibPort;

    @Option(names = {"-s", "--size"}, description = "size of message to exchange (default ${DEFAULT-VALUE})",
        defaultValue = "4096")
    int size;

    @Option(names = {"-m", "--mtu"}, description = "path MTU (default ${DEFAULT-VALUE})", defaultValue = "1024")
    int mtu;

    @Option(names = {"-r", "--rx-depth"}, description = "number of receives to post at a time (default ${DEFAULT-VALUE})",
        defaultValue = "500")
    int rxDepth;

    @Option(names = {"-n", "--iters"}, description = "number of exchanges (default ${DEFAULT-VALUE})",
        defaultValue = "1000")
    int iters;

    @Option(names = {"-l", "--sl"}, description = "service level value (default ${DEFAULT-VALUE})", defaultValue = "0")
    int sl;

    @Option(names = {"-e", "--events"}, description = "sleep on CQ events (default poll)")
    boolean useEvents;

    @Option(names = {"-g", "--gid-idx"}, description = "local port gid index (default ${DEFAULT-VALUE}: the "
        + "IPv4-mapped RoCEv2 GID; jrxe is RoCE-only, so a GID is always needed)", defaultValue = "1")
    int gidx;

    @Option(names = {"-o", "--odp"}, description = "use on demand paging")
    boolean odp;

    @Option(names = {"-O", "--iodp"}, description = "use implicit on demand paging")
    boolean implicitOdp;

    @Option(names = {"-P", "--prefetch"}, description = "prefetch an ODP MR")
    boolean prefetch;

    @Option(names = {"-c", "--chk"}, description = "validate received buffer")
    boolean validate;

    @Option(names = "--ip", description = "IPv4 address of the local jrxe device (default ${DEFAULT-VALUE})",
        defaultValue = "127.0.0.1")
    String ip;

    @Option(names = "--udp-port", description = "UDP port of the devices (default ${DEFAULT-VALUE})",
        defaultValue = "4791")
    int udpPort;

    /** One side's address as exchanged over TCP. */
    record Dest(int lid, int qpn, int psn, Gid gid) {
        String message() {
            return String.format("%04x:%06x:%06x:%s", lid, qpn, psn, gid.toWireString());
        }

        static Dest parse(String msg) {
            String[] f = msg.split(":");
            return new Dest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16),
                Gid.fromWireString(f[3].substring(0, 32)));
        }
    }

    @Override
    public Integer call() throws Exception {
        int mtuEnum = Mtu.fromBytes(mtu);
        if (mtuEnum < 0) {
            System.err.println("Invalid MTU " + mtu);
            return 1;
        }
        if (implicitOdp) {
            odp = true;
        }
        if (prefetch && !odp) {
            System.err.println("prefetch is valid only with on-demand memory region");
            return 1;
        }
        try (Device dev = Device.open(DeviceConfig.of(ibDev, ip).udpPort(udpPort));
             Arena arena = Arena.ofShared()) {
            return run(dev, arena, mtuEnum);
        } catch (VerbsException e) {
            System.err.println(e.getMessage());
            return 1;
        }
    }

    private int run(Device dev, Arena arena, int mtuEnum) throws Exception {
        int pageSize = 4096;
        MemorySegment buf = arena.allocate(Math.max(size, 1), pageSize);
        // rc_pingpong fills the buffer with 0x7b (and with -c the client marks each page start)
        buf.fill((byte) 0x7b);
        if (validate && servername != null) {
            for (int i = 0; i < size; i += pageSize) {
                buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i / pageSize % 1));
            }
        }
        ProtectionDomain pd = dev.allocPd();
        int access = Access.LOCAL_WRITE;
        MemoryRegion mr;
        if (odp) {
            DeviceAttr attr = dev.query();
            if ((attr.odpGeneralCaps & 1) == 0 || (attr.odpRcCaps & 3) != 3) {
                System.err.println("The device isn't ODP capable or does not support RC send and receive with ODP");
                return 1;
            }
            if (implicitOdp && (attr.odpGeneralCaps & 2) == 0) {
                System.err.println("The device doesn't support implicit ODP");
                return 1;
            }
            access |= Access.ON_DEMAND;
        }
        try {
            mr = implicitOdp ? pd.registerMemory(0, -1L, access) : pd.registerMemory(buf.asSlice(0, Math.max(size, 1)), access);
        } catch (VerbsException e) {
            System.err.println("Couldn't register MR");
            return 1;
        }
        if (prefetch) {
            try {
                pd.adviseMr(Advice.PREFETCH_WRITE, Advice.FLAG_FLUSH, new Sge(buf.address(), size, mr.lkey()));
            } catch (VerbsException e) {
                System.err.println("Couldn't prefetch MR(" + e.errno() + "). Continue anyway");
            }
        }
        CompletionChannel channel = useEvents ? dev.createCompChannel() : null;
        CompletionQueue cq = dev.createCq(rxDepth + 1, channel, 0);
        QpInitAttr init = new QpInitAttr(QpType.RC, cq, cq, new QpCap(1, rxDepth, 1, 1, 0));
        QueuePair qp = pd.createQp(init);
        boolean useInline = qp.cap().maxInlineData >= size;
        QpAttr attr = new QpAttr();
        attr.qpState = QpState.INIT;
        attr.pkeyIndex = 0;
        attr.portNum = ibPort;
        attr.qpAccessFlags = 0;
        qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);

        RecvWr rwr = new RecvWr(1);
        rwr.wrId = RECV_WRID;
        rwr.sge(buf.address(), size, mr.lkey());
        int routs = postRecvs(qp, rwr, rxDepth);
        if (routs < rxDepth) {
            System.err.printf("Couldn't post receive (%d)%n", routs);
            return 1;
        }
        if (useEvents) {
            cq.requestNotify(false);
        }
        Gid myGid = gidx >= 0 ? dev.queryGid(ibPort, gidx) : new Gid(new byte[16]);
        Dest me = new Dest(dev.queryPort(ibPort).lid, qp.qpNum(), new Random().nextInt() & 0xFFFFFF, myGid);
        System.out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", me.lid, me.qpn, me.psn,
            DevinfoCommand.ntop(me.gid));
        Dest rem = servername != null ? clientExchange(me) : serverExchange(me, qp, mtuEnum);
        if (rem == null) {
            return 1;
        }
        System.out.printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", rem.lid, rem.qpn,
            rem.psn, DevinfoCommand.ntop(rem.gid));
        if (servername != null) {
            connect(qp, me, rem, mtuEnum);
        }

        SendWr swr = new SendWr(1);
        swr.wrId = SEND_WRID;
        swr.opcode = WrOpcode.SEND;
        swr.sendFlags = SendFlags.SIGNALED | (useInline ? SendFlags.INLINE : 0);
        swr.sge(buf.address(), size, mr.lkey());
        int pending = RECV_WRID;
        if (servername != null) {
            qp.postSend(swr);
            pending |= SEND_WRID;
        }
        long start = System.nanoTime();
        int rcnt = 0;
        int scnt = 0;
        WorkCompletion[] wc = new WorkCompletion[2];
        wc[0] = new WorkCompletion();
        wc[1] = new WorkCompletion();
        while (rcnt < iters || scnt < iters) {
            if (useEvents) {
                CompletionQueue ev = channel.getEvent(30, TimeUnit.SECONDS);
                if (ev == null) {
                    System.err.println("Failed to get cq_event");
                    return 1;
                }
                ev.ackEvents(1);
                ev.requestNotify(false);
            }
            int ne;
            do {
                ne = cq.poll(wc);
            } while (!useEvents && ne < 1);
            for (int i = 0; i < ne; i++) {
                if (wc[i].status != WcStatus.SUCCESS) {
                    System.err.printf("Failed status %s (%d) for wr_id %d%n", WcStatus.str(wc[i].status),
                        wc[i].status, (int) wc[i].wrId);
                    return 1;
                }
                switch ((int) wc[i].wrId) {
                    case SEND_WRID -> ++scnt;
                    case RECV_WRID -> {
                        if (--routs <= 1) {
                            routs += postRecvs(qp, rwr, rxDepth - routs);
                            if (routs < rxDepth) {
                                System.err.printf("Couldn't post receive (%d)%n", routs);
                                return 1;
                            }
                        }
                        ++rcnt;
                    }
                    default -> {
                        System.err.printf("Completion for unknown wr_id %d%n", (int) wc[i].wrId);
                        return 1;
                    }
                }
                pending &= ~(int) wc[i].wrId;
                if (scnt < iters && pending == 0) {
                    qp.postSend(swr);
                    pending = RECV_WRID | SEND_WRID;
                }
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long bytes = (long) size * iters * 2;
        System.out.printf("%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, seconds, bytes * 8.0 / seconds / 1e6);
        System.out.printf("%d iters in %.2f seconds = %.2f usec/iter%n", iters, seconds, seconds * 1e6 / iters);
        if (validate && servername == null) {
            for (int i = 0; i < size; i += pageSize) {
                if (buf.get(ValueLayout.JAVA_BYTE, i) != (byte) (i / pageSize % 1)) {
                    System.out.printf("invalid data in page %d%n", i / pageSize);
                }
            }
        }
        qp.close();
        cq.close();
        mr.close();
        return 0;
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

    private void connect(QueuePair qp, Dest me, Dest rem, int mtuEnum) {
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
        ah.portNum = ibPort;
        if (rem.gid.interfaceId() != 0) {
            ah.isGlobal = true;
            ah.hopLimit = 1;
            ah.dgid = rem.gid;
            ah.sgidIndex = gidx;
        }
        a.ahAttr = ah;
        qp.modify(a, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
            | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
        QpAttr r = new QpAttr();
        r.qpState = QpState.RTS;
        r.timeout = 14;
        r.retryCnt = 7;
        r.rnrRetry = 7;
        r.sqPsn = me.psn;
        r.maxRdAtomic = 1;
        qp.modify(r, QpAttrMask.STATE | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
            | QpAttrMask.SQ_PSN | QpAttrMask.MAX_QP_RD_ATOMIC);
    }

    private static byte[] encode(String msg) {
        byte[] out = new byte[MSG_SIZE];
        byte[] b = msg.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(b, 0, out, 0, Math.min(b.length, MSG_SIZE - 1));
        return out;
    }

    private static String decode(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    private Dest clientExchange(Dest me) throws IOException {
        try (Socket s = connectWithRetry()) {
            OutputStream out = s.getOutputStream();
            out.write(encode(me.message()));
            out.flush();
            byte[] msg = new byte[MSG_SIZE];
            new DataInputStream(s.getInputStream()).readFully(msg);
            Dest rem = Dest.parse(decode(msg));
            out.write("done\0".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return rem;
        }
    }

    private Socket connectWithRetry() throws IOException {
        IOException last = null;
        for (int i = 0; i < 50; i++) {
            try {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(InetAddress.getByName(servername), port), 2000);
                return s;
            } catch (IOException e) {
                last = e;
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        System.err.printf("Couldn't connect to %s:%d%n", servername, port);
        throw last;
    }

    private Dest serverExchange(Dest me, QueuePair qp, int mtuEnum) throws IOException {
        try (ServerSocket ss = new ServerSocket()) {
            ss.setReuseAddress(true);
            ss.bind(new InetSocketAddress(port));
            try (Socket s = ss.accept()) {
                InputStream in = s.getInputStream();
                byte[] msg = new byte[MSG_SIZE];
                new DataInputStream(in).readFully(msg);
                Dest rem = Dest.parse(decode(msg));
                connect(qp, me, rem, mtuEnum);
                OutputStream out = s.getOutputStream();
                out.write(encode(me.message()));
                out.flush();
                byte[] done = new byte[5];
                new DataInputStream(in).readFully(done);
                return rem;
            }
        }
    }
}
