package dev.jrxe.verbs;

import dev.jrxe.ib.AsyncEventType;

/** An asynchronous event ({@code struct ibv_async_event}): its type and what it is about. */
public record AsyncEvent(int type, QueuePair qp, CompletionQueue cq, int port, SharedReceiveQueue srq) {
    public AsyncEvent(int type, QueuePair qp, CompletionQueue cq, int port) {
        this(type, qp, cq, port, null);
    }

    @Override
    public String toString() {
        return AsyncEventType.str(type) + (qp != null ? " qp=0x" + Integer.toHexString(qp.qpNum()) : "")
            + (cq != null ? " cq" : "") + (port > 0 ? " port=" + port : "") + (srq != null ? " srq" : "");
    }
}
