package dev.jrxe.tools;

import static dev.jrxe.tools.PingpongCommand.RECV_WRID;
import static dev.jrxe.tools.PingpongCommand.SEND_WRID;

import dev.jrxe.ib.WcStatus;
import java.io.PrintWriter;

/**
 * What the ibv_*_pingpong tools do with each work completion (rc_pingpong's parse_single_wc, the
 * same loop body in the others): count sends and receives, refill the receive queue when it runs
 * low, and post a QP's next send once both its last send and a receive on it completed. The run
 * ends when both counts reach the iterations; srq_pingpong counts over all its QPs together.
 */
final class PingpongCompletions {
    /** {@link #pollAndComplete}: the run goes on. */
    private static final int MORE = Integer.MIN_VALUE;

    /** Posts the next send on the QP at {@code qpIndex}; false when the post failed. */
    interface Sender {
        boolean post(int qpIndex);
    }

    /** Posts up to {@code n} receives and returns how many it posted (it stops at the first failure). */
    interface Receiver {
        int post(int n);
    }

    /**
     * The classic post of one QP's send: one class for the tools' loops and their warm-up
     * ({@link HotPathWarmup}), so that the code compiled during the warm-up is not thrown away
     * when the measured loop brings a call target the JIT has not seen.
     */
    record PostSend(dev.jrxe.verbs.QueuePair qp, dev.jrxe.verbs.SendWr wr) implements Sender {
        @Override
        public boolean post(int qpIndex) {
            return PingpongCommand.postSend(qp, wr);
        }
    }

    /**
     * rc_pingpong -N's post of one QP's send: ibv_wr_start, ibv_wr_send, ibv_wr_set_sge,
     * ibv_wr_complete on a QP made with {@code sendOpsFlags} SEND; shared as {@link PostSend} is.
     */
    record BuildSend(dev.jrxe.verbs.QueuePair qp, dev.jrxe.verbs.SendWr wr) implements Sender {
        @Override
        public boolean post(int qpIndex) {
            try {
                dev.jrxe.verbs.QpEx x = qp.ex();
                x.start();
                x.wrId = wr.wrId;
                x.wrFlags = wr.sendFlags;
                x.send();
                x.setSge(wr.sgList[0].lkey, wr.sgList[0].addr, wr.sgList[0].length);
                x.complete();
                return true;
            } catch (dev.jrxe.verbs.VerbsException e) {
                return false;
            }
        }
    }

    /** pp_post_recv of one QP, shared as {@link PostSend} is. */
    record PostRecvs(dev.jrxe.verbs.QueuePair qp, dev.jrxe.verbs.RecvWr wr) implements Receiver {
        @Override
        public int post(int n) {
            return PingpongCommand.postRecvs(qp, wr, n);
        }
    }

    /**
     * srq_pingpong's post of QP i's send, shared by srq-pingpong and its warm-up ({@link SrqWarmup})
     * as {@link PostSend} is. A run posts without limit, as srq_pingpong, whose client may post up
     * to a send per QP more than {@code -n}; a warm-up episode posts exactly its length
     * ({@link #limit}), so that it ends with nothing in flight for the next one to find.
     */
    static final class PostSends implements Sender {
        private final dev.jrxe.verbs.QueuePair[] qps;
        private final dev.jrxe.verbs.SendWr wr;
        private int limit = Integer.MAX_VALUE;
        private int posted;

        PostSends(dev.jrxe.verbs.QueuePair[] qps, dev.jrxe.verbs.SendWr wr) {
            this.qps = qps;
            this.wr = wr;
        }

        /** From now on posts at most {@code sends} more (a post beyond them is skipped, and is no failure). */
        void limit(int sends) {
            limit = sends;
            posted = 0;
        }

        @Override
        public boolean post(int qpIndex) {
            if (posted >= limit) {
                return true;
            }
            posted++;
            return PingpongCommand.postSend(qps[qpIndex], wr);
        }
    }

    /** srq_pingpong's pp_post_recv into the shared receive queue, shared as {@link PostSends} is. */
    record PostSrqRecvs(dev.jrxe.verbs.SharedReceiveQueue srq, dev.jrxe.verbs.RecvWr wr) implements Receiver {
        @Override
        public int post(int n) {
            return SrqPingpongCommand.postSrqRecvs(srq, wr, n);
        }
    }

    private final PrintWriter err;
    private final int iters;
    private final int rxDepth;
    private final int refillAt;
    private final int[] qpNums;
    private final int[] pending;
    private final Sender sender;
    private final Receiver receiver;
    private final CompletionWatch watch;
    private int routs;
    private int rcnt;
    private int scnt;
    private int events;

    /**
     * @param routs    receives posted before the run
     * @param refillAt refill once this few receives are left: 1, srq_pingpong's number of QPs
     * @param qpNums   the QPs by index, to match completions with (srq_pingpong's find_qp); null
     *                 for one QP, whose completions the tools do not match
     * @param watch    told of every completion (the wait starts over); names the likely causes
     *                 when the peer stopped acknowledging
     */
    PingpongCompletions(PrintWriter err, int iters, int rxDepth, int refillAt, int routs, int[] qpNums,
                        Sender sender, Receiver receiver, CompletionWatch watch) {
        this.err = err;
        this.iters = iters;
        this.rxDepth = rxDepth;
        this.refillAt = refillAt;
        this.routs = routs;
        this.qpNums = qpNums;
        this.pending = new int[qpNums == null ? 1 : qpNums.length];
        this.sender = sender;
        this.receiver = receiver;
        this.watch = watch;
    }

    /** What the QP at {@code qpIndex} waits for before its next send ({@code RECV_WRID | SEND_WRID} bits). */
    void expect(int qpIndex, int wrIds) {
        pending[qpIndex] = wrIds;
    }

    /** Receives posted and not yet completed: what the next run on the same QP starts with. */
    int outstandingReceives() {
        return routs;
    }

    /**
     * The busy-polling loop of a run (the tools without {@code -e}): polls {@code cq} until it has
     * completions (for as long as the watch allows), hands each to {@link #complete}, until
     * {@link #running} ends. The tools' measured loops and their warm-up ({@link HotPathWarmup})
     * run this one method, so that what the JIT compiled and profiled in the warm-up is what the
     * measurement runs: a loop of its own in the warm-up left the measured one to be compiled,
     * and its callees recompiled, while it was timed.
     *
     * @param wc room for the completions of one poll
     * @return 0 when the run is complete; -1 when the watch gave up (the reason printed); else the
     *     completions of the poll in which {@link #complete} failed (the reason printed)
     */
    int busyPoll(dev.jrxe.verbs.CompletionQueue cq, dev.jrxe.verbs.WorkCompletion[] wc) {
        if (!running()) {
            return 0;
        }
        int r;
        do {
            r = pollAndComplete(cq, wc);
        } while (r == MORE);
        return r;
    }

    /**
     * One turn of {@link #busyPoll}: the completions of one poll, or {@link #MORE}. A method of its
     * own because the loop's end, once per run, is a branch the JIT compiles the loop without
     * (it has never seen it taken) and then throws the compiled loop away at: called once per
     * warm-up episode, the loop is compiled again only late, and a measured run then began
     * interpreted (seen with {@code -Xlog:deoptimization}). This part runs thousands of times per
     * episode, so it is compiled again within one episode, and a loop left interpreted only calls it.
     */
    private int pollAndComplete(dev.jrxe.verbs.CompletionQueue cq, dev.jrxe.verbs.WorkCompletion[] wc) {
        int ne;
        do {
            ne = cq.poll(wc);
        } while (ne < 1 && watch.keepPolling());
        if (ne < 1) {
            return -1;
        }
        for (int i = 0; i < ne; i++) {
            if (!complete(wc[i].wrId, wc[i].status, wc[i].qpNum)) {
                return ne;
            }
        }
        return running() ? MORE : 0;
    }

    /**
     * The loop of a run with completion events ({@code -e}), the C tools' order: wait for the
     * CQ's event, re-arm it, poll once, hand each completion to {@link #complete}, until
     * {@link #running} ends. An event that brings no completion is one more wait. The tools'
     * measured loop and their warm-up run this one method, as {@link #busyPoll}. Counts the events
     * it took ({@link #events}: the caller acknowledges them).
     *
     * @param wc room for the completions of one poll
     * @return as {@link #busyPoll}; -1 also for an event of another CQ (the reason printed)
     */
    int eventLoop(dev.jrxe.verbs.CompletionChannel channel, dev.jrxe.verbs.CompletionQueue cq,
                  dev.jrxe.verbs.WorkCompletion[] wc) throws InterruptedException {
        if (!running()) {
            return 0;
        }
        int r;
        do {
            r = awaitAndComplete(channel, cq, wc);
        } while (r == MORE);
        return r;
    }

    /** One turn of {@link #eventLoop}, a method of its own for the reason {@link #pollAndComplete} is. */
    private int awaitAndComplete(dev.jrxe.verbs.CompletionChannel channel, dev.jrxe.verbs.CompletionQueue cq,
                                 dev.jrxe.verbs.WorkCompletion[] wc) throws InterruptedException {
        if (!awaitEvent(channel, cq)) {
            return -1;
        }
        int ne = cq.poll(wc);
        if (ne < 1) {
            return watch.keepWaiting() ? MORE : -1;
        }
        for (int i = 0; i < ne; i++) {
            if (!complete(wc[i].wrId, wc[i].status, wc[i].qpNum)) {
                return ne;
            }
        }
        return running() ? MORE : 0;
    }

    /**
     * Waits for {@code cq}'s next event (for as long as the watch allows), counts it and re-arms
     * the CQ, as the C tools do before they poll. False when the run must end (the reason printed).
     */
    boolean awaitEvent(dev.jrxe.verbs.CompletionChannel channel, dev.jrxe.verbs.CompletionQueue cq)
            throws InterruptedException {
        dev.jrxe.verbs.CompletionQueue ev;
        while ((ev = channel.getEvent(1, java.util.concurrent.TimeUnit.SECONDS)) == null) {
            if (!watch.keepWaiting()) {
                return false;
            }
        }
        events++;
        if (ev != cq) {
            err.printf("CQ event for unknown CQ %s%n", ev);
            return false;
        }
        cq.requestNotify(false);
        return true;
    }

    /** The completion events {@link #eventLoop} and {@link #awaitEvent} took so far. */
    int events() {
        return events;
    }

    /** True until both sends and receives reached the iterations. */
    boolean running() {
        return rcnt < iters || scnt < iters;
    }

    /** Counts one completion of QP {@code qpNum}; false after printing why the tool stops. */
    boolean complete(long wrId, int status, int qpNum) {
        watch.completed();
        if (status != WcStatus.SUCCESS) {
            err.printf("Failed status %s (%d) for wr_id %d%n", WcStatus.str(status), status, (int) wrId);
            if (status == WcStatus.RETRY_EXC_ERR || status == WcStatus.RNR_RETRY_EXC_ERR) {
                err.printf("(no acknowledgement from the peer: %s)%n", watch.causes());
            }
            return false;
        }
        int qp = qpIndex(qpNum);
        if (qp < 0) {
            err.printf("Couldn't find QPN %06x%n", qpNum);
            return false;
        }
        switch ((int) wrId) {
            case SEND_WRID -> ++scnt;
            case RECV_WRID -> {
                if (--routs <= refillAt) {
                    routs += receiver.post(rxDepth - routs);
                    if (routs < rxDepth) {
                        err.printf("Couldn't post receive (%d)%n", routs);
                        return false;
                    }
                }
                ++rcnt;
            }
            default -> {
                err.printf("Completion for unknown wr_id %d%n", (int) wrId);
                return false;
            }
        }
        pending[qp] &= ~(int) wrId;
        if (scnt < iters && pending[qp] == 0) {
            if (!sender.post(qp)) {
                err.println("Couldn't post send");
                return false;
            }
            pending[qp] = RECV_WRID | SEND_WRID;
        }
        return true;
    }

    private int qpIndex(int qpNum) {
        if (qpNums == null) {
            return 0;
        }
        for (int i = 0; i < qpNums.length; i++) {
            if (qpNums[i] == qpNum) {
                return i;
            }
        }
        return -1;
    }
}
