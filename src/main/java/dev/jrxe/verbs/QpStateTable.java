package dev.jrxe.verbs;

import static dev.jrxe.ib.QpAttrMask.ACCESS_FLAGS;
import static dev.jrxe.ib.QpAttrMask.ALT_PATH;
import static dev.jrxe.ib.QpAttrMask.AV;
import static dev.jrxe.ib.QpAttrMask.CUR_STATE;
import static dev.jrxe.ib.QpAttrMask.DEST_QPN;
import static dev.jrxe.ib.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static dev.jrxe.ib.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static dev.jrxe.ib.QpAttrMask.MAX_QP_RD_ATOMIC;
import static dev.jrxe.ib.QpAttrMask.MIN_RNR_TIMER;
import static dev.jrxe.ib.QpAttrMask.PATH_MIG_STATE;
import static dev.jrxe.ib.QpAttrMask.PATH_MTU;
import static dev.jrxe.ib.QpAttrMask.PKEY_INDEX;
import static dev.jrxe.ib.QpAttrMask.PORT;
import static dev.jrxe.ib.QpAttrMask.QKEY;
import static dev.jrxe.ib.QpAttrMask.RETRY_CNT;
import static dev.jrxe.ib.QpAttrMask.RNR_RETRY;
import static dev.jrxe.ib.QpAttrMask.RQ_PSN;
import static dev.jrxe.ib.QpAttrMask.SQ_PSN;
import static dev.jrxe.ib.QpAttrMask.STATE;
import static dev.jrxe.ib.QpAttrMask.TIMEOUT;

import dev.jrxe.ib.QpState;
import dev.jrxe.ib.QpType;

/**
 * The IBTA QP state machine with the required and optional attribute masks per transition, per
 * QP type, as the kernel's {@code qp_state_table} / {@code ib_modify_qp_is_ok} has them.
 */
final class QpStateTable {
    private static final int RESET = QpState.RESET;
    private static final int INIT = QpState.INIT;
    private static final int RTR = QpState.RTR;
    private static final int RTS = QpState.RTS;
    private static final int SQD = QpState.SQD;
    private static final int SQE = QpState.SQE;
    private static final int ERR = QpState.ERR;

    /**
     * [type index][cur][next] = {required, optional}, null when invalid; type index 0 = UD, 1 = UC, 2
     * = RC, 3 = SRD.
     */
    private static final int[][][][] TABLE = new int[4][QpState.COUNT][QpState.COUNT][];

    private QpStateTable() {
    }

    private static void put(int t, int cur, int next, int required, int optional) {
        TABLE[t][cur][next] = new int[] {required, optional};
    }

    static {
        for (int t = 0; t < 4; t++) {
            for (int s = 0; s < QpState.COUNT; s++) {
                put(t, s, RESET, 0, 0);
                put(t, s, ERR, 0, 0);
            }
            put(t, RESET, RESET, 0, 0);
        }
        // UD
        put(0, RESET, INIT, PKEY_INDEX | PORT | QKEY, 0);
        put(0, INIT, INIT, 0, PKEY_INDEX | PORT | QKEY);
        put(0, INIT, RTR, 0, PKEY_INDEX | QKEY);
        put(0, RTR, RTS, SQ_PSN, CUR_STATE | QKEY);
        put(0, RTS, RTS, 0, CUR_STATE | QKEY);
        put(0, RTS, SQD, 0, EN_SQD_ASYNC_NOTIFY);
        put(0, SQD, RTS, 0, CUR_STATE | QKEY);
        put(0, SQD, SQD, 0, PKEY_INDEX | QKEY);
        put(0, SQE, RTS, 0, CUR_STATE | QKEY);
        // SRD (efa srd_qp_state_table): UD's, with RNR_RETRY optional on RTR -> RTS
        put(3, RESET, INIT, PKEY_INDEX | PORT | QKEY, 0);
        put(3, INIT, INIT, 0, PKEY_INDEX | PORT | QKEY);
        put(3, INIT, RTR, 0, PKEY_INDEX | QKEY);
        put(3, RTR, RTS, SQ_PSN, CUR_STATE | QKEY | RNR_RETRY);
        put(3, RTS, RTS, 0, CUR_STATE | QKEY);
        put(3, RTS, SQD, 0, EN_SQD_ASYNC_NOTIFY);
        put(3, SQD, RTS, 0, CUR_STATE | QKEY);
        put(3, SQD, SQD, 0, PKEY_INDEX | QKEY);
        put(3, SQE, RTS, 0, CUR_STATE | QKEY);
        // UC
        put(1, RESET, INIT, PKEY_INDEX | PORT | ACCESS_FLAGS, 0);
        put(1, INIT, INIT, 0, PKEY_INDEX | PORT | ACCESS_FLAGS);
        put(1, INIT, RTR, AV | PATH_MTU | DEST_QPN | RQ_PSN, ALT_PATH | ACCESS_FLAGS | PKEY_INDEX);
        put(1, RTR, RTS, SQ_PSN, CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE);
        put(1, RTS, RTS, 0, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE);
        put(1, RTS, SQD, 0, EN_SQD_ASYNC_NOTIFY);
        put(1, SQD, RTS, 0, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE);
        put(1, SQD, SQD, 0, AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE);
        put(1, SQE, RTS, 0, CUR_STATE | ACCESS_FLAGS);
        // RC
        put(2, RESET, INIT, PKEY_INDEX | PORT | ACCESS_FLAGS, 0);
        put(2, INIT, INIT, 0, PKEY_INDEX | PORT | ACCESS_FLAGS);
        put(2, INIT, RTR, AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER,
            ALT_PATH | ACCESS_FLAGS | PKEY_INDEX);
        put(2, RTR, RTS, SQ_PSN | MAX_QP_RD_ATOMIC | RETRY_CNT | RNR_RETRY | TIMEOUT,
            CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE);
        put(2, RTS, RTS, 0, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER);
        put(2, RTS, SQD, 0, EN_SQD_ASYNC_NOTIFY);
        put(2, SQD, RTS, 0, CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER);
        put(2, SQD, SQD, 0, PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC
            | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE);
    }

    private static int typeIndex(int qpType) {
        return switch (qpType) {
            case QpType.UD -> 0;
            case QpType.UC -> 1;
            case QpType.RC -> 2;
            case QpType.DRIVER -> 3;
            default -> -1;
        };
    }

    /** True when {@code cur -> next} with {@code mask} is a valid modify for this QP type. */
    static boolean isOk(int qpType, int cur, int next, int mask) {
        int t = typeIndex(qpType);
        if (t < 0 || cur < 0 || cur >= QpState.COUNT || next < 0 || next >= QpState.COUNT) {
            return false;
        }
        if ((mask & CUR_STATE) != 0 && cur != RTR && cur != RTS && cur != SQD && cur != SQE) {
            return false;
        }
        int[] e = TABLE[t][cur][next];
        if (e == null) {
            return false;
        }
        int required = e[0];
        int optional = e[1];
        if ((mask & required) != required) {
            return false;
        }
        return (mask & ~(required | optional | STATE)) == 0;
    }
}
