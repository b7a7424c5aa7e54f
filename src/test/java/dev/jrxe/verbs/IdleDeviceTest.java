package dev.jrxe.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.ib.SendFlags;
import dev.jrxe.ib.WcOpcode;
import org.junit.jupiter.api.Test;

/**
 * An idle device costs next to nothing: after a short while without work its progress thread
 * sleeps up to 50 ms at a time in poll(2) on the socket (it woke every 1 ms before: 2.2-2.8% of a
 * core measured over 10 s, now 0.2-0.4%), and a packet still wakes it at once.
 */
class IdleDeviceTest {
    @Test
    void shouldWakeRarelyWhenIdleAndStillServeAPeerAtOnce() throws Exception {
        try (RcFixture f = new RcFixture(8192)) {
            f.connect();
            Thread.sleep(400); // past the 200 ms after which an idle device sleeps deeply
            long before = f.b.engine().progressRounds();
            Thread.sleep(1000);
            long rounds = f.b.engine().progressRounds() - before;
            // 1 ms sleeps would be about 1000 rounds a second; 50 ms ones about 20
            assertThat(rounds).as("progress rounds in a second of idleness").isLessThan(100);
            // b's application is not polling: its progress thread takes the message and ACKs it
            RecvWr rb = new RecvWr(1).sge(f.bufB.address(), 64, f.mrb.lkey());
            f.qb.postRecv(rb);
            SendWr sa = new SendWr(1).sge(f.bufA.address(), 64, f.mra.lkey());
            sa.sendFlags = SendFlags.SIGNALED;
            f.qa.postSend(sa);
            assertThat(f.pollOk(f.cqa).opcode).isEqualTo(WcOpcode.SEND);
            assertThat(f.pollOk(f.cqb).opcode).isEqualTo(WcOpcode.RECV);
        }
    }
}
