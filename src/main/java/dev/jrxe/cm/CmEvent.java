package dev.jrxe.cm;

/**
 * {@code struct rdma_cm_event}: what happened to {@code id}, as {@link EventChannel#getEvent()}
 * returns it. Acknowledge with {@link #ack()} ({@code rdma_ack_cm_event}) as a librdmacm
 * program does; in jrxe nothing waits for it (destroying an id does not block on unacknowledged
 * events).
 *
 * <p>A record: its fields never change, but {@code privateData} and {@code param} are the
 * event's own mutable objects (not copied); share the event across threads only read-only.
 *
 * <pre>{@code
 * CmEvent e = channel.getEvent();
 * e.ack();
 * if (e.type() == CmEventType.CONNECT_REQUEST) {
 *     e.id().createQp(pd, qpAttr);
 *     e.id().accept(new ConnParam());
 * }
 * }</pre>
 *
 * @param type a {@link CmEventType} constant ({@code event})
 * @param id the id the event is about ({@code id}); for CONNECT_REQUEST the new passive id
 * @param listenId the listener a passive id's REQ came to ({@code listen_id}), or null for an
 *     active id
 * @param status 0, or: for REJECTED the REJ reason ({@link CmMessages.RejReason}); for
 *     UNREACHABLE {@code -ETIMEDOUT} (or, for a UD id, the SIDR_REP status); for CONNECT_ERROR,
 *     ADDR_ERROR and ADDRINFO_ERROR a negative errno
 * @param privateData the peer's private data ({@code param.conn.private_data}), or null: the user
 *     part of a REQ or SIDR_REQ (after the {@link CmaHeader}), the whole field of a REP, RTU,
 *     SIDR_REP or DREQ, a consumer-defined REJ's; always the field's full length
 * @param param the connection parameters ({@code param.conn}, {@code param.ud}): for
 *     CONNECT_REQUEST what the peer asks (responder resources and initiator depth as this side
 *     sees them, retry counts, its QPN); for ESTABLISHED what was settled (active side), only the
 *     peer's QPN (passive side), or the peer's QPN and Q_Key (UD); null for other events
 */
public record CmEvent(int type, CmId id, CmId listenId, int status, byte[] privateData, ConnParam param) {
    /** {@code rdma_ack_cm_event}: accepted for librdmacm parity; in jrxe it releases nothing and never blocks. */
    public void ack() {
        id.acked();
    }

    @Override
    public String toString() {
        return CmEventType.str(type) + (status != 0 ? " status " + status : "");
    }
}
