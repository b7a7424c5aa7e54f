package dev.jrxe.verbs;

import dev.jrxe.ib.Errno;
import dev.jrxe.transport.RecvQueue;
import dev.jrxe.transport.RecvWqe;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shared receive queue ({@code ibv_srq}): receive WQEs that any QP created with it consumes,
 * in the order they were posted. With the limit armed ({@link #modify}), the device raises
 * {@code IBV_EVENT_SRQ_LIMIT_REACHED} once when fewer WQEs than the limit remain, and disarms it.
 * An empty SRQ makes its RC QPs answer RNR, as an empty receive queue does. A QP that goes to the
 * error state flushes only the WQE it was filling; the rest stay for the other QPs.
 *
 * <pre>{@code
 * SharedReceiveQueue srq = pd.createSrq(new SharedReceiveQueue.Attr(1024, 1, 16)); // max_wr, max_sge, limit
 * QpInitAttr init = new QpInitAttr(QpType.RC, cq, cq, new QpCap());
 * init.srq = srq;                                  // before pd.createQp(init)
 * srq.postRecv(new RecvWr().sge(mr, 0, 4096));     // wrId 0
 * }</pre>
 *
 * <p>Thread safe: {@link #postRecv} serializes on the SRQ (several threads may post), the engine
 * consumes WQEs concurrently (one engine: every QP of an SRQ joins the same one), and {@link #modify}, {@link #query} and {@link #close} may be
 * called from any thread.
 */
public final class SharedReceiveQueue implements AutoCloseable {
    /** {@code IBV_SRQ_MAX_WR} of {@code enum ibv_srq_attr_mask}: resize (not supported: EINVAL). */
    public static final int ATTR_MAX_WR = 1;
    /** {@code IBV_SRQ_LIMIT} of {@code enum ibv_srq_attr_mask}: arm (or disarm) the limit. */
    public static final int ATTR_LIMIT = 1 << 1;

    private final ProtectionDomain pd;
    private final RecvQueue queue;
    private final int maxWr;
    private final int maxSge;
    final AtomicInteger users = new AtomicInteger();
    private boolean closed;
    /** The engine whose QPs consume this SRQ (bound when the first QP using it is created). */
    final EngineBinding binding = new EngineBinding();

    /**
     * {@code struct ibv_srq_attr}: the sizes and limit of an SRQ, for {@link ProtectionDomain#createSrq},
     * {@link #modify} and {@link #query}. Not thread safe: a plain mutable object; the calls copy
     * it (creation writes {@code maxSge} back).
     */
    public static final class Attr {
        /** {@code max_wr}: receive WQEs the SRQ holds, {@code 1..max_srq_wr}. */
        public int maxWr;
        /** {@code max_sge}: SGEs per receive WQE, {@code 0..max_srq_sge} (granted: at least 1). */
        public int maxSge;
        /** {@code srq_limit}: fire {@code IBV_EVENT_SRQ_LIMIT_REACHED} below this many WQEs; 0: not armed. */
        public int srqLimit;

        /** All zero: fill it in, or pass it to {@link #modify} with only {@code srqLimit} set. */
        public Attr() {
        }

        /**
         * Attributes for {@link ProtectionDomain#createSrq}.
         *
         * @param maxWr    {@code max_wr}, receive WQEs
         * @param maxSge   {@code max_sge}, SGEs per WQE
         * @param srqLimit {@code srq_limit}, 0 for none
         */
        public Attr(int maxWr, int maxSge, int srqLimit) {
            this.maxWr = maxWr;
            this.maxSge = maxSge;
            this.srqLimit = srqLimit;
        }
    }

    SharedReceiveQueue(ProtectionDomain pd, Attr attr) {
        if (attr.maxWr < 1 || attr.maxWr > Device.MAX_SRQ_WR) {
            throw VerbsException.einval("max_wr " + attr.maxWr + " outside 1.." + Device.MAX_SRQ_WR);
        }
        if (attr.maxSge < 0 || attr.maxSge > Device.MAX_SRQ_SGE) {
            throw VerbsException.einval("max_sge " + attr.maxSge + " outside 0.." + Device.MAX_SRQ_SGE);
        }
        if (attr.srqLimit < 0 || attr.srqLimit > attr.maxWr) {
            throw VerbsException.einval("srq_limit " + attr.srqLimit + " beyond max_wr " + attr.maxWr);
        }
        pd.device().reserveSrq();
        this.pd = pd;
        this.maxWr = attr.maxWr;
        this.maxSge = Math.max(1, attr.maxSge);
        // rxe reports what it granted: at least one SGE
        attr.maxSge = this.maxSge;
        this.queue = new RecvQueue(maxWr, maxSge);
        if (attr.srqLimit > 0) {
            queue.armLimit(attr.srqLimit, this::limitReached);
        }
    }

    /** {@return the protection domain the SRQ was created in} */
    public ProtectionDomain pd() {
        return pd;
    }

    RecvQueue queue() {
        return queue;
    }

    private void limitReached() {
        pd.device().srqLimitReached(this);
    }

    /**
     * {@code ibv_modify_srq}: {@link #ATTR_LIMIT} arms the limit (0 disarms; more than max_wr:
     * EINVAL). {@link #ATTR_MAX_WR}: EINVAL, jrxe cannot resize an SRQ (the device does not
     * advertise SRQ_RESIZE). Arming again replaces the limit; the event fires once per arming.
     *
     * @param attr the new attributes; only {@code srqLimit} is read
     * @param mask {@link #ATTR_LIMIT}
     * @throws VerbsException EINVAL for another mask bit or a limit outside {@code 0..max_wr}
     */
    public void modify(Attr attr, int mask) {
        if ((mask & ~(ATTR_MAX_WR | ATTR_LIMIT)) != 0 || (mask & ATTR_MAX_WR) != 0) {
            throw VerbsException.einval("only IBV_SRQ_LIMIT can be modified");
        }
        if ((mask & ATTR_LIMIT) != 0) {
            if (attr.srqLimit < 0 || attr.srqLimit > maxWr) {
                throw VerbsException.einval("srq_limit " + attr.srqLimit + " beyond max_wr " + maxWr);
            }
            queue.armLimit(attr.srqLimit, this::limitReached);
        }
    }

    /**
     * {@code ibv_query_srq}.
     *
     * @return a new {@link Attr}: max_wr, max_sge (as granted) and the armed limit (0 once it fired)
     */
    public Attr query() {
        return new Attr(maxWr, maxSge, queue.limit());
    }

    /**
     * {@code ibv_post_srq_recv}: posts the chain; EINVAL for too many SGEs, ENOMEM when full; stops
     * at the first bad request.
     *
     * @param wr the first of a chain linked by {@code next}; the SRQ copies each, so they may be
     *           reused at once
     * @throws PostException EINVAL for more SGEs than max_sge (or than the request has) or a
     *                       destroyed SRQ, ENOMEM when full; {@link PostException#badWr()} is the
     *                       request not posted, those before it were
     */
    public void postRecv(RecvWr wr) {
        synchronized (queue) {
            for (RecvWr r = wr; r != null; r = r.next) {
                if (closed) {
                    throw new PostException(Errno.EINVAL, "SRQ destroyed", r);
                }
                if (r.numSge < 0 || r.numSge > maxSge || r.numSge > r.sgList.length) {
                    throw new PostException(Errno.EINVAL, "num_sge " + r.numSge + " > max_sge " + maxSge, r);
                }
                RecvWqe w = queue.claim();
                if (w == null) {
                    throw new PostException(Errno.ENOMEM, "SRQ full (" + maxWr + ")", r);
                }
                r.copyInto(w);
                queue.publish();
            }
        }
        // no kick: a sender waiting for a WQE retries after its RNR timer on its own
    }

    /** A QP starts using the SRQ: EINVAL once it is destroyed. */
    void attach() {
        synchronized (queue) {
            if (closed) {
                throw VerbsException.einval("the SRQ was destroyed");
            }
            users.incrementAndGet();
        }
    }

    /**
     * {@code ibv_destroy_srq}: EBUSY while QPs use it; twice is harmless. WQEs still posted are
     * dropped without completions.
     *
     * @throws VerbsException EBUSY while a QP created with it exists
     */
    @Override
    public void close() {
        synchronized (queue) {
            if (closed) {
                return;
            }
            if (users.get() > 0) {
                throw new VerbsException(Errno.EBUSY, "SRQ still used by " + users.get() + " QP(s)");
            }
            closed = true;
        }
        pd.device().childClosed(this);
        pd.device().srqClosed();
    }
}
