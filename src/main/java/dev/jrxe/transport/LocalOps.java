package dev.jrxe.transport;

import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import dev.jrxe.memory.IndirectKey;
import dev.jrxe.memory.IndirectKeys;
import dev.jrxe.memory.MemoryKey;
import dev.jrxe.memory.MemoryWindow;
import dev.jrxe.memory.MemoryWindows;
import dev.jrxe.memory.Region;

/**
 * Work requests the requester executes itself, in send-queue order, without a packet
 * (rxe_do_local_ops): BIND_MW, LOCAL_INV and UMR (configuring an indirect key, WR DRIVER1). Returns the completion status: SUCCESS, MW_BIND_ERR
 * for a bind rxe refuses, LOC_QP_OP_ERR for an invalidation it refuses (a registered MR, a type
 * 1 window, a key that names nothing).
 */
final class LocalOps {
    private LocalOps() {
    }

    static boolean isLocal(int wrOpcode) {
        return wrOpcode == WrOpcode.BIND_MW || wrOpcode == WrOpcode.LOCAL_INV || wrOpcode == WrOpcode.DRIVER1;
    }

    static int execute(KeyResolver keys, Qp qp, SendWqe w) {
        if (w.opcode == WrOpcode.BIND_MW) {
            MemoryKey mw = keys.lookup(w.bindMwKey);
            MemoryKey mr = w.bindMrKey == 0 && w.bindLength == 0 ? null : keys.lookup(w.bindMrKey);
            if (!(mw instanceof MemoryWindow window) || (mr != null && !(mr instanceof Region))) {
                return WcStatus.MW_BIND_ERR;
            }
            int err = MemoryWindows.bind(window, w.bindMwKey, qp.pdHandle, qp.token, (Region) mr, w.remoteAddr,
                w.bindLength, w.bindAccess, w.rkey);
            return err == 0 ? WcStatus.SUCCESS : WcStatus.MW_BIND_ERR;
        }
        if (w.opcode == WrOpcode.DRIVER1) {
            // UMR: configure an indirect key (mlx5: a failed UMR completes as a memory
            // management operation error)
            MemoryKey mk = keys.lookup(w.umrKey);
            return mk instanceof IndirectKey ik && w.umrSpec != null
                && IndirectKeys.configure(ik, qp.pdHandle, w.umrAccess, w.umrSpec) == 0
                ? WcStatus.SUCCESS : WcStatus.MW_BIND_ERR;
        }
        MemoryKey k = keys.lookup(w.invalidateRkey);
        if (k instanceof IndirectKey ik) {
            return IndirectKeys.invalidate(ik, qp.pdHandle) == 0 ? WcStatus.SUCCESS : WcStatus.LOC_QP_OP_ERR;
        }
        if (k instanceof MemoryWindow window) {
            return MemoryWindows.invalidate(window, qp.pdHandle, w.invalidateRkey) == 0 ? WcStatus.SUCCESS
                : WcStatus.LOC_QP_OP_ERR;
        }
        // rxe_invalidate_mr refuses registered (user) MRs; nothing else can be invalidated yet
        return WcStatus.LOC_QP_OP_ERR;
    }
}
