package dev.jrxe.transport;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.WcFlags;
import dev.jrxe.ib.WcOpcode;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.RocePacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * UD responder (rxe_resp.c for IB_QPT_UD): every datagram that passed admission takes the oldest
 * receive WQE (none: dropped and counted as {@code ud_no_recv_wqe}, UD has no RNR) and fills it
 * with the 40-byte GRH area first, then the payload. Over RoCEv2/IPv4 the GRH area holds, as
 * rxe fills it, 20 zero bytes and then the datagram's IPv4 header: version 4, IHL 5, the
 * Identification the ICRC was solved for, DF, protocol UDP, source and destination, a valid
 * checksum. TOS and TTL are not visible to a UDP socket and the ICRC masks them, so they read 0
 * and 64 (what a RoCE sender writes by default). A datagram longer than the buffer minus 40
 * completes the WQE with a local length error and the QP goes on (rxe class D). The completion
 * has IBV_WC_GRH, the sending QPN (DETH) as {@code src_qp}, and immediate data when present.
 */
final class UdResponder {
    /** Bytes of the GRH area at the start of every UD receive buffer. */
    static final int GRH_LENGTH = 40;
    private static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private final Engine engine;
    /** The GRH area being built (engine thread only). */
    private final MemorySegment grh = Arena.ofAuto().allocate(GRH_LENGTH, 8);

    UdResponder(Engine engine) {
        this.engine = engine;
    }

    void onRequest(Qp qp, RocePacket pkt, int srcAddr, int dstAddr, int ipId) {
        ResponderState r = qp.resp;
        RecvWqe w = r.takeRecvWqe(qp);
        if (w == null) {
            engine.counters.inc(TransportCounters.UD_NO_RECV_WQE);
            return;
        }
        int len = pkt.payloadLength();
        if (GRH_LENGTH + (long) len > w.length) {
            Completions.recvDatagram(qp, w, WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, 0, 0, pkt.deth().srcQp(), true);
            return;
        }
        fillGrh(pkt.length(), srcAddr, dstAddr, ipId);
        if (Sgl.scatter(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge, 0, grh, 0,
            GRH_LENGTH) != MemStatus.OK
            || (len > 0 && Sgl.scatter(engine.keys, qp.pdHandle, w.sgeAddr, w.sgeLength, w.sgeLkey, w.numSge,
            GRH_LENGTH, pkt.segment(), pkt.payloadOffset(), len) != MemStatus.OK)) {
            Completions.recvDatagram(qp, w, WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, pkt.deth().srcQp(), true);
            engine.fail(qp, AsyncEventType.QP_FATAL);
            return;
        }
        boolean imm = OpcodeTable.has(pkt.bth().opcode(), OpcodeTable.IMMEDIATE);
        engine.counters.inc(TransportCounters.RDMA_RECVS);
        Completions.recvDatagram(qp, w, WcStatus.SUCCESS, WcOpcode.RECV, GRH_LENGTH + len,
            WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0), imm ? pkt.immDt().immediate() : 0, pkt.deth().srcQp(),
            pkt.bth().solicited());
    }

    /** 20 zero bytes, then the IPv4 header of a datagram of {@code rocLength} UDP payload bytes. */
    private void fillGrh(int roceLength, int srcAddr, int dstAddr, int ipId) {
        // 20 zero bytes written directly: a slice to fill() is an object whose allocation only
        // inlining removes, and it was not removed in every JVM (HotPathAllocationTest, after
        // hundreds of other tests: 40 bytes per datagram received)
        grh.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0L);
        grh.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, 0L);
        grh.set(ValueLayout.JAVA_INT_UNALIGNED, 16, 0);
        grh.set(ValueLayout.JAVA_BYTE, 20, (byte) 0x45);
        grh.set(ValueLayout.JAVA_BYTE, 21, (byte) 0);
        grh.set(BE_SHORT, 22, (short) (20 + 8 + roceLength));
        grh.set(BE_SHORT, 24, (short) ipId);
        grh.set(BE_SHORT, 26, (short) 0x4000); // DF
        grh.set(ValueLayout.JAVA_BYTE, 28, (byte) 64);
        grh.set(ValueLayout.JAVA_BYTE, 29, (byte) 17);
        grh.set(BE_SHORT, 30, (short) 0);
        grh.set(BE_INT, 32, srcAddr);
        grh.set(BE_INT, 36, dstAddr);
        grh.set(BE_SHORT, 30, (short) ipv4Checksum(grh, 20));
    }

    /** The IPv4 header checksum (RFC 791) of the 20 bytes at {@code off}. */
    static int ipv4Checksum(MemorySegment s, long off) {
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += Short.toUnsignedInt(s.get(BE_SHORT, off + i));
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }
}
