package dev.jrxe.tools;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.verbs.AddressHandle;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.CompletionChannel;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpAttr;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.VerbsException;
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe ud-pingpong}: {@code ibv_ud_pingpong} over a jrxe device, with its options, defaults,
 * TCP exchange (rc_pingpong's 52-byte messages and "done"), QP transitions, messages and output
 * lines. One UD QP with Q_Key {@link #QKEY}; each receive buffer has the 40-byte GRH area in front
 * of the payload, and sends go from just after it to an address handle of the peer. A message
 * must fit the port's active MTU (UD does not segment). UD has no ACKs: a lost datagram stalls
 * both sides, as with the C tool.
 *
 * <p>{@code -s} defaults to 1024, what ibv_ud_pingpong sends without it; its help text and man
 * page say 2048. Other deviations: see {@link PingpongCommand}.
 */
@Command(name = "ud-pingpong", sortOptions = false,
    description = {"UD SEND ping-pong like ibv_ud_pingpong.",
        "Without SERVER it starts a server and waits for a connection; with SERVER it connects to it."})
public class UdPingpongCommand extends PingpongCommand {
    /** The Q_Key both sides use, and the one every send names. */
    static final int QKEY = 0x11111111;
    /** The GRH area the device fills at the start of every UD receive buffer. */
    static final int GRH_SIZE = 40;
    /** The hop limit of ud_pingpong's address handle (the connected tools use 1). */
    private static final int HOP_LIMIT = 64;

    @Option(converter = Converters.Size.class, names = {"-s", "--size"}, order = 40, defaultValue = "1024",
        description = "size of message to exchange (default ${DEFAULT-VALUE}, what ibv_ud_pingpong sends; "
            + "its help says 2048)")
    int size;

    @Option(names = "--no-warmup", order = 240, description = "skip the untimed warm-up of the hot path (two QPs "
        + "of this device exchanging the run's messages until the JIT is quiet, at most 5 s, before the exchange "
        + "with the peer), to see a cold JVM's figures")
    boolean noWarmup;

    private AddressHandle ah;

    /** The warm-up's two QPs: of this tool's kind. */
    HotPathWarmup.Pair warmupPair() {
        return HotPathWarmup.datagram(ProtectionDomain::createQp, QpType.UD, QKEY, GRH_SIZE);
    }

    /** The untimed warm-up before the exchange (a client's before it connects, a server's while it listens). */
    private void warmUp(Device dev) {
        if (!noWarmup) {
            try {
                HotPathWarmup.run(dev, warmupPair(), size, WARMUP_ROUND_TRIPS, WARMUP_BUDGET_NANOS,
                    HotPathWarmup.Memory.PINNED, new JitQuiet(), useEvents);
            } catch (RuntimeException e) {
                // no resources for two more QPs, say: the run goes on cold, and reports its own errors
            }
        }
    }

    /** Bytes in front of the payload of every receive buffer (UD's GRH area). */
    int grhSize() {
        return GRH_SIZE;
    }

    /** The datagram QP the tool uses. */
    QueuePair createQp(ProtectionDomain pd, CompletionQueue cq, QpCap cap) {
        return pd.createQp(new QpInitAttr(QpType.UD, cq, cq, cap));
    }

    @Override
    int run(Device dev, Arena arena) throws InterruptedException {
        final int grh = grhSize();
        MemorySegment buf = arena.allocate(size + grh, PAGE_SIZE);
        buf.fill((byte) 0x7b);
        int portMtu;
        try {
            portMtu = Mtu.bytes(dev.queryPort(ibPort).activeMtu);
        } catch (VerbsException e) {
            err.printf("Unable to query port info for port %d%n", ibPort);
            return 1;
        }
        if (size > portMtu) {
            err.printf("Requested size larger than port MTU (%d)%n", portMtu);
            return 1;
        }
        CompletionChannel channel = useEvents ? dev.createCompChannel() : null;
        ProtectionDomain pd = dev.allocPd();
        MemoryRegion mr;
        try {
            mr = pd.registerMemory(buf, Access.LOCAL_WRITE);
        } catch (VerbsException e) {
            err.println("Couldn't register MR");
            return 1;
        }
        CompletionQueue cq;
        try {
            cq = dev.createCq(rxDepth + 1, channel, 0);
        } catch (VerbsException e) {
            err.println("Couldn't create CQ");
            return 1;
        }
        QueuePair qp;
        try {
            qp = createQp(pd, cq, new QpCap(1, rxDepth, 1, 1, 0));
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
        rwr.sge(buf.address(), size + grh, mr.lkey());
        int routs = postRecvs(qp, rwr, rxDepth);
        if (routs < rxDepth) {
            err.printf("Couldn't post receive (%d)%n", routs);
            return 1;
        }
        if (useEvents) {
            cq.requestNotify(false);
        }
        int lid = localLid(dev);
        if (lid < 0) {
            return 1;
        }
        Gid myGid = localGid(dev, "Could not get local gid for gid index %d");
        if (myGid == null) {
            return 1;
        }
        Dest me = new Dest(lid, qp.qpNum(), new SecureRandom().nextInt() & 0xFFFFFF, myGid);
        printLocal(me, ':');
        AddressExchange oob = AddressExchange.single(err, Main.qualifiedName(spec.commandLine()), idleTimeout);
        if (servername != null) {
            warmUp(dev);
        }
        Dest[] rems = servername != null ? oob.client(servername, port, List.of(me))
            : oob.server(ip, port, List.of(me), () -> warmUp(dev), r -> connect(pd, qp, me, r[0]));
        if (rems == null) {
            return 1;
        }
        Dest rem = rems[0];
        printRemote(rem);
        if (servername != null && !connect(pd, qp, me, rem)) {
            return 1;
        }

        SendWr swr = new SendWr(1);
        swr.wrId = SEND_WRID;
        swr.opcode = WrOpcode.SEND;
        swr.sendFlags = SendFlags.SIGNALED | (useInline ? SendFlags.INLINE : 0);
        swr.sge(buf.address() + grh, size, mr.lkey());
        swr.ah = ah;
        swr.remoteQpn = rem.qpn();
        swr.remoteQkey = QKEY;
        PingpongCompletions wcs = new PingpongCompletions(err, iters, rxDepth, 1, routs, null,
            new PingpongCompletions.PostSend(qp, swr), new PingpongCompletions.PostRecvs(qp, rwr), watch());
        wcs.expect(0, RECV_WRID);
        if (servername != null) {
            if (validate) {
                markPages(buf, grh, size);
            }
            if (!postSend(qp, swr)) {
                err.println("Couldn't post send");
                return 1;
            }
            wcs.expect(0, RECV_WRID | SEND_WRID);
        }

        long start = System.nanoTime();
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
        // the loop the warm-up ran (HotPathWarmup)
        int failed = useEvents ? wcs.eventLoop(channel, cq, wc) : wcs.busyPoll(cq, wc);
        countCqEvents(wcs.events());
        if (failed != 0) {
            return 1;
        }
        printResults(size, System.nanoTime() - start);
        if (servername == null && validate) {
            checkPages(buf, grh, size); // the payload of the last receive follows its GRH area
        }
        ackCqEvents(cq);
        return close(qp, cq, mr, pd, channel);
    }

    /** RESET → INIT with the port and the Q_Key, as ud_pingpong does before it posts receives. */
    private boolean toInit(QueuePair qp) {
        QpAttr a = new QpAttr();
        a.qpState = QpState.INIT;
        a.pkeyIndex = 0;
        a.portNum = ibPort;
        a.qkey = QKEY;
        try {
            qp.modify(a, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
            return true;
        } catch (VerbsException e) {
            err.println("Failed to modify QP to INIT");
            return false;
        }
    }

    /**
     * ud_pingpong's pp_connect_ctx: RTR (state only) and RTS (state and SQ PSN), then an address
     * handle to the peer, global when its GID has an interface ID.
     */
    private boolean connect(ProtectionDomain pd, QueuePair qp, Dest me, Dest rem) {
        try {
            qp.modify(new QpAttr().state(QpState.RTR), QpAttrMask.STATE);
        } catch (VerbsException e) {
            err.println("Failed to modify QP to RTR");
            return false;
        }
        QpAttr rts = new QpAttr();
        rts.qpState = QpState.RTS;
        rts.sqPsn = me.psn();
        try {
            qp.modify(rts, QpAttrMask.STATE | QpAttrMask.SQ_PSN);
        } catch (VerbsException e) {
            err.println("Failed to modify QP to RTS");
            return false;
        }
        AhAttr attr = new AhAttr();
        attr.isGlobal = false;
        attr.dlid = rem.lid();
        attr.sl = sl;
        attr.srcPathBits = 0;
        attr.portNum = ibPort;
        if (rem.gid().interfaceId() != 0) {
            attr.isGlobal = true;
            attr.hopLimit = HOP_LIMIT;
            attr.dgid = rem.gid();
            attr.sgidIndex = gidx;
        }
        try {
            ah = pd.createAh(attr);
        } catch (VerbsException e) {
            // RoCE needs a GRH: a peer without a GID (-g -1) ends here
            err.println("Failed to create AH");
            return false;
        }
        return true;
    }

    /** ud_pingpong's pp_close_ctx: QP, CQ, MR, AH, PD, channel. */
    private int close(QueuePair qp, CompletionQueue cq, MemoryRegion mr, ProtectionDomain pd,
                      CompletionChannel channel) {
        return destroyed("destroy QP", qp) && destroyed("destroy CQ", cq) && destroyed("deregister MR", mr)
            && destroyed("destroy AH", ah) && destroyed("deallocate PD", pd)
            && destroyed("destroy completion channel", channel) ? 0 : 1;
    }
}
