package dev.jrxe.verbs;

import dev.jrxe.ib.AsyncEventType;

/** An asynchronous event ({@code struct ibv_async_event}): its type and what it is about. */
public record AsyncEvent(int type, QueuePair qp, CompletionQueue cq, int port) {
    @Override
    public String toString() {
        return AsyncEventType.str(type) + (qp != null ? " qp=0x" + Integer.toHexString(qp.qpNum()) : "")
            + (cq != null ? " cq" : "") + (port > 0 ? " port=" + port : "");
    }
}
