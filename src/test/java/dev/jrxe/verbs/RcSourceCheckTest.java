package dev.jrxe.verbs;

import static dev.jrxe.verbs.RcVictim.PEER_QPN;
import static dev.jrxe.verbs.RcVictim.PEER_START_PSN;
import static dev.jrxe.verbs.RcVictim.VICTIM;
import static dev.jrxe.verbs.RcVictim.VICTIM_START_PSN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.Access;
import dev.jrxe.net.DropReason;
import dev.jrxe.wire.Aeth;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * An RC QP takes packets only from its connected peer's address and only with a P_Key of its
 * partition (rxe's check_addr and check_keys): a third host that knows (or guesses) the QPN and
 * PSN can neither write into the victim's memory nor complete its sends with forged ACKs.
 */
class RcSourceCheckTest {
    private static final String OTHER_HOST = "127.0.0.9";

    private static void write(RawPeer from, int qpn, int psn, long va, int rkey, int pkey, byte fill) {
        PacketWriter w = from.begin(Opcodes.RC_RDMA_WRITE_ONLY, qpn, psn);
        w.bth().ackReq(true).pkey(pkey);
        w.reth().va(va).rkey(rkey).dmaLength(64);
        from.payload(64).fill(fill);
        from.send(64, VICTIM);
    }

    static long drops(Device dev, String reason) {
        for (DropReason r : DropReason.values()) {
            if (r.name().equals(reason)) {
                return dev.link().counters().drops(r);
            }
        }
        throw new AssertionError("no drop reason " + reason);
    }

    @Test
    void shouldDropRequestsFromAnyAddressButThePeers() {
        try (RcVictim v = new RcVictim().connect();
             RawPeer other = new RawPeer(OTHER_HOST, v.port, PEER_QPN)) {
            MemorySegment buf = v.memory(4096, (byte) 0);
            MemoryRegion mr = v.pd.registerMemory(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            write(other, v.qp.qpNum(), PEER_START_PSN, buf.address(), mr.rkey(), 0xFFFF, (byte) 0x77);
            assertThat(v.peer.quietFor(300)).as("nothing answered").isEmpty();
            assertThat(RcVictim.allBytes(buf, (byte) 0)).as("memory untouched").isTrue();
            assertThat(drops(v.dev, "BAD_SOURCE")).isEqualTo(1);

            // the connected peer, same packet: written and acknowledged
            write(v.peer, v.qp.qpNum(), PEER_START_PSN, buf.address(), mr.rkey(), 0xFFFF, (byte) 0x77);
            RawPeer.Packet ack = v.peer.await(RawPeer.Packet::isAck, 5000);
            assertThat(ack).isNotNull();
            assertThat(ack.syndrome()).isEqualTo(Aeth.ACK);
            assertThat(RcVictim.allBytes(buf.asSlice(0, 64), (byte) 0x77)).isTrue();
        }
    }

    @Test
    void shouldIgnoreForgedAcknowledgementsFromAThirdHost() {
        try (RcVictim v = new RcVictim().connect();
             RawPeer other = new RawPeer(OTHER_HOST, v.port, PEER_QPN)) {
            SendWr send = new SendWr(1).sge(0, 0, 0);
            send.numSge = 0;
            send.sendFlags = SendFlags.SIGNALED;
            v.qp.postSend(send);
            RawPeer.Packet sent = v.peer.await(p -> p.opcode() == Opcodes.RC_SEND_ONLY, 5000);
            assertThat(sent).isNotNull();
            assertThat(sent.psn()).isEqualTo(VICTIM_START_PSN);
            PacketWriter w = other.begin(Opcodes.RC_ACKNOWLEDGE, v.qp.qpNum(), VICTIM_START_PSN);
            w.aeth().syndrome(Aeth.ACK).msn(1);
            other.send(0, VICTIM);
            assertThat(v.pollOne(300)).as("no completion from a forged ACK").isNull();
            assertThat(drops(v.dev, "BAD_SOURCE")).isEqualTo(1);

            w = v.peer.begin(Opcodes.RC_ACKNOWLEDGE, v.qp.qpNum(), VICTIM_START_PSN);
            w.aeth().syndrome(Aeth.ACK).msn(1);
            v.peer.send(0, VICTIM);
            WorkCompletion wc = v.pollOne(5000);
            assertThat(wc).isNotNull();
            assertThat(wc.status).isEqualTo(WcStatus.SUCCESS);
        }
    }

    @Test
    void shouldDropPacketsOfAnotherPartition() {
        try (RcVictim v = new RcVictim().connect()) {
            MemorySegment buf = v.memory(4096, (byte) 0);
            MemoryRegion mr = v.pd.registerMemory(buf, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            write(v.peer, v.qp.qpNum(), PEER_START_PSN, buf.address(), mr.rkey(), 0x1234, (byte) 0x77);
            // P_Key 0: the invalid P_Key, which matches no table entry
            write(v.peer, v.qp.qpNum(), PEER_START_PSN, buf.address(), mr.rkey(), 0x0000, (byte) 0x77);
            assertThat(v.peer.quietFor(300)).isEmpty();
            assertThat(RcVictim.allBytes(buf, (byte) 0)).isTrue();
            assertThat(drops(v.dev, "BAD_PKEY")).isEqualTo(2);
            // a limited member of the default partition still matches the full member 0xFFFF (pkey_match)
            write(v.peer, v.qp.qpNum(), PEER_START_PSN, buf.address(), mr.rkey(), 0x7FFF, (byte) 0x77);
            assertThat(v.peer.await(RawPeer.Packet::isAck, 5000)).isNotNull();
            assertThat(RcVictim.allBytes(buf.asSlice(0, 64), (byte) 0x77)).isTrue();
        }
    }
}
