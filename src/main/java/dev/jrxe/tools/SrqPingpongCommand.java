package dev.jrxe.tools;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.memory.OdpCaps;
import dev.jrxe.verbs.AhAttr;
import dev.jrxe.verbs.CompletionChannel;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceAttr;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.MemoryRegion;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpAttr;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RecvWr;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.SharedReceiveQueue;
import dev.jrxe.verbs.VerbsException;
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe srq-pingpong}: {@code ibv_srq_pingpong} over a jrxe device. {@code -q} RC QPs take
 * their receives from one shared receive queue of {@code -r} WQEs and all complete on one CQ. The
 * TCP exchange sends srq_pingpong's 256 messages each way, the QPs' addresses in order and zeros
 * after them, then "done"; QP i connects to the peer's QP i. The client starts a ping on every
 * QP; each QP sends again once its send and a receive on it completed, until the sends and the
 * receives counted over all QPs together reach {@code -n} (so a run moves {@code -n} messages
 * each way in all, not per QP, whatever srq_pingpong's help says). Deviations: see
 * {@link PingpongCommand}.
 */
@Command(name = "srq-pingpong", sortOptions = false,
    description = {"RC SEND ping-pong over several QPs sharing one receive queue, like ibv_srq_pingpong.",
        "Without SERVER it starts a server and waits for a connection; with SERVER it connects to it.",
        "All QPs ping-pong at once; -n counts the exchanges of all of them together."})
public final class SrqPingpongCommand extends PingpongCommand {
    /** srq_pingpong's MAX_QP; it takes fewer QPs than that (at most 255). */
    static final int MAX_QP = AddressExchange.SRQ_MESSAGES;

    @Option(converter = Converters.PositiveSize.class, names = {"-s", "--size"}, order = 40, defaultValue = "4096",
        description = "size of message to exchange (default ${DEFAULT-VALUE})")
    int size;

    @Option(converter = Converters.MtuBytes.class,
        names = {"-m", "--mtu"}, order = 50, defaultValue = "1024", description = "path MTU (default ${DEFAULT-VALUE})")
    int mtu;

    @Option(converter = Converters.Positive.class,
        names = {"-q", "--num-qp"}, order = 55, paramLabel = "NUM", defaultValue = "16",
        description = "number of QPs to use (default ${DEFAULT-VALUE})")
    int numQp;

    @Option(names = {"-o", "--odp"}, order = 110, description = "use on demand paging")
    boolean odp;

    @Option(names = "--no-warmup", order = 240, description = "skip the untimed warm-up of the hot path (two sets "
        + "of -q QPs of this device, each with its own shared receive queue, exchanging the run's messages until "
        + "the JIT is quiet, at most 5 s, before the exchange with the peer), to see a cold JVM's figures")
    boolean noWarmup;

    @Override
    void optionsAgree() {
        Converters.require(spec, numQp <= rxDepth, String.format(
            "rx_depth %d is too small for %d QPs -- must have at least one receive per QP.", rxDepth, numQp));
        Converters.require(spec, numQp < MAX_QP, String.format("num_qp %d must be less than %d", numQp, MAX_QP - 1));
    }

    @Override
    int run(Device dev, Arena arena) throws InterruptedException {
        // srq_pingpong zeroes its buffer (the others fill it with 0x7b)
        MemorySegment buf = arena.allocate(size, PAGE_SIZE);
        buf.fill((byte) 0);
        int access = Access.LOCAL_WRITE;
        if (odp) {
            DeviceAttr attr = dev.query();
            int caps = OdpCaps.SEND | OdpCaps.SRQ_RECV;
            if ((attr.odpGeneralCaps & OdpCaps.ODP_SUPPORT) == 0 || (attr.odpRcCaps & caps) != caps) {
                err.println("The device isn't ODP capable or does not support RC send, receive and srq with ODP");
                return 1;
            }
            access |= Access.ON_DEMAND;
        }
        CompletionChannel channel = useEvents ? dev.createCompChannel() : null;
        ProtectionDomain pd = dev.allocPd();
        // the warm-up registers its buffers as the run does
        HotPathWarmup.Memory memory = new HotPathWarmup.Memory(access, false);
        MemoryRegion mr;
        try {
            mr = memory.register(pd, buf);
        } catch (VerbsException e) {
            err.println("Couldn't register MR");
            return 1;
        }
        CompletionQueue cq;
        try {
            cq = dev.createCq(rxDepth + numQp, channel, 0);
        } catch (VerbsException e) {
            err.println("Couldn't create CQ");
            return 1;
        }
        SharedReceiveQueue srq;
        try {
            srq = pd.createSrq(new SharedReceiveQueue.Attr(rxDepth, 1, 0));
        } catch (VerbsException e) {
            err.println("Couldn't create SRQ");
            return 1;
        }
        QueuePair[] qps = new QueuePair[numQp];
        boolean useInline = false;
        for (int i = 0; i < numQp; i++) {
            QpInitAttr init = new QpInitAttr(QpType.RC, cq, cq, new QpCap(1, 0, 1, 0, 0));
            init.srq = srq;
            try {
                qps[i] = pd.createQp(init);
            } catch (VerbsException e) {
                err.printf("Couldn't create QP[%d]%n", i);
                return 1;
            }
            // as srq_pingpong: inline once any QP can take the message inline
            useInline |= qps[i].cap().maxInlineData >= size;
        }
        for (int i = 0; i < numQp; i++) {
            if (!toInit(qps[i], i)) {
                return 1;
            }
        }

        RecvWr rwr = new RecvWr(1);
        rwr.wrId = RECV_WRID;
        rwr.sge(buf.address(), size, mr.lkey());
        int routs = postSrqRecvs(srq, rwr, rxDepth);
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
        SecureRandom random = new SecureRandom();
        List<Dest> mine = new ArrayList<>();
        for (int i = 0; i < numQp; i++) {
            Gid gid = localGid(dev, "Could not get local gid for gid index %d");
            if (gid == null) {
                return 1;
            }
            Dest d = new Dest(lid, qps[i].qpNum(), random.nextInt() & 0xFFFFFF, gid);
            mine.add(d);
            printLocal(d, ',');
        }
        AddressExchange oob = AddressExchange.srq(err, Main.qualifiedName(spec.commandLine()), idleTimeout);
        Runnable warmUp = () -> warmUp(dev, memory);
        if (servername != null) {
            warmUp.run();
        }
        Dest[] rem = servername != null ? oob.client(servername, port, mine)
            : oob.server(ip, port, mine, warmUp, r -> connect(qps, mine, r));
        if (rem == null) {
            return 1;
        }
        for (int i = 0; i < numQp; i++) {
            printRemote(rem[i]);
        }
        if (servername != null && !connect(qps, mine, rem)) {
            return 1;
        }

        SendWr swr = new SendWr(1);
        swr.wrId = SEND_WRID;
        swr.opcode = WrOpcode.SEND;
        swr.sendFlags = SendFlags.SIGNALED | (useInline ? SendFlags.INLINE : 0);
        swr.sge(buf.address(), size, mr.lkey());
        int[] qpNums = new int[numQp];
        for (int i = 0; i < numQp; i++) {
            qpNums[i] = qps[i].qpNum();
        }
        // the posters and the loop below are the warm-up's (SrqWarmup): compiled already
        PingpongCompletions.PostSends sender = new PingpongCompletions.PostSends(qps, swr);
        PingpongCompletions wcs = new PingpongCompletions(err, iters, rxDepth, numQp, routs, qpNums,
            sender, new PingpongCompletions.PostSrqRecvs(srq, rwr), watch());
        if (servername != null) {
            if (validate) {
                markPages(buf, 0, size);
            }
            // the client pings on every QP at once
            for (int i = 0; i < numQp; i++) {
                if (!sender.post(i)) {
                    err.println("Couldn't post send");
                    return 1;
                }
                wcs.expect(i, SEND_WRID | RECV_WRID);
            }
        } else {
            for (int i = 0; i < numQp; i++) {
                wcs.expect(i, RECV_WRID);
            }
        }

        long start = System.nanoTime();
        WorkCompletion[] wc = new WorkCompletion[numQp + rxDepth];
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        // the loop the warm-up ran (SrqWarmup)
        int failed = useEvents ? wcs.eventLoop(channel, cq, wc) : wcs.busyPoll(cq, wc);
        countCqEvents(wcs.events());
        if (failed != 0) {
            return 1;
        }
        printResults(size, System.nanoTime() - start);
        if (servername == null && validate) {
            checkPages(buf, 0, size);
        }
        ackCqEvents(cq);
        return close(qps, srq, cq, mr, pd, channel);
    }

    /** The untimed warm-up before the exchange (a client's before it connects, a server's while it listens). */
    private void warmUp(Device dev, HotPathWarmup.Memory memory) {
        if (!noWarmup) {
            try {
                SrqWarmup.run(dev, numQp, rxDepth, Math.min(size, WARMUP_MAX_SIZE), Mtu.fromBytes(mtu),
                    WARMUP_ROUND_TRIPS, WARMUP_BUDGET_NANOS, memory, useEvents);
            } catch (RuntimeException e) {
                // no resources for the warm-up's QPs, say: the run goes on cold, and reports its own errors
            }
        }
    }

    private boolean toInit(QueuePair qp, int index) {
        QpAttr attr = new QpAttr();
        attr.qpState = QpState.INIT;
        attr.pkeyIndex = 0;
        attr.portNum = ibPort;
        attr.qpAccessFlags = 0;
        try {
            qp.modify(attr, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
            return true;
        } catch (VerbsException e) {
            err.printf("Failed to modify QP[%d] to INIT%n", index);
            return false;
        }
    }

    /**
     * srq_pingpong's pp_connect_ctx: QP i to RTR toward the peer's QP i and to RTS with its own PSN,
     * rc_pingpong's attributes. Like the C tool it takes the GID of the peer's first message for
     * every QP (all of a peer's QPs have the same GID).
     */
    private boolean connect(QueuePair[] qps, List<Dest> mine, Dest[] rem) {
        Gid peerGid = rem[0].gid();
        for (int i = 0; i < qps.length; i++) {
            QpAttr a = new QpAttr();
            a.qpState = QpState.RTR;
            a.pathMtu = Mtu.fromBytes(mtu);
            a.destQpNum = rem[i].qpn();
            a.rqPsn = rem[i].psn();
            a.maxDestRdAtomic = 1;
            a.minRnrTimer = 12;
            AhAttr ah = new AhAttr();
            ah.isGlobal = false;
            ah.dlid = rem[i].lid();
            ah.sl = sl;
            ah.srcPathBits = 0;
            ah.portNum = ibPort;
            if (peerGid.interfaceId() != 0) {
                ah.isGlobal = true;
                ah.hopLimit = 1;
                ah.dgid = peerGid;
                ah.sgidIndex = gidx;
            }
            a.ahAttr = ah;
            try {
                qps[i].modify(a, QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
                    | QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER);
            } catch (VerbsException e) {
                err.printf("Failed to modify QP[%d] to RTR%n", i);
                return false;
            }
            a.qpState = QpState.RTS;
            a.timeout = 14;
            a.retryCnt = 7;
            a.rnrRetry = 7;
            a.sqPsn = mine.get(i).psn();
            a.maxRdAtomic = 1;
            try {
                qps[i].modify(a, QpAttrMask.STATE | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                    | QpAttrMask.SQ_PSN | QpAttrMask.MAX_QP_RD_ATOMIC);
            } catch (VerbsException e) {
                err.printf("Failed to modify QP[%d] to RTS%n", i);
                return false;
            }
        }
        return true;
    }

    /** srq_pingpong's pp_post_recv: into the shared queue; returns how many went in. */
    static int postSrqRecvs(SharedReceiveQueue srq, RecvWr wr, int n) {
        int i = 0;
        try {
            for (; i < n; i++) {
                srq.postRecv(wr);
            }
        } catch (VerbsException e) {
            return i;
        }
        return i;
    }

    /** srq_pingpong's pp_close_ctx: the QPs, the SRQ, CQ, MR, PD, channel. */
    private int close(QueuePair[] qps, SharedReceiveQueue srq, CompletionQueue cq, MemoryRegion mr,
                      ProtectionDomain pd, CompletionChannel channel) {
        for (int i = 0; i < qps.length; i++) {
            if (!destroyed("destroy QP[" + i + "]", qps[i])) {
                return 1;
            }
        }
        return destroyed("destroy SRQ", srq) && destroyed("destroy CQ", cq) && destroyed("deregister MR", mr)
            && destroyed("deallocate PD", pd) && destroyed("destroy completion channel", channel) ? 0 : 1;
    }
}
