package dev.jrxe.cm;

/**
 * {@code struct rdma_conn_param}: what {@link CmId#connect} asks for and {@link CmId#accept}
 * grants, and what the CM reports in {@link CmEvent#param()}. Responder resources and initiator
 * depth bound the RDMA READs and atomics in flight ({@code max_dest_rd_atomic} /
 * {@code max_rd_atomic}); retry counts 0..7 (RNR retry 7: forever). Out-of-range counts are
 * clamped (READ/atomic depths to 0..16, retries to 0..7), not refused.
 *
 * <p>Not thread safe: a mutable holder, one per thread. {@code connect} and {@code accept} read
 * it (and copy its private data) before they return, so it may be reused right after.
 *
 * <pre>{@code
 * ConnParam p = new ConnParam();
 * p.responderResources = 4;
 * p.initiatorDepth = 4;
 * p.privateData = "hello".getBytes(StandardCharsets.US_ASCII);
 * id.connect(p);
 * }</pre>
 */
public final class ConnParam {
    /**
     * {@code private_data}: sent in the REQ (at most {@link CmaHeader#USER_DATA_SIZE}, 56 bytes),
     * REP (196), SIDR_REQ (180) or SIDR_REP (136), else EINVAL; null sends zeros.
     */
    public byte[] privateData;
    /**
     * {@code responder_resources}: RDMA READs/atomics from the peer this side serves at once (its QP's
     * {@code max_dest_rd_atomic} is at most this); default 1.
     */
    public int responderResources = 1;
    /**
     * {@code initiator_depth}: RDMA READs/atomics this side keeps outstanding to the peer (its QP's
     * {@code max_rd_atomic} is at most this); default 1.
     */
    public int initiatorDepth = 1;
    /**
     * {@code retry_count}: transport retries ({@code retry_cnt}) of both QPs, sent in the REQ;
     * {@code accept} ignores it (the REQ's holds); default 7.
     */
    public int retryCount = 7;
    /**
     * {@code rnr_retry_count}: RNR NAK retries of the peer's QP ({@code rnr_retry}, 7 = forever), sent
     * in the REQ or REP; default 7.
     */
    public int rnrRetryCount = 7;
    /**
     * {@code qp_num}: in events, the peer's QPN; {@code connect} and {@code accept} ignore it (they
     * use the id's own QP).
     */
    public int qpNum;
    /**
     * UD ids (RDMA_PS_UDP): in ESTABLISHED, the peer's Q_Key ({@code param.ud.qkey}); send to
     * {@code qpNum} with it. Ignored on connect and accept.
     */
    public int qkey;

    /** librdmacm-like defaults: responder resources and initiator depth 1, both retry counts 7, no private data. */
    public ConnParam() {
    }

    ConnParam copy() {
        ConnParam c = new ConnParam();
        c.privateData = privateData == null ? null : privateData.clone();
        c.responderResources = responderResources;
        c.initiatorDepth = initiatorDepth;
        c.retryCount = retryCount;
        c.rnrRetryCount = rnrRetryCount;
        c.qpNum = qpNum;
        c.qkey = qkey;
        return c;
    }
}
