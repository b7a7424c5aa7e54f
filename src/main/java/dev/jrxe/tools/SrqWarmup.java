package dev.jrxe.tools;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.verbs.CompletionChannel;
import dev.jrxe.verbs.CompletionQueue;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.ProtectionDomain;
import dev.jrxe.verbs.QpCap;
import dev.jrxe.verbs.QpInitAttr;
import dev.jrxe.verbs.QueuePair;
import dev.jrxe.verbs.RcConnect;
import dev.jrxe.verbs.SendWr;
import dev.jrxe.verbs.SharedReceiveQueue;
import dev.jrxe.verbs.WorkCompletion;
import java.io.PrintWriter;
import java.lang.foreign.Arena;

/**
 * srq-pingpong's untimed warm-up: {@link HotPathWarmup}'s, shaped as srq_pingpong's run. Two sides
 * of the tool's own device each have a CQ, a shared receive queue and {@code numQp} RC QPs that
 * take their receives from it, QP i of one side joined to QP i of the other; one side pings on
 * every QP at once and each QP answers, through the tool's own completion handling (the QPs
 * matched by number) and posters ({@link PingpongCompletions.PostSends},
 * {@link PingpongCompletions.PostSrqRecvs}), in HotPathWarmup's episodes until the JIT is quiet.
 * Each episode posts exactly its length of sends per side, so it ends with nothing in flight.
 */
final class SrqWarmup {
    private SrqWarmup() {
    }

    /** One side: its CQ, SRQ, QPs, buffer and posters. */
    private static final class Side implements AutoCloseable {
        final CompletionQueue cq;
        /** The CQ's channel when the run waits for events; else null. */
        final CompletionChannel channel;
        final SharedReceiveQueue srq;
        final QueuePair[] qps;
        final int[] qpNums;
        /** The buffer the receives and sends name, fresh each episode with ODP ({@link HotPathWarmup.Memory#renews}). */
        final HotPathWarmup.Buffers buffers;
        final PingpongCompletions.PostSends sender;
        final PingpongCompletions.PostSrqRecvs receiver;
        int routs;

        Side(Device dev, ProtectionDomain pd, Arena arena, int numQp, int rxDepth, int size,
             HotPathWarmup.Memory memory, boolean events) {
            QueuePair[] made = new QueuePair[numQp];
            CompletionQueue c = null;
            SharedReceiveQueue q = null;
            channel = events ? dev.createCompChannel() : null;
            try {
                c = dev.createCq(rxDepth + numQp, channel, 0);
                if (events) {
                    c.requestNotify(false);
                }
                q = pd.createSrq(new SharedReceiveQueue.Attr(rxDepth, 1, 0));
                for (int i = 0; i < numQp; i++) {
                    QpInitAttr init = new QpInitAttr(QpType.RC, c, c, new QpCap(1, 0, 1, 0, 0));
                    init.srq = q;
                    made[i] = pd.createQp(init);
                }
            } catch (RuntimeException e) {
                closeAll(made, q, c, channel, null);
                throw e;
            }
            cq = c;
            srq = q;
            qps = made;
            qpNums = new int[numQp];
            boolean inline = false;
            for (int i = 0; i < numQp; i++) {
                qpNums[i] = qps[i].qpNum();
                inline |= qps[i].cap().maxInlineData >= size; // as the tool decides
            }
            try {
                buffers = new HotPathWarmup.Buffers(arena, pd, memory, Math.max(size, 1), 0, size);
            } catch (RuntimeException e) {
                closeAll(qps, srq, cq, channel, null);
                throw e;
            }
            SendWr swr = buffers.swr;
            swr.wrId = PingpongCommand.SEND_WRID;
            swr.opcode = WrOpcode.SEND;
            swr.sendFlags = SendFlags.SIGNALED | (inline ? SendFlags.INLINE : 0);
            sender = new PingpongCompletions.PostSends(qps, swr);
            receiver = new PingpongCompletions.PostSrqRecvs(srq, buffers.rwr);
        }

        @Override
        public void close() {
            closeAll(qps, srq, cq, channel, buffers);
        }

        private static void closeAll(QueuePair[] qps, SharedReceiveQueue srq, CompletionQueue cq,
                                     CompletionChannel channel, HotPathWarmup.Buffers buffers) {
            for (QueuePair qp : qps) {
                if (qp != null) {
                    qp.close();
                }
            }
            if (srq != null) {
                srq.close();
            }
            if (cq != null) {
                cq.close();
            }
            if (channel != null) {
                channel.close();
            }
            if (buffers != null) {
                buffers.close();
            }
        }
    }

    /**
     * Runs the exchange between two fresh sides of {@code numQp} QPs on {@code dev} until the JIT
     * is quiet, {@code roundTrips} (exchanges of all QPs together, as {@code -n} counts) are done
     * or {@code budgetNanos} passed; everything it created is gone when it returns.
     */
    static HotPathWarmup.Result run(Device dev, int numQp, int rxDepth, int size, int mtuEnum, int roundTrips,
                                    long budgetNanos) {
        return run(dev, numQp, rxDepth, size, mtuEnum, roundTrips, budgetNanos, HotPathWarmup.Memory.PINNED);
    }

    /** {@link #run(Device, int, int, int, int, int, long)} with buffers registered as {@code memory} says. */
    static HotPathWarmup.Result run(Device dev, int numQp, int rxDepth, int size, int mtuEnum, int roundTrips,
                                    long budgetNanos, HotPathWarmup.Memory memory) {
        return run(dev, numQp, rxDepth, size, mtuEnum, roundTrips, budgetNanos, memory, false);
    }

    /** {@link #run(Device, int, int, int, int, int, long, HotPathWarmup.Memory)}, waiting for events as {@code -e} does. */
    static HotPathWarmup.Result run(Device dev, int numQp, int rxDepth, int size, int mtuEnum, int roundTrips,
                                    long budgetNanos, HotPathWarmup.Memory memory, boolean events) {
        long start = System.nanoTime();
        HotPathWarmup.Episodes episodes = new HotPathWarmup.Episodes(roundTrips, start + budgetNanos);
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pd = dev.allocPd();
            try (Side a = new Side(dev, pd, arena, numQp, rxDepth, size, memory, events);
                 Side b = new Side(dev, pd, arena, numQp, rxDepth, size, memory, events)) {
                RcConnect rc = new RcConnect().pathMtu(mtuEnum);
                for (int i = 0; i < numQp; i++) {
                    rc.pair(a.qps[i], 0x100 + i, b.qps[i], 0x200 + i);
                }
                a.routs = a.receiver.post(rxDepth);
                b.routs = b.receiver.post(rxDepth);
                if (memory.renews()) {
                    episodes.between = () -> {
                        a.buffers.renew();
                        b.buffers.renew();
                    };
                }
                Thread responder = Thread.ofPlatform().name("jrxe-warmup").start(() -> {
                    try {
                        play(dev, b, rxDepth, false, episodes);
                    } catch (RuntimeException e) {
                        episodes.abandon(); // a warm-up that fails only ends the warm-up
                    }
                });
                try {
                    play(dev, a, rxDepth, true, episodes);
                } catch (RuntimeException e) {
                    episodes.abandon();
                } finally {
                    HotPathWarmup.join(responder);
                }
            } finally {
                pd.close();
            }
        }
        return new HotPathWarmup.Result(episodes.roundTrips(), episodes.busyRoundTrips(), episodes.events.get(), 0,
            System.nanoTime() - start);
    }

    /** One side's episodes: srq-pingpong's run, the initiator as its client. */
    private static void play(Device dev, Side s, int rxDepth, boolean initiator, HotPathWarmup.Episodes episodes) {
        int numQp = s.qps.length;
        PrintWriter quiet = new PrintWriter(java.io.Writer.nullWriter());
        CompletionWatch watch = CompletionWatch.of(quiet, "warm-up", 0, HotPathWarmup.STALL_SECONDS, dev);
        WorkCompletion[] wc = new WorkCompletion[numQp + rxDepth]; // the tool's
        for (int i = 0; i < wc.length; i++) {
            wc[i] = new WorkCompletion();
        }
        int length;
        while ((length = episodes.length()) > 0) {
            s.sender.limit(length);
            PingpongCompletions wcs = new PingpongCompletions(quiet, length, rxDepth, numQp, s.routs, s.qpNums,
                s.sender, s.receiver, watch);
            boolean ok = true;
            for (int i = 0; i < numQp; i++) {
                if (initiator) {
                    ok &= s.sender.post(i);
                    wcs.expect(i, PingpongCommand.RECV_WRID | PingpongCommand.SEND_WRID);
                } else {
                    wcs.expect(i, PingpongCommand.RECV_WRID);
                }
            }
            ok = ok && HotPathWarmup.loop(wcs, s.cq, s.channel, wc, watch, episodes.yielding()) == 0;
            if (wcs.events() > 0) {
                s.cq.ackEvents(wcs.events());
                episodes.events.addAndGet(wcs.events());
            }
            s.routs = wcs.outstandingReceives();
            if (!episodes.next(ok)) {
                return;
            }
        }
    }
}
