package dev.jrxe.verbs;

import dev.jrxe.net.Link;
import dev.jrxe.net.LinkConfig;
import dev.jrxe.net.LinkMode;
import dev.jrxe.net.Links;
import dev.jrxe.wire.IcrcSealer;
import dev.jrxe.wire.OpcodeTable;
import dev.jrxe.wire.Opcodes;
import dev.jrxe.wire.PacketWriter;
import dev.jrxe.wire.RocePacket;
import dev.jrxe.wire.RxDecoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * A hand-built RoCEv2 peer for attack tests: a raw link (real UDP on 127.0.0.0/8, ICRC sealed by
 * the link) that sends whatever packets a test writes with {@link PacketWriter}, and a thread
 * that decodes (ICRC checked) and keeps every packet the device under test sends back. It plays
 * the remote side of an RC connection, or a third host that was never part of it.
 */
final class RawPeer implements AutoCloseable {
    /** One packet the device sent us, copied out of the link's buffer. */
    record Packet(int opcode, int psn, int destQp, int syndrome, int msn, long atomicOriginal, byte[] payload,
                  int srcAddr, int srdEpoch, int srdTimestamp, int srdBase, int srcQp) {
        boolean isAck() {
            return opcode == Opcodes.RC_ACKNOWLEDGE;
        }

        boolean isReadResponse() {
            return opcode >= Opcodes.RC_RDMA_READ_RESPONSE_FIRST && opcode <= Opcodes.RC_RDMA_READ_RESPONSE_ONLY;
        }

        @Override
        public String toString() {
            return Opcodes.name(opcode) + " psn=0x" + Integer.toHexString(psn) + (isAck() || opcode
                == Opcodes.RC_RDMA_READ_RESPONSE_ONLY || opcode == Opcodes.RC_RDMA_READ_RESPONSE_LAST
                ? " syndrome=0x" + Integer.toHexString(syndrome) : "") + " payload=" + payload.length;
        }
    }

    final Link link;
    final String address;
    /** The QPN this peer claims to be. */
    final int qpn;
    private final PacketWriter writer = new PacketWriter();
    private final List<Packet> received = new CopyOnWriteArrayList<>();
    private final Thread receiver;
    private volatile boolean running = true;
    /** A link is single-threaded: the receiver polls, the test writes and flushes, never at once. */
    private final ReentrantLock lock = new ReentrantLock();
    private MemorySegment current;

    RawPeer(String address, int port, int qpn) {
        this(address, port, qpn, 1 << 20);
    }

    /** {@code receiveBuffer}: socket buffer for what the device sends (large for huge READs). */
    RawPeer(String address, int port, int qpn, int receiveBuffer) {
        this.address = address;
        this.qpn = qpn;
        try {
            this.link = Links.open(LinkConfig.builder(address).port(port).mode(LinkMode.MMSG)
                .receiveBufferBytes(receiveBuffer).build(), new IcrcSealer());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RxDecoder decoder = new RxDecoder(link, (RocePacket p, int srcAddr, int srcPort) -> received.add(copy(p, srcAddr)));
        this.receiver = Thread.ofPlatform().daemon().name("raw-peer-" + address).start(() -> {
            while (running) {
                int n;
                lock.lock();
                try {
                    n = link.poll(decoder, 64);
                } finally {
                    lock.unlock();
                }
                if (n == 0) {
                    link.awaitReadable(1_000_000);
                }
            }
        });
    }

    private static Packet copy(RocePacket p, int srcAddr) {
        int op = p.bth().opcode();
        int f = OpcodeTable.flags(op);
        int syndrome = (f & OpcodeTable.HAS_AETH) != 0 ? p.aeth().syndrome() : -1;
        int msn = (f & OpcodeTable.HAS_AETH) != 0 ? p.aeth().msn() : -1;
        long orig = (f & OpcodeTable.HAS_ATMACK) != 0 ? p.atomicAckEth().originalData() : 0;
        byte[] payload = new byte[p.payloadLength()];
        MemorySegment.copy(p.segment(), ValueLayout.JAVA_BYTE, p.payloadOffset(), payload, 0, payload.length);
        boolean srd = (f & OpcodeTable.HAS_SRDETH) != 0;
        return new Packet(op, p.bth().psn(), p.bth().destQp(), syndrome, msn, orig, payload, srcAddr,
            srd ? p.srdeth().epoch() : 0, srd ? p.srdeth().timestamp() : 0, srd ? p.srdeth().base() : 0,
            (f & OpcodeTable.HAS_DETH) != 0 ? p.deth().srcQp() : 0);
    }

    int addressInt() {
        return Links.toInt(address);
    }

    Gid gid() {
        return Gid.ofIpv4(addressInt());
    }

    /**
     * Starts a packet of {@code opcode} to {@code destQp} with {@code psn} (P_Key 0xFFFF); fill its
     * extension headers through the returned writer, then {@link #send}.
     */
    PacketWriter begin(int opcode, int destQp, int psn) {
        lock.lock(); // held until commit
        current = link.claim();
        writer.begin(current, 0, opcode).bth().destQp(destQp).psn(psn & 0xFFFFFF);
        return writer;
    }

    /** Where the payload goes in the packet being written. */
    MemorySegment payload(int length) {
        return current.asSlice(writer.payloadOffset(), length);
    }

    /** Commits the packet with {@code payloadLength} payload bytes, to {@code dstAddr}:port; does not flush. */
    void commit(int payloadLength, String dstAddr) {
        try {
            int len = writer.finish(payloadLength);
            link.commit(len, Links.toInt(dstAddr), link.localPort(), 0xC000 | (qpn & 0x3FFF));
        } finally {
            lock.unlock();
        }
    }

    /** Commits and sends the packet being written. */
    void send(int payloadLength, String dstAddr) {
        commit(payloadLength, dstAddr);
        flush();
    }

    void flush() {
        lock.lock();
        try {
            link.flush();
        } finally {
            lock.unlock();
        }
    }

    List<Packet> received() {
        return new ArrayList<>(received);
    }

    void clear() {
        received.clear();
    }

    /** Waits up to {@code millis} for a packet matching {@code p}; null when none came. */
    Packet await(Predicate<Packet> p, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        do {
            for (Packet k : received) {
                if (p.test(k)) {
                    return k;
                }
            }
            Thread.onSpinWait();
        } while (System.nanoTime() < deadline);
        return null;
    }

    /** Waits until {@code n} packets have come or {@code millis} passed; returns what came. */
    List<Packet> awaitCount(int n, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (received.size() < n && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return received();
    }

    /** Lets {@code millis} pass and returns everything received so far. */
    List<Packet> quietFor(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return received();
    }

    @Override
    public void close() {
        running = false;
        link.wakeup();
        try {
            receiver.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        link.close();
    }
}
