package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcStatus;
import dev.jrxe.transport.TransportCounters;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * One SRD QP and 2,000 peers: the QP sends to each of 2,000 QPs of another device and receives
 * from each of them, its contexts made on first use; prints the heap bytes one requester and one
 * responder context cost (allocation counted on every thread). And the bound: with
 * {@code jrxe.srd.maxPeers} 100, the 101st peer's messages are refused (counted) and its sends
 * complete in error, while the first hundred are served.
 */
class SrdScaleTest {
    private static final int PEERS = 2000;
    private static final int QKEY = 0x77;

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
    }

    private static void drain(RcFixture f, CompletionQueue cq, int n, int status) {
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        int got = 0;
        long guard = System.nanoTime() + 60_000_000_000L;
        while (got < n) {
            assertThat(System.nanoTime()).as("%d of %d completions", got, n).isLessThan(guard);
            int k = cq.poll(wc, Math.min(wc.length, n - got));
            for (int i = 0; i < k; i++) {
                assertThat(wc[i].status).as(WcStatus.str(wc[i].status)).isEqualTo(status);
            }
            got += k;
        }
    }

    @Test
    void shouldServeTwoThousandPeersFromOneQpWithContextsOfBoundedSize() {
        try (RcFixture f = new RcFixture(1 << 16)) {
            CompletionQueue cqa = f.a.createCq(PEERS * 2 + 16);
            CompletionQueue cqb = f.b.createCq(PEERS * 2 + 16);
            QueuePair one = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, cqa, cqa, new QpCap(256, PEERS, 1, 1, 0)), 0);
            UdSetup.toRts(one, QKEY, 1);
            QueuePair[] peers = new QueuePair[PEERS];
            for (int i = 0; i < PEERS; i++) {
                peers[i] = SrdDv.createQp(f.pdb, new QpInitAttr(QpType.DRIVER, cqb, cqb, new QpCap(1, 1, 1, 1, 0)), 0);
                UdSetup.toRts(peers[i], QKEY, i);
                peers[i].postRecv(new RecvWr().sge(f.bufB.address(), 64, f.mrb.lkey()));
                one.postRecv(new RecvWr().sge(f.bufA.address() + 64, 64, f.mra.lkey()));
            }
            try (AddressHandle toB = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1));
                 AddressHandle toA = f.pdb.createAh(new AhAttr(f.a.queryGid(1, 1), 1))) {
                SendWr w = new SendWr().sge(f.bufA.address(), 64, f.mra.lkey());
                w.sendFlags = SendFlags.SIGNALED;
                w.ah = toB;
                w.remoteQkey = QKEY;
                long before = allocated();
                int sendsDone = 0;
                for (int i = 0; i < PEERS; i++) {
                    w.remoteQpn = peers[i].qpNum();
                    while (true) {
                        try {
                            one.postSend(w);
                            break;
                        } catch (PostException e) {
                            drain(f, cqa, 1, WcStatus.SUCCESS); // the ring is full: let one finish
                            sendsDone++;

                        }
                    }
                }
                drain(f, cqb, PEERS, WcStatus.SUCCESS);
                drain(f, cqa, PEERS - sendsDone, WcStatus.SUCCESS);
                long sendBytes = allocated() - before;
                assertThat(SrdDv.contexts(one)[0]).as("a requester context per peer").isEqualTo(PEERS);

                SendWr back = new SendWr().sge(f.bufB.address(), 64, f.mrb.lkey());
                back.sendFlags = SendFlags.SIGNALED;
                back.ah = toA;
                back.remoteQpn = one.qpNum();
                back.remoteQkey = QKEY;
                before = allocated();
                for (QueuePair p : peers) {
                    p.postSend(back);
                }
                drain(f, cqa, PEERS, WcStatus.SUCCESS); // the receives at A
                drain(f, cqb, PEERS, WcStatus.SUCCESS); // the peers' sends
                long recvBytes = allocated() - before;
                assertThat(SrdDv.contexts(one)[1]).as("a responder context per peer").isEqualTo(PEERS);
                long[] bytes = SrdDv.contextBytes(one);
                System.out.printf("SRD, one QP and %d peers: %d heap bytes per requester context, %d per responder "
                    + "context (objects, arrays and tables); %d and %d bytes allocated on all threads per peer "
                    + "while sending to and receiving from each (the other device's contexts and first sends "
                    + "included)%n", PEERS, bytes[0] / PEERS, bytes[1] / PEERS, sendBytes / PEERS, recvBytes / PEERS);
                assertThat(bytes[0] / PEERS).as("fixed-size requester contexts").isLessThan(8 * 1024);
                assertThat(bytes[1] / PEERS).as("fixed-size responder contexts").isLessThan(512);
            }
            for (QueuePair p : peers) {
                p.close();
            }
            one.close();
            cqa.close();
            cqb.close();
        }
    }

    @Test
    void shouldRefuseNewPeersBeyondTheBoundAndFailTheirSends() {
        String old = System.getProperty("jrxe.srd.maxPeers");
        System.setProperty("jrxe.srd.maxPeers", "100");
        try (RcFixture f = new RcFixture(1 << 16)) {
            CompletionQueue cqb = f.b.createCq(512);
            QueuePair one = SrdDv.createQp(f.pdb, new QpInitAttr(QpType.DRIVER, cqb, cqb, new QpCap(1, 256, 1, 1, 0)), 0);
            UdSetup.toRts(one, QKEY, 1);
            for (int i = 0; i < 256; i++) {
                one.postRecv(new RecvWr().sge(f.bufB.address(), 64, f.mrb.lkey()));
            }
            QueuePair[] senders = new QueuePair[150];
            try (AddressHandle toB = f.pda.createAh(new AhAttr(f.b.queryGid(1, 1), 1))) {
                SendWr w = new SendWr().sge(f.bufA.address(), 64, f.mra.lkey());
                w.sendFlags = SendFlags.SIGNALED;
                w.ah = toB;
                w.remoteQpn = one.qpNum();
                w.remoteQkey = QKEY;
                for (int i = 0; i < senders.length; i++) {
                    senders[i] = SrdDv.createQp(f.pda, new QpInitAttr(QpType.DRIVER, f.cqa, f.cqa, new QpCap(1, 1, 1, 1, 0)), 0);
                    UdSetup.toRts(senders[i], QKEY, i);
                    senders[i].postSend(w);
                    if (i == 99) {
                        drain(f, f.cqa, 100, WcStatus.SUCCESS); // the first hundred peers are served
                    }
                }
                drain(f, f.cqa, 50, WcStatus.RETRY_EXC_ERR); // the others find no room, then give up
                assertThat(SrdDv.contexts(one)[1]).isEqualTo(100);
                assertThat(f.b.transportCounters().get(TransportCounters.SRD_PEERS_FULL)).isPositive();
            }
            for (QueuePair s : senders) {
                s.close();
            }
            one.close();
            cqb.close();
        } finally {
            if (old == null) {
                System.clearProperty("jrxe.srd.maxPeers");
            } else {
                System.setProperty("jrxe.srd.maxPeers", old);
            }
        }
    }
}
