package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.AsyncEventType;
import dev.jrxe.ib.QpType;
import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WrOpcode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Completion channels, solicited events and async events (rdma-core test_cq_events). */
class CompletionEventsTest {

    @Test
    void shouldWakeAChannelForTheNextCompletion() throws Exception {
        try (RcFixture f = new RcFixture(8192)) {
            CompletionChannel ch = f.b.createCompChannel();
            CompletionQueue cq = f.b.createCq(16, ch, 0);
            f.qa = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)));
            f.qb = f.pdb.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(4, 4, 1, 1, 0)));
            new RcConnect().pair(f.qa, 1, f.qb, 2);
            cq.requestNotify(false);
            f.qb.postRecv(new RecvWr(1).sge(f.bufB.address(), 64, f.mrb.lkey()));
            f.qa.postSend(new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey()));
            // nobody polls b: its background progress must deliver and fire the event
            CompletionQueue fired = ch.getEvent(5, TimeUnit.SECONDS);
            assertThat(fired).isSameAs(cq);
            fired.ackEvents(1);
            assertThat(f.pollOk(cq).byteLen).isEqualTo(64);
            f.qb.close();
            f.qb = null;
            cq.close();
        }
    }

    @Test
    void shouldServeTheDeviceAtOnceWhenItsPollingThreadGoesToWaitForAnEvent() throws Exception {
        // b's clock stands still: to b's progress thread, the application's last poll is always
        // "just now", so it would stay out of the way forever unless told that the application
        // stopped driving. Waiting for an event says so (rc_pingpong -e polls until the CQ is
        // empty, then waits: the next message must not wait for the progress thread's grace).
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000_000_000_000L);
        try (RcFixture f = new RcFixture(DeviceConfig.of("jrxe-a", "127.0.0.2"),
                DeviceConfig.of("jrxe-b", "127.0.0.3").clock(clock::get), 8192)) {
            CompletionChannel ch = f.b.createCompChannel();
            CompletionQueue cq = f.b.createCq(16, ch, 0);
            f.qa = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)));
            f.qb = f.pdb.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(4, 4, 1, 1, 0)));
            new RcConnect().pair(f.qa, 1, f.qb, 2);
            WorkCompletion[] wc = {new WorkCompletion()};
            RecvWr r = new RecvWr(1).sge(f.bufB.address(), 64, f.mrb.lkey());
            SendWr s = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey());
            s.sendFlags = SendFlags.SIGNALED;
            for (int i = 0; i < 3; i++) {
                f.qb.postRecv(r);
                assertThat(cq.poll(wc)).as("b's application drives b: its CQ is empty").isZero();
                cq.requestNotify(false);
                f.qa.postSend(s);
                assertThat(ch.getEvent(20, TimeUnit.SECONDS)).as("event %d", i).isSameAs(cq);
                cq.ackEvents(1);
                assertThat(f.pollOk(cq).byteLen).isEqualTo(64);
                assertThat(f.pollOk(f.cqa).status).isEqualTo(dev.jrxe.ib.WcStatus.SUCCESS);
            }
            f.qb.close();
            f.qb = null;
            cq.close();
        }
    }

    @Test
    void shouldBringEachOfSeveralWaitingThreadsItsOwnEvents() throws Exception {
        // two threads of b wait on channels of their own: one serves the device while it waits,
        // the newer takes over and the other parks; every message still wakes its own thread
        int n = 40;
        try (RcFixture f = new RcFixture(8192)) {
            CompletionChannel[] ch = {f.b.createCompChannel(), f.b.createCompChannel()};
            CompletionQueue[] cq = {f.b.createCq(64, ch[0], 0), f.b.createCq(64, ch[1], 0)};
            QueuePair[] qa = new QueuePair[2];
            QueuePair[] qb = new QueuePair[2];
            for (int i = 0; i < 2; i++) {
                qa[i] = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(64, 64, 1, 1, 0)));
                qb[i] = f.pdb.createQp(new QpInitAttr(QpType.RC, cq[i], cq[i], new QpCap(64, 64, 1, 1, 0)));
                new RcConnect().pair(qa[i], 1, qb[i], 2);
                for (int k = 0; k < n; k++) {
                    qb[i].postRecv(new RecvWr(1).sge(f.bufB.address() + i * 4096L, 64, f.mrb.lkey()));
                }
            }
            java.util.List<java.util.concurrent.Future<Integer>> waiters = new java.util.ArrayList<>();
            try (var pool = java.util.concurrent.Executors.newFixedThreadPool(2)) {
                for (int i = 0; i < 2; i++) {
                    int me = i;
                    waiters.add(pool.submit(() -> {
                        WorkCompletion[] wc = {new WorkCompletion()};
                        int got = 0;
                        while (true) {
                            cq[me].requestNotify(false);
                            while (cq[me].poll(wc) > 0) {
                                assertThat(wc[0].status).isEqualTo(dev.jrxe.ib.WcStatus.SUCCESS);
                                got++;
                            }
                            if (got == n) {
                                return got;
                            }
                            CompletionQueue fired = ch[me].getEvent(20, TimeUnit.SECONDS);
                            assertThat(fired).as("thread %d's event after %d messages", me, got).isSameAs(cq[me]);
                            fired.ackEvents(1);
                        }
                    }));
                }
                SendWr s = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey());
                s.sendFlags = SendFlags.SIGNALED;
                for (int k = 0; k < 2 * n; k++) {
                    qa[k % 2].postSend(s);
                    f.pollOk(f.cqa);
                    Thread.sleep(1); // let the waiters go back to waiting, and take the device over
                }
                assertThat(waiters.get(0).get()).isEqualTo(n);
                assertThat(waiters.get(1).get()).isEqualTo(n);
            }
            for (int i = 0; i < 2; i++) {
                qa[i].close();
                qb[i].close();
                cq[i].close();
            }
        }
    }

    @Test
    void shouldFireASolicitedOnlyArmOnlyForSolicitedMessages() throws Exception {
        try (RcFixture f = new RcFixture(8192)) {
            CompletionChannel ch = f.b.createCompChannel();
            CompletionQueue cq = f.b.createCq(16, ch, 0);
            f.qa = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)));
            f.qb = f.pdb.createQp(new QpInitAttr(QpType.RC, cq, cq, new QpCap(4, 4, 1, 1, 0)));
            new RcConnect().pair(f.qa, 1, f.qb, 2);
            cq.requestNotify(true);
            RecvWr r = new RecvWr(1).sge(f.bufB.address(), 64, f.mrb.lkey());
            f.qb.postRecv(r);
            f.qb.postRecv(r);
            SendWr s = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey());
            s.opcode = WrOpcode.SEND;
            s.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(s);
            f.pollOk(f.cqa);
            assertThat(ch.getEvent(100, TimeUnit.MILLISECONDS)).as("unsolicited SEND fires nothing").isNull();
            s.sendFlags = SendFlags.SIGNALED | SendFlags.SOLICITED;
            f.qa.postSend(s);
            assertThat(ch.getEvent(5, TimeUnit.SECONDS)).isSameAs(cq);
            f.qb.close();
            f.qb = null;
            cq.close();
        }
    }

    @Test
    void shouldReportPortActiveAtOpenAndCqErrorOnOverflow() throws Exception {
        try (RcFixture f = new RcFixture(8192)) {
            AsyncEvent first = f.a.getAsyncEvent(1, TimeUnit.SECONDS);
            assertThat(first.type()).isEqualTo(AsyncEventType.PORT_ACTIVE);
            CompletionQueue tiny = f.b.createCq(1);
            f.qa = f.pda.createQp(new QpInitAttr(QpType.RC, f.cqa, f.cqa, new QpCap(4, 4, 1, 1, 0)));
            f.qb = f.pdb.createQp(new QpInitAttr(QpType.RC, tiny, tiny, new QpCap(4, 4, 1, 1, 0)));
            new RcConnect().pair(f.qa, 1, f.qb, 2);
            RecvWr r = new RecvWr(1).sge(f.bufB.address(), 64, f.mrb.lkey());
            f.qb.postRecv(r);
            f.qb.postRecv(r);
            SendWr s = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey());
            f.qa.postSend(s);
            f.qa.postSend(s);
            AsyncEvent e;
            do {
                e = f.b.getAsyncEvent(5, TimeUnit.SECONDS);
                assertThat(e).as("CQ error event").isNotNull();
            } while (e.type() != AsyncEventType.CQ_ERR);
            assertThat(e.cq()).isSameAs(tiny);
        }
    }
}
