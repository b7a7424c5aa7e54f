package dev.jrxe.cm;

/**
 * {@code struct rdma_cm_event}: what happened to {@code id} (for CONNECT_REQUEST, the new
 * passive id; {@code listenId} is the listener it came to), a status (REJECTED: the REJ reason;
 * UNREACHABLE: -ETIMEDOUT), the peer's private data (user part: after the rdma_cm header in a
 * REQ) and, for CONNECT_REQUEST and ESTABLISHED, the peer's connection parameters. Acknowledge
 * with {@link #ack()} ({@code rdma_ack_cm_event}): a destroy of the id waits for its events'
 * acknowledgements, as librdmacm's does.
 */
public record CmEvent(int type, CmId id, CmId listenId, int status, byte[] privateData, ConnParam param) {
    /** {@code rdma_ack_cm_event}. */
    public void ack() {
        id.acked();
    }

    @Override
    public String toString() {
        return CmEventType.str(type) + (status != 0 ? " status " + status : "");
    }
}
