package dev.jrxe.net;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;

/** The send and receive paths allocate nothing per datagram once warm. */
class LinkAllocationTest {
    private static final int ROUNDS = 1000;
    private static final int PER_ROUND = 64;

    private static long[] received = new long[1];

    private static void traffic(LinkPair p, DatagramHandler h, int rounds) {
        int dst = p.addrB();
        int port = p.b.localPort();
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < PER_ROUND; i++) {
                MemorySegment buf = p.a.claim();
                buf.set(JAVA_INT_UNALIGNED, 0, i);
                p.a.commit(i < 40 ? 4112 : 700, dst, port, 0);
            }
            p.a.flush();
            long want = received[0] + PER_ROUND;
            for (int spins = 0; received[0] < want && spins < 1000; spins++) {
                if (p.b.poll(h, 64) == 0) {
                    p.b.awaitReadable(1_000_000L);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"CHANNEL", "MMSG", "GSO"})
    void shouldNotAllocatePerDatagram(LinkMode mode) throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().threadId();
        received = new long[1];
        long[] count = received;
        DatagramHandler h = (b, off, len, s, sp, d) -> {
            count[0]++;
            return -1;
        };
        try (LinkPair p = LinkPair.open(mode, DatagramSealer.NONE)) {
            traffic(p, h, 2 * ROUNDS); // warm up: JIT, caches
            // the best of a few windows, so a late JIT compilation in one window does not count
            long best = Long.MAX_VALUE;
            long datagrams = 0;
            for (int window = 0; window < 5 && best > 0; window++) {
                long before = threads.getThreadAllocatedBytes(self);
                long got = count[0];
                traffic(p, h, ROUNDS);
                long allocated = threads.getThreadAllocatedBytes(self) - before;
                datagrams = count[0] - got;
                assertThat(datagrams).isGreaterThan(ROUNDS * PER_ROUND / 2);
                best = Math.min(best, allocated);
            }
            System.out.println(mode + ": " + best + " bytes allocated for " + datagrams + " datagrams");
            // a stray object is fine (JDK caches); one per datagram, or per batch, is not
            assertThat(best).as("bytes allocated for %d datagrams", datagrams).isLessThan(ROUNDS);
        }
    }
}
