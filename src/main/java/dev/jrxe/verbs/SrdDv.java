package dev.jrxe.verbs;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.Errno;
import dev.jrxe.transport.SrdState;

/**
 * jrxe's SRD direct verbs, modelled on EFA's {@code efadv}: an SRD queue pair (reliable,
 * unordered datagrams over several network paths, docs/SRD.md), the device attributes that
 * describe it, and the per-path counters that show its multipath at work.
 *
 * <pre>{@code
 * QpInitAttr init = new QpInitAttr(QpType.DRIVER, cq, cq, cap);
 * QueuePair qp = SrdDv.createQp(pd, init, 0);     // RESET; walk it to RTS as UD (UdSetup)
 * SendWr wr = ...; wr.ah = ah; wr.remoteQpn = peerQpn; wr.remoteQkey = QKEY;
 * qp.postSend(wr);                                // completes when the peer acknowledged it
 * }</pre>
 */
public final class SrdDv {
    /** {@code EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV}: a WRITE_WITH_IMM consumes no receive WQE. */
    public static final int UNSOLICITED_WRITE_RECV = 1;

    /** {@code EFADV_DEVICE_ATTR_CAPS_RDMA_READ}. */
    public static final int CAPS_RDMA_READ = 1;
    /** {@code EFADV_DEVICE_ATTR_CAPS_RNR_RETRY}. */
    public static final int CAPS_RNR_RETRY = 1 << 1;
    /** {@code EFADV_DEVICE_ATTR_CAPS_RDMA_WRITE}. */
    public static final int CAPS_RDMA_WRITE = 1 << 3;
    /** {@code EFADV_DEVICE_ATTR_CAPS_UNSOLICITED_WRITE_RECV}. */
    public static final int CAPS_UNSOLICITED_WRITE_RECV = 1 << 4;
    /** The largest RDMA READ or WRITE of one work request. */
    public static final int MAX_RDMA_SIZE = SrdState.MAX_RDMA_SIZE;

    private SrdDv() {
    }

    /**
     * {@code efadv_create_qp_ex(..., EFADV_QP_DRIVER_TYPE_SRD)}: an SRD QP in RESET. Its
     * {@link QueuePair#qpType()} is {@link QpType#DRIVER}.
     *
     * @param flags 0 or {@link #UNSOLICITED_WRITE_RECV}
     * @throws VerbsException EINVAL unless {@code init.qpType} is DRIVER or for unknown flags;
     *     EOPNOTSUPP with a shared receive queue; what {@link ProtectionDomain#createQp} throws
     */
    public static QueuePair createQp(ProtectionDomain pd, QpInitAttr init, int flags) {
        if (init.qpType != QpType.DRIVER) {
            throw VerbsException.einval("an SRD QP is created with qp_type DRIVER");
        }
        if ((flags & ~UNSOLICITED_WRITE_RECV) != 0) {
            throw VerbsException.einval("unknown SRD QP flags 0x" + Integer.toHexString(flags));
        }
        pd.device().ensureOpen();
        return new QueuePair(pd, init, false, flags);
    }

    /** {@code efadv_query_device}: what the device's SRD QPs can do. */
    public static SrdDeviceAttr queryDevice(Device device) {
        device.ensureOpen();
        SrdDeviceAttr a = new SrdDeviceAttr();
        a.maxSqWr = Device.MAX_QP_WR;
        a.maxRqWr = Device.MAX_QP_WR;
        a.maxSqSge = Device.MAX_SGE;
        a.maxRqSge = Device.MAX_SGE;
        a.inlineBufSize = Device.MAX_INLINE;
        a.deviceCaps = CAPS_RDMA_READ | CAPS_RNR_RETRY | CAPS_RDMA_WRITE | CAPS_UNSOLICITED_WRITE_RECV;
        a.maxRdmaSize = MAX_RDMA_SIZE;
        return a;
    }

    /**
     * The QP's paths now: for each, its UDP source port, the packets first sent on it, the
     * retransmissions sent on it, the timeouts of packets that had last gone on it and its
     * latest smoothed RTT.
     *
     * @throws VerbsException EINVAL for a QP that is not SRD
     */
    public static SrdPathStats[] pathStats(QueuePair qp) {
        SrdState s = qp.qp().srd;
        if (s == null) {
            throw VerbsException.einval("not an SRD QP");
        }
        SrdPathStats[] out = new SrdPathStats[s.paths()];
        for (int p = 0; p < out.length; p++) {
            out[p] = new SrdPathStats(p, s.pathPort(p), s.pathSent(p), s.pathRetransmits(p), s.pathTimeouts(p),
                s.pathRttNanos(p));
        }
        return out;
    }

    /**
     * Heap bytes of the QP's peer contexts now, {requester, responder}: the context objects and
     * arrays and the tables that find them.
     */
    public static long[] contextBytes(QueuePair qp) {
        SrdState s = qp.qp().srd;
        if (s == null) {
            throw VerbsException.einval("not an SRD QP");
        }
        return s.contextBytes();
    }

    /** Requester and responder peer contexts the QP holds now: {requester, responder}. */
    public static int[] contexts(QueuePair qp) {
        SrdState s = qp.qp().srd;
        if (s == null) {
            throw new VerbsException(Errno.EINVAL, "not an SRD QP");
        }
        return new int[] {s.requesterContexts(), s.responderContexts()};
    }
}
