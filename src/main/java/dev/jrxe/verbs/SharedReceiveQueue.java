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
 */
public final class SharedReceiveQueue implements AutoCloseable {
    /** {@code ibv_srq_attr_mask}. */
    public static final int ATTR_MAX_WR = 1;
    public static final int ATTR_LIMIT = 1 << 1;

    private final ProtectionDomain pd;
    private final RecvQueue queue;
    private final int maxWr;
    private final int maxSge;
    final AtomicInteger users = new AtomicInteger();
    private boolean closed;

    /** {@code struct ibv_srq_attr}. */
    public static final class Attr {
        public int maxWr;
        public int maxSge;
        public int srqLimit;

        public Attr() {
        }

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
     * advertise SRQ_RESIZE).
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

    /** {@code ibv_query_srq}: max_wr, max_sge and the armed limit (0 once it fired). */
    public Attr query() {
        return new Attr(maxWr, maxSge, queue.limit());
    }

    /**
     * {@code ibv_post_srq_recv}: posts the chain; EINVAL for too many SGEs, ENOMEM when full; stops
     * at the first bad request.
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

    /** {@code ibv_destroy_srq}: EBUSY while QPs use it; twice is harmless. */
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
