package dev.jrxe.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Send- and receive-side fault injection: what it does to the traffic, and that a seed repeats it. */
class FaultInjectionTest {
    private static final int N = 4000;
    private static final int PAYLOAD = 256;

    enum Side { TX, RX }

    /** Sends N SEND_ONLY datagrams with PSN 0..N-1 from A to B; returns B's datagrams in arrival order. */
    private static Result run(LinkMode mode, Side side, FaultConfig faults) throws Exception {
        try (LinkPair p = LinkPair.open(mode, TestRoce.SEALER,
                c -> side == Side.TX ? c.txFaults(faults) : c,
                c -> side == Side.RX ? c.rxFaults(faults) : c)) {
            Collector got = new Collector();
            for (int i = 0; i < N; i++) {
                MemorySegment buf = p.a.claim();
                int len = TestRoce.writeSendOnly(buf, 0x11, i, PAYLOAD);
                p.a.commit(len, p.addrB(), p.b.localPort(), 0);
                if (i % 64 == 63) {
                    p.a.flush();
                    got.drainQuick(p.b);
                }
            }
            p.a.flush();
            got.drain(p.b);
            AbstractLink a = (AbstractLink) p.a;
            AbstractLink b = (AbstractLink) p.b;
            FaultInjector injector = side == Side.TX ? a.txFaults() : b.rxFaults();
            int held = side == Side.TX ? a.txHeld() : b.rxHeld();
            return new Result(got.datagrams, injector, held, p.a.counters(), p.b.counters());
        }
    }

    record Result(List<Collector.Datagram> datagrams, FaultInjector injector, int held,
                  LinkCounters tx, LinkCounters rx) {
        List<Integer> psns() {
            return datagrams.stream().map(Collector.Datagram::psn).toList();
        }
    }

    @ParameterizedTest
    @EnumSource(Side.class)
    void shouldDropTheSeededShareAndCountItAsInjected(Side side) throws Exception {
        Result r = run(LinkMode.GSO, side, FaultConfig.NONE.withDrop(0.1).withSeed(7));
        long dropped = r.injector().dropped();
        assertThat(dropped).isBetween(300L, 500L); // 10 % of 4000, with room for chance
        assertThat(r.datagrams()).hasSize((int) (N - dropped));
        LinkCounters dropping = side == Side.TX ? r.tx() : r.rx();
        assertThat(dropping.drops(DropReason.INJECTED)).isEqualTo(dropped);
        assertThat(r.psns()).isSorted().doesNotHaveDuplicates();
        if (side == Side.TX) {
            assertThat(r.tx().txPackets()).isEqualTo(N - dropped);
        } else {
            assertThat(r.rx().rxPackets()).isEqualTo(N);
        }
    }

    @ParameterizedTest
    @EnumSource(Side.class)
    void shouldDeliverDuplicatesRightAfterTheOriginal(Side side) throws Exception {
        Result r = run(LinkMode.MMSG, side, FaultConfig.NONE.withDuplicate(0.05).withSeed(11));
        long dups = r.injector().duplicated();
        assertThat(dups).isBetween(120L, 280L);
        assertThat(r.datagrams()).hasSize((int) (N + dups));
        List<Integer> psns = r.psns();
        int adjacentPairs = 0;
        for (int i = 1; i < psns.size(); i++) {
            assertThat(psns.get(i)).isGreaterThanOrEqualTo(psns.get(i - 1));
            if (psns.get(i).equals(psns.get(i - 1))) {
                adjacentPairs++;
            }
        }
        assertThat(adjacentPairs).isEqualTo(dups);
    }

    @ParameterizedTest
    @EnumSource(Side.class)
    void shouldFlipExactlyOneBitOfEachCorruptedDatagram(Side side) throws Exception {
        Result r = run(LinkMode.CHANNEL, side, FaultConfig.NONE.withCorrupt(0.05).withSeed(3));
        assertThat(r.datagrams()).hasSize(N);
        int flipped = 0;
        for (int psn = 0; psn < N; psn++) {
            // corruption only: datagram i is PSN i (the PSN bits themselves may be hit)
            Collector.Datagram d = r.datagrams().get(psn);
            int len = d.data().length;
            MemorySegment intact = MemorySegment.ofArray(new byte[len]);
            TestRoce.writeSendOnly(intact, 0x11, psn, PAYLOAD);
            // both links share one port number, so the destination port equals the source port
            TestRoce.SEALER.seal(intact, 0, len, d.srcAddr(), d.dstAddr(), d.srcPort(), d.srcPort(), 0);
            int bits = 0;
            for (int i = 0; i < len; i++) {
                bits += Integer.bitCount((d.data()[i] ^ intact.get(JAVA_BYTE, i)) & 0xFF);
            }
            assertThat(bits).as("bits flipped in datagram %d", psn).isLessThanOrEqualTo(1);
            flipped += bits;
        }
        assertThat(flipped).isEqualTo(r.injector().corrupted());
        assertThat(r.injector().corrupted()).isBetween(120L, 280L);
    }

    /**
     * Without other faults, a held-back datagram is overtaken by exactly {@code depth} later ones
     * and a datagram that was not held back by none.
     */
    @ParameterizedTest
    @EnumSource(Side.class)
    void shouldLetExactlyDepthDatagramsOvertakeAHeldBackOne(Side side) throws Exception {
        int depth = 3;
        Result r = run(LinkMode.GSO, side, FaultConfig.NONE.withReorder(0.05, depth).withSeed(5));
        List<Integer> psns = r.psns();
        assertThat(psns).doesNotHaveDuplicates().hasSize(N - r.held());
        int late = 0;
        for (int i = 0; i < psns.size(); i++) {
            int overtakers = 0;
            for (int j = 0; j < i; j++) {
                if (psns.get(j) > psns.get(i)) {
                    overtakers++;
                }
            }
            assertThat(overtakers).as("datagrams before PSN %d that were sent after it", psns.get(i)).isIn(0, depth);
            if (overtakers == depth) {
                late++;
            }
        }
        assertThat(late).isEqualTo(r.injector().delayed() - r.held());
        assertThat(r.injector().delayed()).isBetween(120L, 280L);
    }

    @ParameterizedTest
    @EnumSource(Side.class)
    void shouldRepeatTheSameFaultsForTheSameSeed(Side side) throws Exception {
        FaultConfig faults = FaultConfig.parse("drop=0.05,dup=0.05,reorder=0.05,depth=4,corrupt=0.02,seed=99");
        Result first = run(LinkMode.MMSG, side, faults);
        Result second = run(LinkMode.MMSG, side, faults);
        Result other = run(LinkMode.MMSG, side, faults.withSeed(100));
        assertThat(second.psns()).isEqualTo(first.psns());
        assertThat(second.injector().toString()).isEqualTo(first.injector().toString());
        assertThat(other.psns()).isNotEqualTo(first.psns());
        // same bytes, up to the ICRC (each run binds another port, which the ICRC covers)
        List<byte[]> a = new ArrayList<>();
        first.datagrams().forEach(d -> a.add(java.util.Arrays.copyOf(d.data(), d.data().length - TestRoce.ICRC)));
        List<byte[]> b = new ArrayList<>();
        second.datagrams().forEach(d -> b.add(java.util.Arrays.copyOf(d.data(), d.data().length - TestRoce.ICRC)));
        assertThat(b).zipSatisfy(a, (x, y) -> assertThat(x).isEqualTo(y));
    }

    @Test
    void shouldCreateNoInjectorWhenFaultsAreOff() throws Exception {
        try (LinkPair p = LinkPair.open(LinkMode.MMSG, DatagramSealer.NONE)) {
            assertThat(((AbstractLink) p.a).txFaults()).isNull();
            assertThat(((AbstractLink) p.a).rxFaults()).isNull();
        }
    }

    @Test
    void shouldParseFaultSpecs() {
        FaultConfig c = FaultConfig.parse(" drop=0.1, duplicate=0.2 ,reorder=0.3,depth=5,corrupt=0.4,seed=-3");
        assertThat(c).isEqualTo(new FaultConfig(0.1, 0.2, 0.3, 5, 0.4, -3));
        assertThat(FaultConfig.parse("dup=1").duplicate()).isEqualTo(1.0);
        assertThat(FaultConfig.parse("")).isEqualTo(FaultConfig.NONE);
        assertThat(FaultConfig.NONE.enabled()).isFalse();
        assertThat(c.enabled()).isTrue();
        assertThatThrownBy(() -> FaultConfig.parse("drop=2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FaultConfig.parse("depth=0")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FaultConfig.parse("jitter=1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FaultConfig.parse("drop")).isInstanceOf(IllegalArgumentException.class);
    }
}
