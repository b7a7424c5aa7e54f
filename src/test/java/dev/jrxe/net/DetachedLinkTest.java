package dev.jrxe.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link Links#detached}: a link for a device that is only queried binds nothing and moves nothing. */
class DetachedLinkTest {
    private static LinkConfig config(int port) throws Exception {
        return LinkConfig.builder((java.net.Inet4Address) InetAddress.getByName("127.0.0.2")).port(port).build();
    }

    @Test
    void shouldBindNothingSoThatARealLinkAndMoreDetachedOnesShareTheAddress() throws Exception {
        try (Link real = Links.open(config(0), (buf, off, len, sa, da, sp, dp, id) -> { });
             Link a = Links.detached(config(real.localPort()));
             Link b = Links.detached(config(real.localPort()))) {
            assertThat(a.localPort()).isEqualTo(real.localPort());
            assertThat(a.localAddress()).isEqualTo(0x7F000002);
            assertThat(a.maxDatagram()).isEqualTo(real.maxDatagram());
            assertThat(b.poll((buf, off, len, src, sport, dst) -> -1, 64)).isZero();
        }
    }

    @Test
    void shouldDropWhatIsSentAndReceiveNothing() throws Exception {
        try (Link link = Links.detached(config(4791))) {
            assertThat(link.claim().byteSize()).isEqualTo(link.maxDatagram());
            link.commit(64, 0x7F000003, 4791, 49152);
            assertThat(link.flush()).isZero();
            int[] calls = {0};
            assertThat(link.poll((buf, off, len, src, sport, dst) -> calls[0]++, 64)).isZero();
            assertThat(calls[0]).isZero();
            assertThat(link.counters()).isNotNull();
        }
    }

    @Test
    void shouldReturnFromAwaitReadableOnWakeup() throws Exception {
        try (Link link = Links.detached(config(4791))) {
            Thread waker = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
                link.wakeup();
            });
            long start = System.nanoTime();
            assertThat(link.awaitReadable(TimeUnit.SECONDS.toNanos(60))).isFalse();
            // woken, not timed out: well under the 60 s it was given
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(30));
            waker.join();
        }
    }
}
