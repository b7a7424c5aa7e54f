package dev.jrxe.verbs;

import dev.jrxe.ib.AsyncEventType;

/**
 * An asynchronous event ({@code struct ibv_async_event}) as {@link Device#getAsyncEvent} and
 * {@link Device#pollAsyncEvent()} return it: its type and the object it is about (the others are
 * null, or 0 for the port). Unlike libibverbs there is nothing to acknowledge
 * ({@code ibv_ack_async_event}).
 *
 * <p>Immutable (a record); safe to share between threads.
 *
 * <pre>{@code
 * AsyncEvent e = dev.getAsyncEvent(1, TimeUnit.SECONDS);  // null when none came within a second
 * System.out.println(e);                                  // first after open: "port active port=1"
 * if (e != null && e.type() == AsyncEventType.QP_FATAL) { e.qp().close(); }
 * }</pre>
 *
 * @param type {@code event_type}, an {@link AsyncEventType} value (e.g. {@code IBV_EVENT_QP_FATAL})
 * @param qp   the QP of a QP event ({@code element.qp}), else null
 * @param cq   the CQ of {@code IBV_EVENT_CQ_ERR} ({@code element.cq}), else null
 * @param port the port of a port event ({@code element.port_num}, 1), else 0
 * @param srq  the SRQ of an SRQ event such as {@code IBV_EVENT_SRQ_LIMIT_REACHED} ({@code element.srq}), else null
 */
public record AsyncEvent(int type, QueuePair qp, CompletionQueue cq, int port, SharedReceiveQueue srq) {
    /**
     * An event about a QP, CQ or port (no SRQ).
     *
     * @param type an {@link AsyncEventType} value
     * @param qp   the QP, or null
     * @param cq   the CQ, or null
     * @param port the port, or 0
     */
    public AsyncEvent(int type, QueuePair qp, CompletionQueue cq, int port) {
        this(type, qp, cq, port, null);
    }

    /**
     * {@return the event's text as {@code ibv_event_type_str} gives it, then its object, such as
     * {@code "send queue drained qp=0x11"}}
     */
    @Override
    public String toString() {
        return AsyncEventType.str(type) + (qp != null ? " qp=0x" + Integer.toHexString(qp.qpNum()) : "")
            + (cq != null ? " cq" : "") + (port > 0 ? " port=" + port : "") + (srq != null ? " srq" : "");
    }
}
