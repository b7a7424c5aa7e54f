package dev.jrxe.verbs;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.Errno;
import dev.jrxe.transport.SrdState;

/**
 * jrxe's SRD direct verbs, modelled on EFA's {@code efadv}: an SRD queue pair (reliable,
 * unordered datagrams over several network paths, docs/SRD.md), the device attributes that
 * describe it, and the per-path counters that show its multipath at work. An SRD QP is addressed
 * as a UD one (address handle, remote QPN and Q_Key per work request) and follows UD's state
 * table, with {@code RNR_RETRY} optional on RTR to RTS.
 *
 * <p>Static methods only; all may run on any thread at once. {@link #pathStats}, {@link #contexts}
 * and {@link #contextBytes} read live state while the device runs: each number is read on its own,
 * so a result is not one atomic snapshot.
 *
 * <pre>{@code
 * QpInitAttr init = new QpInitAttr(QpType.DRIVER, cq, cq, new QpCap(256, 256, 1, 1, 0));
 * QueuePair qp = SrdDv.createQp(pd, init, 0);     // in RESET
 * UdSetup.toRts(qp, QKEY, 0);                      // SRD walks to RTS as UD does
 * SendWr wr = new SendWr().sge(mr, 0, 64);
 * wr.ah = ah; wr.remoteQpn = peerQpn; wr.remoteQkey = QKEY;
 * qp.postSend(wr);                                // completes once the peer acknowledged it
 * }</pre>
 */
public final class SrdDv {
    /**
     * {@code EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV}, a {@link #createQp} flag: an incoming
     * WRITE_WITH_IMM consumes no receive WQE; its completion reports
     * {@link WorkCompletion#isUnsolicited()}.
     */
    public static final int UNSOLICITED_WRITE_RECV = 1;

    /** {@code EFADV_DEVICE_ATTR_CAPS_RDMA_READ}: SRD QPs do RDMA READ ({@link SrdDeviceAttr#deviceCaps} bit). */
    public static final int CAPS_RDMA_READ = 1;
    /** {@code EFADV_DEVICE_ATTR_CAPS_RNR_RETRY}: SRD QPs retry after RNR NAKs ({@code rnr_retry}, 7: for ever). */
    public static final int CAPS_RNR_RETRY = 1 << 1;
    /** {@code EFADV_DEVICE_ATTR_CAPS_RDMA_WRITE}: SRD QPs do RDMA WRITE and WRITE_WITH_IMM. */
    public static final int CAPS_RDMA_WRITE = 1 << 3;
    /** {@code EFADV_DEVICE_ATTR_CAPS_UNSOLICITED_WRITE_RECV}: {@link #UNSOLICITED_WRITE_RECV} is accepted. */
    public static final int CAPS_UNSOLICITED_WRITE_RECV = 1 << 4;
    /**
     * {@code max_rdma_size}: the largest RDMA READ or WRITE of one work request, in bytes (16 MiB);
     * longer is EINVAL at post.
     */
    public static final int MAX_RDMA_SIZE = SrdState.MAX_RDMA_SIZE;

    private SrdDv() {
    }

    /**
     * {@code efadv_create_qp_ex(..., EFADV_QP_DRIVER_TYPE_SRD)}: an SRD QP in RESET. Its
     * {@link QueuePair#qpType()} is {@link QpType#DRIVER}.
     *
     * @param pd    the protection domain the QP belongs to
     * @param init  its CQs and capabilities; {@code qpType} must be {@link QpType#DRIVER}, {@code srq} null
     * @param flags 0 or {@link #UNSOLICITED_WRITE_RECV}
     * @return the new QP, in RESET
     * @throws VerbsException EINVAL unless {@code init.qpType} is DRIVER or for unknown flags;
     *     EOPNOTSUPP with a shared receive queue; what {@link ProtectionDomain#createQp} throws
     * @throws IllegalStateException when the device is closed
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

    /**
     * {@code efadv_query_device}: what the device's SRD QPs can do.
     *
     * @param device an open device
     * @return a new attribute holder: queue sizes, SGEs, inline bytes, {@code CAPS_*} bits and {@link #MAX_RDMA_SIZE}
     * @throws IllegalStateException when the device is closed
     */
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
     * latest smoothed RTT. jrxe's own (efadv has none).
     *
     * @param qp an SRD QP
     * @return one entry per path, indexed by path number
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
     * Heap bytes of the QP's peer contexts now, an estimate for diagnostics: the context objects
     * and their arrays, and the tables that find them. jrxe's own.
     *
     * @param qp an SRD QP
     * @return {requester bytes, responder bytes}
     * @throws VerbsException EINVAL for a QP that is not SRD
     */
    public static long[] contextBytes(QueuePair qp) {
        SrdState s = qp.qp().srd;
        if (s == null) {
            throw VerbsException.einval("not an SRD QP");
        }
        return s.contextBytes();
    }

    /**
     * The peer contexts the QP holds now (one per peer QP it sends to, one per peer QP it has
     * heard from; docs/SRD.md section 3). jrxe's own.
     *
     * @param qp an SRD QP
     * @return {requester contexts, responder contexts}
     * @throws VerbsException EINVAL for a QP that is not SRD
     */
    public static int[] contexts(QueuePair qp) {
        SrdState s = qp.qp().srd;
        if (s == null) {
            throw new VerbsException(Errno.EINVAL, "not an SRD QP");
        }
        return new int[] {s.requesterContexts(), s.responderContexts()};
    }
}
