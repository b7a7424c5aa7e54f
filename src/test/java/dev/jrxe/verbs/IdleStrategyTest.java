package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Idle strategies, and a CQ poll that waits with one. */
class IdleStrategyTest {
    @Test
    void shouldSpinThenYieldThenParkLongerAndStartOverWhenWorkComes() {
        IdleStrategy.Backoff b = (IdleStrategy.Backoff) IdleStrategy.backoff(3, 2, 1_000, 4_000);
        for (int i = 0; i < 5; i++) {
            assertThat(b.currentParkNanos()).as("spin or yield %d", i).isZero();
            b.idle(0);
        }
        assertThat(b.currentParkNanos()).isEqualTo(1_000);
        b.idle(0);
        assertThat(b.currentParkNanos()).isEqualTo(2_000);
        b.idle(0);
        b.idle(0);
        assertThat(b.currentParkNanos()).as("capped").isEqualTo(4_000);
        b.idle(1);
        assertThat(b.currentParkNanos()).as("work came: spinning again").isZero();
    }

    @Test
    void shouldRefuseNonsense() {
        assertThatThrownBy(() -> IdleStrategy.backoff(-1, 0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdleStrategy.backoff(1, 1, 10, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> IdleStrategy.sleeping(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldWaitForACompletionWithEveryStrategyAndTimeOutOnAnEmptyQueue() {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            WorkCompletion[] wc = {new WorkCompletion()};
            IdleStrategy[] all = {IdleStrategy.busySpin(), IdleStrategy.yielding(), IdleStrategy.sleeping(50_000),
                IdleStrategy.backoff()};
            RecvWr rb = new RecvWr(1).sge(f.bufB.address(), 64, f.mrb.lkey());
            SendWr sa = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey());
            sa.sendFlags = SendFlags.SIGNALED;
            for (IdleStrategy idle : all) {
                assertThat(f.cqb.poll(wc, 1, idle, TimeUnit.MILLISECONDS.toNanos(5))).as("nothing to take").isZero();
                f.qb.postRecv(rb);
                f.qa.postSend(sa);
                assertThat(f.cqb.poll(wc, 1, idle, TimeUnit.SECONDS.toNanos(10))).isEqualTo(1);
                assertThat(wc[0].opcode).isEqualTo(WcOpcode.RECV);
                assertThat(f.cqa.poll(wc, 1, idle, TimeUnit.SECONDS.toNanos(10))).isEqualTo(1);
                assertThat(wc[0].opcode).isEqualTo(WcOpcode.SEND);
            }
        }
    }
}
