package dev.jrxe.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Datagrams whose payload the link sends from where it lies ({@link Link#commitByReference}): on
 * the wire byte for byte what the same datagram laid out whole would be, sealed with an ICRC that
 * matches, in GSO trains and alone, mixed with datagrams held whole; each payload released once,
 * when sent or when the link closes; and only where nothing else reads the datagram's bytes.
 */
class ByReferenceLinkTest {
    /** Seals whole datagrams as {@link TestRoce#SEALER}, and parted ones by assembling them first. */
    static final DatagramSealer PARTS = new DatagramSealer() {
        @Override
        public void seal(MemorySegment buf, long offset, int length, int s, int d, int sp, int dp, int id) {
            TestRoce.SEALER.seal(buf, offset, length, s, d, sp, dp, id);
        }

        @Override
        public boolean sealsInParts() {
            return true;
        }

        @Override
        public void sealParts(MemorySegment head, int headLength, MemorySegment body, long bodyOffset, int bodyLength,
                              int tailLength, int s, int d, int sp, int dp, int id) {
            int length = headLength + bodyLength + tailLength;
            MemorySegment whole = MemorySegment.ofArray(new byte[length]);
            MemorySegment.copy(head, 0, whole, 0, headLength);
            MemorySegment.copy(body, bodyOffset, whole, headLength, bodyLength);
            MemorySegment.copy(head, headLength, whole, headLength + bodyLength, tailLength);
            head.set(JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), headLength + tailLength - TestRoce.ICRC,
                TestRoce.icrc(whole, 0, length, s, d, sp, dp, id));
        }
    };

    /** Counts releases per datagram (by PSN). */
    static final class Releases {
        final Map<Integer, Integer> byPsn = new HashMap<>();

        PayloadRelease of(int psn) {
            return () -> byPsn.merge(psn, 1, Integer::sum);
        }
    }

    /**
     * Claims a datagram whose payload lies in {@code payload} at {@code at}: BTH in the slot, the
     * pad and ICRC space after it, the payload by reference. Returns the datagram as it must arrive
     * (before its ICRC).
     */
    static byte[] commitByRef(Link from, Link to, int srcPort, int psn, MemorySegment payload, long at, int n,
                              PayloadRelease release) {
        MemorySegment buf = from.claim();
        byte[] whole = new byte[TestRoce.datagramLength(n)];
        int len = TestRoce.writeSendOnly(MemorySegment.ofArray(whole), 0x000321, psn, n);
        for (int i = 0; i < n; i++) {
            payload.set(JAVA_BYTE, at + i, whole[TestRoce.BTH + i]);
        }
        MemorySegment.copy(MemorySegment.ofArray(whole), 0, buf, 0, TestRoce.BTH);
        MemorySegment.copy(MemorySegment.ofArray(whole), TestRoce.BTH + n, buf, TestRoce.BTH, len - TestRoce.BTH - n);
        from.commitByReference(len, TestRoce.BTH, payload, at, n, release, to.localAddress(), to.localPort(), srcPort);
        return whole;
    }

    static byte[] commitWhole(Link from, Link to, int srcPort, int psn, int n) {
        MemorySegment buf = from.claim();
        int len = TestRoce.writeSendOnly(buf, 0x000321, psn, n);
        byte[] whole = buf.asSlice(0, len).toArray(JAVA_BYTE);
        from.commit(len, to.localAddress(), to.localPort(), srcPort);
        return whole;
    }

    @ParameterizedTest
    @EnumSource(value = LinkMode.class, names = {"MMSG", "GSO"})
    void shouldSendPayloadsFromWhereTheyLieByteForByteWithAMatchingIcrc(LinkMode mode) throws Exception {
        Releases releases = new Releases();
        Map<Integer, byte[]> expected = new HashMap<>();
        List<Integer> byRef = new ArrayList<>();
        try (LinkPair p = LinkPair.open(mode, PARTS); Arena arena = Arena.ofConfined()) {
            assertThat(p.a.sendsByReference()).isTrue();
            MemorySegment payload = arena.allocate(1 << 20);
            int psn = 0;
            long at = 0;
            // a train by reference, a train mixing both kinds, odd lengths (pad 1-3), short tails
            int[] sizes = {4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096,
                4096, 4096, 1001, 1024, 1024, 1023, 4096, 2, 4096, 1025, 4096};
            for (int i = 0; i < sizes.length; i++) {
                boolean whole = i % 7 == 3 || sizes[i] < 1000;
                if (whole) {
                    expected.put(psn, commitWhole(p.a, p.b, 0xC001, psn, sizes[i]));
                } else {
                    expected.put(psn, commitByRef(p.a, p.b, 0xC001, psn, payload, at + 3, sizes[i], releases.of(psn)));
                    byRef.add(psn);
                    at += sizes[i] + 3;
                }
                psn++;
            }
            p.a.flush();
            assertThat(releases.byPsn).as("each payload released once, by the flush").hasSize(byRef.size())
                .allSatisfy((k, v) -> assertThat(v).isEqualTo(1));
            assertThat(p.a.counters().txByReference()).isEqualTo(byRef.size());
            Collector got = new Collector().receive(p.b, sizes.length);
            assertThat(got.size()).isEqualTo(sizes.length);
            for (Collector.Datagram d : got.datagrams) {
                byte[] want = expected.get(d.psn());
                MemorySegment seg = MemorySegment.ofArray(d.data());
                int len = d.data().length;
                assertThat(len).isEqualTo(want.length);
                assertThat(java.util.Arrays.copyOf(d.data(), len - TestRoce.ICRC))
                    .as("datagram %d", d.psn()).isEqualTo(java.util.Arrays.copyOf(want, len - TestRoce.ICRC));
                int stored = seg.get(JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), len - TestRoce.ICRC);
                boolean matches = false;
                for (int id = 0; id < 64 && !matches; id++) {
                    matches = TestRoce.icrc(seg, 0, len, p.addrA(), p.addrB(), 0xC001, p.b.localPort(), id) == stored;
                }
                assertThat(matches).as("ICRC of datagram %d", d.psn()).isTrue();
            }
        }
    }

    @Test
    void shouldReleaseAPayloadThatNeverLeftWhenTheLinkCloses() throws Exception {
        Releases releases = new Releases();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocate(8192);
            LinkPair p = LinkPair.open(LinkMode.GSO, PARTS);
            try {
                commitByRef(p.a, p.b, 0xC001, 1, payload, 0, 4096, releases.of(1));
                commitByRef(p.a, p.b, 0xC001, 2, payload, 4096, 4096, releases.of(2));
                assertThat(releases.byPsn).isEmpty(); // queued: still read by the link
            } finally {
                p.close();
            }
            assertThat(releases.byPsn).containsExactlyInAnyOrderEntriesOf(Map.of(1, 1, 2, 1));
            assertThat(p.a.counters().txByReference()).isZero();
        }
    }

    @Test
    void shouldReleaseAPayloadTheKernelRefused() throws Exception {
        Releases releases = new Releases();
        try (LinkPair p = LinkPair.open(LinkMode.GSO, PARTS); Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocate(4096);
            // port 0 as destination: the kernel refuses the send (EINVAL)
            TestRoce.writeSendOnly(p.a.claim(), 0x000321, 9, 4096); // (its BTH is what the slot must hold)
            p.a.commitByReference(TestRoce.datagramLength(4096), TestRoce.BTH, payload, 0, 4096, releases.of(9),
                p.addrB(), 0, 0xC001);
            p.a.flush();
            assertThat(releases.byPsn).containsExactlyEntriesOf(Map.of(9, 1));
            assertThat(p.a.counters().drops(DropReason.SEND_FAILED)).isEqualTo(1);
            assertThat(p.a.counters().txByReference()).isZero();
        }
    }

    @Test
    void shouldCopyEveryPayloadWhereSomethingReadsTheDatagram(@TempDir Path dir) throws Exception {
        try (LinkPair captured = LinkPair.open(LinkMode.GSO, PARTS, c -> c.pcap(dir.resolve("a.pcapng")), c -> c);
             LinkPair faulty = LinkPair.open(LinkMode.GSO, PARTS, c -> c.txFaults(FaultConfig.parse("drop=0.1")), c -> c);
             LinkPair channel = LinkPair.open(LinkMode.CHANNEL, PARTS);
             LinkPair wholeSealer = LinkPair.open(LinkMode.GSO, TestRoce.SEALER);
             Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocate(4096);
            for (LinkPair p : List.of(captured, faulty, channel, wholeSealer)) {
                assertThat(p.a.sendsByReference()).as(p.a.toString()).isFalse();
                p.a.claim();
                assertThatThrownBy(() -> p.a.commitByReference(TestRoce.datagramLength(4096), TestRoce.BTH, payload, 0,
                    4096, () -> { }, p.addrB(), p.b.localPort(), 0xC001)).isInstanceOf(UnsupportedOperationException.class);
            }
        }
    }

    @Test
    void shouldRefuseAPayloadOutsideItsSegmentOrOnTheHeap() throws Exception {
        try (LinkPair p = LinkPair.open(LinkMode.GSO, PARTS); Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocate(4096);
            p.a.claim();
            int len = TestRoce.datagramLength(4096);
            assertThatThrownBy(() -> p.a.commitByReference(len, TestRoce.BTH, payload, 1, 4096, () -> { },
                p.addrB(), p.b.localPort(), 0xC001)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> p.a.commitByReference(len, TestRoce.BTH, MemorySegment.ofArray(new byte[4096]), 0,
                4096, () -> { }, p.addrB(), p.b.localPort(), 0xC001)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> p.a.commitByReference(len, len, payload, 0, 4096, () -> { },
                p.addrB(), p.b.localPort(), 0xC001)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
