package dev.jrxe.verbs;

/** QP capabilities ({@code struct ibv_qp_cap}); creation writes back what was granted. */
public final class QpCap {
    public int maxSendWr = 1;
    public int maxRecvWr = 1;
    public int maxSendSge = 1;
    public int maxRecvSge = 1;
    public int maxInlineData;

    public QpCap() {
    }

    public QpCap(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        this.maxSendSge = maxSendSge;
        this.maxRecvSge = maxRecvSge;
        this.maxInlineData = maxInlineData;
    }

    QpCap copy() {
        return new QpCap(maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData);
    }
}
