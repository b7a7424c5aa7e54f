package dev.jrxe.cm;

/**
 * {@code struct rdma_conn_param}: what {@link CmId#connect} asks for and {@link CmId#accept}
 * grants. Responder resources and initiator depth bound the RDMA READs and atomics in flight
 * (max_dest_rd_atomic / max_rd_atomic); retry counts 0..7 (7: RNR retries forever).
 */
public final class ConnParam {
    public byte[] privateData;
    public int responderResources = 1;
    public int initiatorDepth = 1;
    public int retryCount = 7;
    public int rnrRetryCount = 7;
    /** The peer's QPN (filled in the events), or a self-managed QP's number ({@code rping -q}). */
    public int qpNum;
    /** UD ids (RDMA_PS_UDP): the peer's Q_Key ({@code param.ud.qkey}); send to {@code qpNum} with it. */
    public int qkey;

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
