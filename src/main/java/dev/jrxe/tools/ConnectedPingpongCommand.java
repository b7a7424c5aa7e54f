package dev.jrxe.tools;

import dev.jrxe.ib.Mtu;
import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.SendOps;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.ib.Access;
import dev.jrxe.ib.Advice;
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
import dev.jrxe.verbs.Sge;
import dev.jrxe.verbs.VerbsException;
import dev.jrxe.verbs.WcFlagsEx;
import dev.jrxe.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The SEND ping-pong over one connected QP that ibv_rc_pingpong and ibv_uc_pingpong share (the C
 * files differ in the QP type, the attributes of the RTR and RTS transitions, and rc_pingpong's
 * extra options): buffer, CQ and QP setup, the TCP exchange, the transitions, the completion loop
 * and the result lines. {@link RcPingpongCommand} turns on the RC-only extras (ODP, completion
 * timestamps, the extended send API) through its options; {@link UcPingpongCommand} has none.
 */
abstract class ConnectedPingpongCommand extends PingpongCommand {
    @Option(converter = Converters.Size.class, names = {"-s", "--size"}, order = 40, defaultValue = "4096",
        description = "size of message to exchange (default ${DEFAULT-VALUE})")
    int size;

    @Option(converter = Converters.MtuBytes.class,
        names = {"-m", "--mtu"}, order = 50, defaultValue = "1024", description = "path MTU (default ${DEFAULT-VALUE})")
    int mtu;

    @Option(names = "--no-warmup", order = 240, description = "skip the untimed warm-up of the hot path (two QPs "
        + "of this device exchanging the run's messages until the JIT is quiet, at most 5 s, before the exchange with "
        + "the peer), to see a cold JVM's figures")
    boolean noWarmup;

    // rc_pingpong's extras, off unless RcPingpongCommand's options turn them on
    boolean odp;
    boolean implicitOdp;
    boolean prefetch;
    boolean useTs;
    boolean newSend;

    // the receive-timestamp statistics of -t, as rc_pingpong's struct ts_params
    /** -t: the completions' time stamps (null without). */
    private PingpongTimestamps timestamps;

    /** {@link QpType#RC} or {@link QpType#UC}. */
    abstract int qpType();

    @Override
    int run(Device dev, Arena arena) throws InterruptedException {
        // page-aligned, as the C tools' (with -O from jrxe's allocator: HotPathWarmup.Memory#allocate)
        MemorySegment buf = HotPathWarmup.Memory.allocate(implicitOdp, arena, Math.max(size, 1));
        try {
            return run(dev, buf);
        } finally {
            HotPathWarmup.Memory.free(implicitOdp, buf);
        }
    }

    private int run(Device dev, MemorySegment buf) throws InterruptedException {
        int mtuEnum = Mtu.fromBytes(mtu);
        buf.fill((byte) 0x7b); // as the C tools
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
            long tsMask = dev.query().completionTimestampMask;
            if (tsMask == 0) {
                err.println("The device isn't completion timestamp capable");
                return 1;
            }
            timestamps = new PingpongTimestamps(tsMask);
        }
        // the warm-up registers its buffers as the run does
        HotPathWarmup.Memory memory = new HotPathWarmup.Memory(access, implicitOdp);
        MemoryRegion mr;
        try {
            mr = memory.register(pd, buf);
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
            QpInitAttr init = new QpInitAttr(qpType(), cq, cq, new QpCap(1, rxDepth, 1, 1, 0));
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
        Gid myGid = localGid(dev, "can't read sgid of index %d");
        if (myGid == null) {
            return 1;
        }
        int lid = localLid(dev);
        if (lid < 0) {
            return 1;
        }
        Dest me = new Dest(lid, qp.qpNum(), new SecureRandom().nextInt() & 0xFFFFFF, myGid);
        printLocal(me, ',');
        AddressExchange oob = AddressExchange.single(err, Main.qualifiedName(spec.commandLine()), idleTimeout);
        Runnable warmUp = () -> warmUp(dev, mtuEnum, memory);
        if (servername != null) {
            warmUp.run();
        }
        Dest[] rems = servername != null ? oob.client(servername, port, List.of(me))
            : oob.server(ip, port, List.of(me), warmUp, r -> connect(qp, me, r[0], mtuEnum));
        if (rems == null) {
            return 1;
        }
        Dest rem = rems[0];
        printRemote(rem);
        if (servername != null && !connect(qp, me, rem, mtuEnum)) {
            return 1;
        }

        SendWr swr = new SendWr(1);
        swr.wrId = SEND_WRID;
        swr.opcode = WrOpcode.SEND;
        swr.sendFlags = SendFlags.SIGNALED | (useInline ? SendFlags.INLINE : 0);
        swr.sge(buf.address(), size, mr.lkey());
        PingpongCompletions.Sender sender = sender(qp, swr);
        PingpongCompletions wcs = new PingpongCompletions(err, iters, rxDepth, 1, routs, null,
            sender,
            new PingpongCompletions.PostRecvs(qp, rwr), watch());
        wcs.expect(0, RECV_WRID);
        if (servername != null) {
            if (validate) {
                markPages(buf, 0, size);
            }
            if (!sender.post(0)) {
                err.println("Couldn't post send");
                return 1;
            }
            wcs.expect(0, RECV_WRID | SEND_WRID);
        }

        long start = System.nanoTime();
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
        if (!useTs) {
            // the loop the warm-up ran (HotPathWarmup): compiled already
            int failed = useEvents ? wcs.eventLoop(channel, cq, wc) : wcs.busyPoll(cq, wc);
            if (failed != 0) {
                // rc_pingpong reports a second time after its parse_single_wc; uc_pingpong does not
                if (failed > 0 && qpType() == QpType.RC) {
                    err.printf("parse WC failed %d%n", failed);
                }
                return 1;
            }
        } else if (!useEvents) {
            // -t: the extended CQ's start_poll/next_poll, with each completion's time stamp; the
            // loop the warm-up ran
            if (timestamps.busyPoll(wcs, cq, watch()) != 0) {
                return 1;
            }
        } else if (timestamps.eventLoop(wcs, channel, cq, watch()) != 0) {
            // -e -t: the loop the warm-up ran
            return 1;
        }
        countCqEvents(wcs.events());
        long elapsedNanos = System.nanoTime() - start;
        printResults(size, elapsedNanos);
        if (useTs) {
            timestamps.print(out);
        }
        if (servername == null && validate) {
            checkPages(buf, 0, size);
        }
        ackCqEvents(cq);
        return close(qp, cq, mr, pd, channel);
    }

    /** The untimed warm-up before the exchange (a client's before it connects, a server's while it listens). */
    private void warmUp(Device dev, int mtuEnum, HotPathWarmup.Memory memory) {
        if (!noWarmup) {
            try {
                // the per-packet path is what needs compiling: a huge -s would only cost memory and time
                HotPathWarmup.run(dev, HotPathWarmup.connected(qpType(), mtuEnum, newSend), Math.min(size, WARMUP_MAX_SIZE),
                    WARMUP_ROUND_TRIPS, WARMUP_BUDGET_NANOS, memory, new JitQuiet(), useEvents, useTs);
            } catch (RuntimeException e) {
                // no resources for two more QPs, say: the run goes on cold, and reports its own errors
            }
        }
    }

    /** pp_close_ctx: QP, CQ, MR, PD, channel. */
    private int close(QueuePair qp, CompletionQueue cq, MemoryRegion mr, ProtectionDomain pd,
                      CompletionChannel channel) {
        return destroyed("destroy QP", qp) && destroyed("destroy CQ", cq) && destroyed("deregister MR", mr)
            && destroyed("deallocate PD", pd) && destroyed("destroy completion channel", channel) ? 0 : 1;
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
    private PingpongCompletions.Sender sender(QueuePair qp, SendWr swr) {
        return newSend ? new PingpongCompletions.BuildSend(qp, swr) : new PingpongCompletions.PostSend(qp, swr);
    }

    /**
     * pp_connect_ctx: RTR with the peer's QPN, PSN and GID, then RTS with our PSN. RC adds its
     * READ/atomic resources, RNR timer and retries; UC has none of them, so uc_pingpong leaves
     * them out of both masks.
     */
    private boolean connect(QueuePair qp, Dest me, Dest rem, int mtuEnum) {
        boolean rc = qpType() == QpType.RC;
        QpAttr a = new QpAttr();
        a.qpState = QpState.RTR;
        a.pathMtu = mtuEnum;
        a.destQpNum = rem.qpn();
        a.rqPsn = rem.psn();
        a.maxDestRdAtomic = 1;
        a.minRnrTimer = 12;
        AhAttr ah = new AhAttr();
        ah.isGlobal = false;
        ah.dlid = rem.lid();
        ah.sl = sl;
        ah.srcPathBits = 0;
        ah.portNum = ibPort;
        if (rem.gid().interfaceId() != 0) {
            ah.isGlobal = true;
            ah.hopLimit = 1;
            ah.dgid = rem.gid();
            ah.sgidIndex = gidx;
        }
        a.ahAttr = ah;
        int rtrMask = QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN
            | QpAttrMask.RQ_PSN;
        try {
            qp.modify(a, rc ? rtrMask | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER : rtrMask);
        } catch (VerbsException e) {
            err.println("Failed to modify QP to RTR");
            return false;
        }
        a.qpState = QpState.RTS;
        a.timeout = 14;
        a.retryCnt = 7;
        a.rnrRetry = 7;
        a.sqPsn = me.psn();
        a.maxRdAtomic = 1;
        int rtsMask = QpAttrMask.STATE | QpAttrMask.SQ_PSN;
        try {
            qp.modify(a, rc ? rtsMask | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY
                | QpAttrMask.MAX_QP_RD_ATOMIC : rtsMask);
        } catch (VerbsException e) {
            err.println("Failed to modify QP to RTS");
            return false;
        }
        return true;
    }
}
