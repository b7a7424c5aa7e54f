package dev.jrxe.memory;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class OdpChunkTest {
    private static final long BASE = 0x40000000L;
    private static final long PAGE = 4096;

    @Test
    void shouldTrackPagesAcrossBitmapWords() {
        OdpChunk c = new OdpChunk(BASE, SafeAccess.DIRECT, null, 0);
        assertThat(c.allPresent(BASE, 1)).isFalse();
        assertThat(c.markPresent(BASE + 60 * PAGE + 5, 10 * PAGE)).isEqualTo(11); // pages 60..70
        assertThat(c.allPresent(BASE + 60 * PAGE, 11 * PAGE)).isTrue();
        assertThat(c.allPresent(BASE + 59 * PAGE, 2 * PAGE)).isFalse();
        assertThat(c.markPresent(BASE + 70 * PAGE, 2 * PAGE)).isEqualTo(1);
        assertThat(c.presentPages()).isEqualTo(12);
        assertThat(c.clearPresent(BASE + 64 * PAGE, PAGE)).isEqualTo(1);
        assertThat(c.clearPresent(BASE - PAGE, 62 * PAGE)).as("clamped to the chunk").isEqualTo(1);
        assertThat(c.presentPages()).isEqualTo(10);
        assertThat(c.markPresent(BASE, OdpChunk.SIZE)).isEqualTo(OdpChunk.PAGES - 10);
        assertThat(c.allPresent(BASE, OdpChunk.SIZE)).isTrue();
        assertThat(c.clearPresent(0, Long.MAX_VALUE)).isEqualTo(OdpChunk.PAGES);
        assertThat(c.markPage(BASE + 511 * PAGE)).isEqualTo(1);
        assertThat(c.markPage(BASE + 511 * PAGE)).isZero();
    }

    @Test
    void shouldRetireOnlyWithoutAccessInFlight() {
        OdpChunk c = new OdpChunk(BASE, SafeAccess.DIRECT, null, 0);
        assertThat(c.enter()).isTrue();
        assertThat(c.tryRetire()).isFalse();
        assertThat(c.isLive()).isTrue();
        c.exit();
        assertThat(c.tryRetire()).isTrue();
        assertThat(c.enter()).isFalse();
        assertThat(c.inFlight()).isZero();
    }

    @Test
    void shouldIndexChunksSparselyAndAgreeOnOneChunkPerSlot() {
        ChunkIndex index = new ChunkIndex();
        OdpChunk a = new OdpChunk(BASE, SafeAccess.DIRECT, null, 0);
        OdpChunk b = new OdpChunk(BASE, SafeAccess.DIRECT, null, 0);
        long n = OdpChunk.indexOf(BASE);
        assertThat(index.get(n)).isNull();
        assertThat(index.putIfAbsent(n, a)).isSameAs(a);
        assertThat(index.putIfAbsent(n, b)).isSameAs(a);
        assertThat(index.get(n)).isSameAs(a);
        assertThat(index.remove(n, b)).isFalse();
        assertThat(index.remove(n, a)).isTrue();
        assertThat(index.get(n)).isNull();
        long far = ChunkIndex.LIMIT - 1;
        assertThat(index.putIfAbsent(far, b)).isSameAs(b);
        assertThat(index.get(far)).isSameAs(b);
        assertThat(index.get(ChunkIndex.LIMIT)).isNull();
        assertThat(index.get(-1)).isNull();
    }
}
