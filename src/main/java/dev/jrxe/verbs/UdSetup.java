package dev.jrxe.verbs;

import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;

/**
 * Walks a UD queue pair RESET → INIT → RTR → RTS with the masks the kernel requires for UD (INIT:
 * P_Key index, port, Q_Key; RTR: nothing; RTS: SQ PSN), as ibv_ud_pingpong does. A UD QP has no
 * peer: every send names its destination with an {@link AddressHandle}, remote QPN and Q_Key.
 */
public final class UdSetup {
    private UdSetup() {
    }

    /** To RTS with Q_Key {@code qkey} and first PSN {@code sqPsn}. */
    public static void toRts(QueuePair qp, int qkey, int sqPsn) {
        QpAttr a = new QpAttr();
        a.qpState = QpState.INIT;
        a.pkeyIndex = 0;
        a.portNum = 1;
        a.qkey = qkey;
        qp.modify(a, QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.QKEY);
        qp.modify(new QpAttr().state(QpState.RTR), QpAttrMask.STATE);
        QpAttr r = new QpAttr();
        r.qpState = QpState.RTS;
        r.sqPsn = sqPsn;
        qp.modify(r, QpAttrMask.STATE | QpAttrMask.SQ_PSN);
    }
}
