package dev.jrxe.verbs;

import dev.jrxe.ib.QpAttrMask;
import dev.jrxe.ib.QpState;

/**
 * Walks a UD queue pair RESET → INIT → RTR → RTS with the masks the kernel requires for UD (INIT:
 * P_Key index, port, Q_Key; RTR: nothing; RTS: SQ PSN), as ibv_ud_pingpong does; it serves SRD
 * QPs ({@link SrdDv}) too, whose state table is UD's. A UD QP has no peer: every send names its
 * destination with an {@link AddressHandle}, remote QPN and Q_Key.
 *
 * <p>A static helper: it may run on any thread, as {@link QueuePair#modify} may (but walk each QP
 * from one thread only).
 *
 * <pre>{@code
 * QueuePair qp = pd.createQp(new QpInitAttr(QpType.UD, cq, cq, new QpCap(64, 64, 1, 1, 0)));
 * UdSetup.toRts(qp, 0x11111111, 0);
 * }</pre>
 */
public final class UdSetup {
    private UdSetup() {
    }

    /**
     * Moves the QP from RESET to RTS in three {@code ibv_modify_qp} calls: INIT with P_Key index 0,
     * port 1 and {@code qkey}; RTR; RTS with {@code sqPsn}.
     *
     * @param qp    a UD (or SRD) QP in RESET (INIT works too: INIT to INIT is allowed)
     * @param qkey  the QP's Q_Key, which incoming datagrams must carry; one with the high bit set
     *              is EPERM unless {@link DeviceConfig#privilegedQkey(boolean)} allows it
     * @param sqPsn the first PSN it sends (low 24 bits)
     * @throws VerbsException EINVAL for an RC or UC QP or one already past INIT (the first step
     *     fails, so nothing changes); what {@link QueuePair#modify} throws
     * @throws IllegalStateException when the QP or its device is closed
     */
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
