package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.ib.WrOpcode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An SRD requester counts a peer's silence only while its engine listened: when the give-up time
 * comes while datagrams still wait in its socket (a cycle's receive stopped at its limit), the
 * answer may be among them, so the give-up waits for the next cycle; when the engine itself had
 * not looked at its socket for longer than the largest RTO (a GC pause, a preempted thread), the
 * peer gets another retransmission instead. Either for at most half an SRD timeout more. The
 * requester's device is driven by hand on a clock the test sets, so the give-up time comes at a
 * chosen cycle with a chosen backlog in the socket. And a thread that only posts (which keeps the
 * progress thread out) runs the receive half and the timers too once the last full cycle is older
 * than a driving thread's grace.
 */
class SrdGiveUpTest {
    private static final int QKEY = 0x5151;
    private static final Duration TIMEOUT = Duration.ofMillis(500);

    /** A requester device (127.0.0.2, driven by hand on {@code clock}) and a responder (127.0.0.3). */
    private static RcFixture fixture(AtomicLong clock, DeviceConfig responder) {
        return new RcFixture(DeviceConfig.of("jrxe-req", "127.0.0.2").manualProgress().clock(clock::get).srdTimeout(TIMEOUT),
            responder, 1 << 16);
    }

    /**
     * Whether the requester's socket can hold the junk and the answer behind it (3–7 MB of kernel
     * memory): the link forces its 8 MiB when root, else gets rmem_max.
     */
    private static boolean socketHoldsTheJunk() throws IOException {
        long rmemMax = Long.parseLong(Files.readString(Path.of("/proc/sys/net/core/rmem_max")).trim());
        return "root".equals(System.getProperty("user.name")) || rmemMax >= 4 << 20;
    }

    /** {@code n} datagrams that are no RoCE packet, into the requester's socket. */
    private static void junk(RcFixture f, int n) throws IOException {
        junk(f, n, 40);
    }

    /** {@code n} datagrams of {@code bytes} that are no RoCE packet, into the requester's socket. */
    private static void junk(RcFixture f, int n, int bytes) throws IOException {
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress("127.0.0.4", 0));
            InetSocketAddress to = new InetSocketAddress("127.0.0.2", f.a.udpPort());
            for (int i = 0; i < n; i++) {
                ch.send(ByteBuffer.allocate(bytes), to);
            }
        }
    }

    private static WorkCompletion sendCompletion(RcFixture f) {
        WorkCompletion[] one = {new WorkCompletion()};
        for (int i = 0; i < 1000; i++) {
            f.a.progress();
            if (f.cqa.poll(one) == 1) {
                return one[0];
            }
        }
        throw new AssertionError("no send completion in 1000 cycles");
    }

    /**
     * {@code junk} datagrams of {@code bytes} ahead of the ACKs, a cycle every {@code stepMillis}
     * reading one batch (64) of them: when the give-up time (500 ms) comes, more than a batch of
     * junk is still ahead of the ACKs, which are read within the next cycles (an answer to a late
     * retransmission resolves the SEND: one to the first transmission is too old by then). Small junk goes to the
     * decoder (not RoCE: dropped); oversized junk is dropped by the link before any handler sees
     * it, yet counts as read.
     */
    @ParameterizedTest(name = "{0} datagrams of {1} bytes, a cycle every {2} ms")
    @CsvSource({"3500, 40, 10", "800, 5000, 60"})
    void shouldReadTheAnswerWaitingBehindABacklogBeforeGivingThePeerUp(int junk, int bytes, int stepMillis) throws Exception {
        assumeTrue(socketHoldsTheJunk(), "a receive buffer of 4 MiB (net.core.rmem_max, or root)");
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        try (RcFixture f = fixture(clock, DeviceConfig.of("jrxe-resp", "127.0.0.3"));
             QueuePair req = srdQp(f.pda, f.cqa, 1);
             QueuePair resp = srdQp(f.pdb, f.cqb, 2);
             AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
            resp.postRecv(new RecvWr().sge(f.bufB.address(), 64, f.mrb.lkey()));
            junk(f, junk, bytes); // ahead of every answer in the requester's socket
            req.postSend(send(f, ah, resp.qpNum()));
            f.a.progress(); // the SEND leaves
            f.pollOk(f.cqb); // the responder received it and sends its ACK
            Thread.sleep(100); // the ACK is in the requester's socket, behind the junk

            int steps = 720 / stepMillis; // (within one and a half timeouts)
            // (the first cycle, which sent the SEND, read a batch too)
            assertThat((500 / stepMillis + 2) * 64).as("junk left when the give-up time comes").isLessThan(junk);
            assertThat((steps + 1) * 64).as("junk read by the last step").isGreaterThan(junk);
            for (int step = 0; step < steps; step++) {
                clock.addAndGet(stepMillis * 1_000_000L);
                f.a.progress();
                Thread.sleep(5); // the responder answers each retransmission (behind the junk)
            }
            WorkCompletion w = sendCompletion(f);

            assertThat(w.status).as(WcStatus.str(w.status)).isEqualTo(WcStatus.SUCCESS);
            assertThat(f.a.counters().get("srd_peer_timeouts")).isZero();
            assertThat(f.a.link().counters().totalDrops()).as("the junk, all read and dropped").isEqualTo(junk);
        }
    }

    @Test
    void shouldNotCountItsOwnAbsenceAsThePeersSilence() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        // the responder runs only when driven: while the requester is away, it is too (one JVM paused)
        try (RcFixture f = fixture(clock, DeviceConfig.of("jrxe-resp", "127.0.0.3").manualProgress());
             QueuePair req = srdQp(f.pda, f.cqa, 1);
             QueuePair resp = srdQp(f.pdb, f.cqb, 2);
             AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
            resp.postRecv(new RecvWr().sge(f.bufB.address(), 64, f.mrb.lkey()));
            req.postSend(send(f, ah, resp.qpNum()));
            f.a.progress(); // the SEND leaves; nobody reads it yet

            clock.addAndGet(TIMEOUT.toNanos() + 100_000_000); // the requester was away past the give-up time
            f.a.progress();
            WorkCompletion[] one = {new WorkCompletion()};
            assertThat(f.cqa.poll(one)).as("not given up: it retransmitted instead").isZero();
            assertThat(f.a.counters().get("srd_retransmits")).isEqualTo(1);

            f.pollOk(f.cqb); // the responder, back too, takes the SEND (once) and acknowledges
            Thread.sleep(100);
            WorkCompletion w = sendCompletion(f);
            assertThat(w.status).as(WcStatus.str(w.status)).isEqualTo(WcStatus.SUCCESS);
            assertThat(f.a.counters().get("srd_peer_timeouts")).isZero();
        }
    }

    @Test
    void shouldGiveUpASilentPeerAfterOneAndAHalfTimeoutsWhateverWaitsInTheSocket() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        try (RcFixture f = fixture(clock, DeviceConfig.of("jrxe-resp", "127.0.0.3"));
             QueuePair req = srdQp(f.pda, f.cqa, 1);
             AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
            junk(f, 1000);
            req.postSend(send(f, ah, 0xABCDE)); // no such QP: nothing answers
            f.a.progress();

            clock.addAndGet(TIMEOUT.toNanos() * 3 / 2);
            f.a.progress(); // reads a batch of the junk, more waits: yet one and a half timeouts have passed
            WorkCompletion[] one = {new WorkCompletion()};
            assertThat(f.cqa.poll(one)).isEqualTo(1);

            assertThat(one[0].status).as(WcStatus.str(one[0].status)).isEqualTo(WcStatus.RETRY_EXC_ERR);
            assertThat(f.a.link().counters().totalDrops()).as("junk still unread").isLessThan(1000);
        }
    }

    @Test
    void shouldReadItsSocketNowAndThenWhileAThreadOnlyPosts() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000_000L);
        try (RcFixture f = new RcFixture(DeviceConfig.of("jrxe-req", "127.0.0.2").manualProgress().clock(clock::get)
                 .appActiveNanos(1_000_000), DeviceConfig.of("jrxe-resp", "127.0.0.3"), 1 << 16);
             QueuePair req = srdQp(f.pda, f.cqa, 1);
             QueuePair resp = srdQp(f.pdb, f.cqb, 2);
             AddressHandle ah = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
            for (int i = 0; i < 3; i++) {
                resp.postRecv(new RecvWr().sge(f.bufB.address(), 64, f.mrb.lkey()));
            }
            req.postSend(send(f, ah, resp.qpNum()));
            f.pollOk(f.cqb);
            Thread.sleep(100); // its ACK waits in the requester's socket
            long received = f.a.link().counters().rxPackets();

            clock.addAndGet(500_000); // within the grace of a thread that drives: the post only sends
            req.postSend(send(f, ah, resp.qpNum()));
            assertThat(f.a.link().counters().rxPackets()).isEqualTo(received);

            clock.addAndGet(1_000_000); // the last full cycle is older than the grace
            req.postSend(send(f, ah, resp.qpNum()));
            assertThat(f.a.link().counters().rxPackets()).as("the post read the socket").isGreaterThan(received);
            f.pollOk(f.cqb);
            f.pollOk(f.cqb);
        }
    }

    /** An SRD QP in RTS on {@code pd} and {@code cq}. */
    private static QueuePair srdQp(ProtectionDomain pd, CompletionQueue cq, int sqPsn) {
        QueuePair qp = SrdDv.createQp(pd, new QpInitAttr(QpType.DRIVER, cq, cq, new QpCap(4, 4, 1, 1, 0)), 0);
        UdSetup.toRts(qp, QKEY, sqPsn);
        return qp;
    }

    private static SendWr send(RcFixture f, AddressHandle ah, int qpn) {
        SendWr w = new SendWr().sge(f.bufA.address(), 64, f.mra.lkey());
        w.opcode = WrOpcode.SEND;
        w.sendFlags = SendFlags.SIGNALED;
        w.ah = ah;
        w.remoteQpn = qpn;
        w.remoteQkey = QKEY;
        return w;
    }
}
