package dev.jrxe.verbs;

import dev.jrxe.ib.Mtu;

/** {@code struct ibv_qp_attr}: the fields {@code ibv_modify_qp} / {@code ibv_query_qp} use. */
public final class QpAttr {
    public int qpState;
    public int curQpState;
    public int pathMtu = Mtu.MTU_1024;
    public int qkey;
    public int rqPsn;
    public int sqPsn;
    public int destQpNum;
    public int qpAccessFlags;
    public QpCap cap = new QpCap();
    public AhAttr ahAttr = new AhAttr();
    public int pkeyIndex;
    public boolean sqDrainNotify;
    /** Query only: the QP is in SQD and still has work requests in progress. */
    public boolean sqDraining;
    public int maxRdAtomic;
    public int maxDestRdAtomic;
    public int minRnrTimer;
    public int portNum;
    public int timeout;
    public int retryCnt;
    public int rnrRetry;

    public QpAttr state(int s) {
        this.qpState = s;
        return this;
    }
}
