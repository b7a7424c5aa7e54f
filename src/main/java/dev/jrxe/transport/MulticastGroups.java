package dev.jrxe.transport;

import dev.jrxe.net.DropReason;
import dev.jrxe.wire.RocePacket;

/**
 * The device's IPv4 multicast groups and the UD QPs attached to each (rxe_mcast.c): a datagram
 * sent to the multicast QPN (0xFFFFFF) and a group address is delivered to every QP attached to
 * that group, each through its own admission (state, P_Key, Q_Key). Attach and detach copy the
 * table (they are rare); delivery reads it without a lock.
 */
public final class MulticastGroups {
    /** rxe's limits: groups per device, QPs per group. */
    public static final int MAX_GROUPS = 8192;
    public static final int MAX_QPS_PER_GROUP = 56;

    private record Group(int addr, Qp[] qps) {
    }

    private volatile Group[] groups = new Group[0];

    /**
     * Attaches {@code qp} to group {@code addr} (IPv4, big-endian int); returns 0, or an errno:
     * ENOMEM past the limits. Attaching twice is a no-op, as in rxe.
     */
    public synchronized int attach(Qp qp, int addr) {
        Group[] gs = groups;
        for (int i = 0; i < gs.length; i++) {
            Group g = gs[i];
            if (g.addr == addr) {
                for (Qp q : g.qps) {
                    if (q == qp) {
                        return 0;
                    }
                }
                if (g.qps.length >= MAX_QPS_PER_GROUP) {
                    return dev.jrxe.ib.Errno.ENOMEM;
                }
                Qp[] qs = java.util.Arrays.copyOf(g.qps, g.qps.length + 1);
                qs[g.qps.length] = qp;
                Group[] ng = gs.clone();
                ng[i] = new Group(addr, qs);
                groups = ng;
                return 0;
            }
        }
        if (gs.length >= MAX_GROUPS) {
            return dev.jrxe.ib.Errno.ENOMEM;
        }
        Group[] ng = java.util.Arrays.copyOf(gs, gs.length + 1);
        ng[gs.length] = new Group(addr, new Qp[] {qp});
        groups = ng;
        return 0;
    }

    /** Detaches {@code qp} from group {@code addr}; returns 0, or EINVAL when it was not attached. */
    public synchronized int detach(Qp qp, int addr) {
        Group[] gs = groups;
        for (int i = 0; i < gs.length; i++) {
            Group g = gs[i];
            if (g.addr != addr) {
                continue;
            }
            int n = 0;
            Qp[] qs = new Qp[g.qps.length];
            for (Qp q : g.qps) {
                if (q != qp) {
                    qs[n++] = q;
                }
            }
            if (n == g.qps.length) {
                return dev.jrxe.ib.Errno.EINVAL;
            }
            Group[] ng;
            if (n == 0) {
                ng = new Group[gs.length - 1];
                System.arraycopy(gs, 0, ng, 0, i);
                System.arraycopy(gs, i + 1, ng, i, gs.length - i - 1);
            } else {
                ng = gs.clone();
                ng[i] = new Group(addr, java.util.Arrays.copyOf(qs, n));
            }
            groups = ng;
            return 0;
        }
        return dev.jrxe.ib.Errno.EINVAL;
    }

    /** Whether some QP is attached to group {@code addr}. */
    public boolean has(int addr) {
        for (Group g : groups) {
            if (g.addr == addr) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code qp} is attached to any group (a QP may not be destroyed while it is). */
    public boolean attached(Qp qp) {
        for (Group g : groups) {
            for (Qp q : g.qps) {
                if (q == qp) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A multicast datagram: to every QP of its group, or dropped and counted. */
    void deliver(Engine engine, RocePacket pkt, int srcAddr, int dstAddr, int ipId) {
        for (Group g : groups) {
            if (g.addr == dstAddr) {
                for (Qp qp : g.qps) {
                    engine.deliver(qp, pkt, srcAddr, dstAddr, ipId);
                }
                return;
            }
        }
        engine.link.counters().drop(DropReason.NO_MCAST_GROUP);
    }
}
