package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.jrxe.memory.TestSupport.MIB;
import static dev.jrxe.memory.TestSupport.PD;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MemoryKey#holdForSend}: what may be held (pinned memory of jrxe's allocator, in range, of
 * the right PD, registered), what it gives (the bytes' segment and offset) and that while it is
 * held nothing takes the memory away: deregistration and an unmap through the allocator wait for
 * the release.
 */
class SendHoldTest {
    private final KeyTable table = TestSupport.table();

    @AfterEach
    void tearDown() {
        table.deregisterAll();
    }

    @Test
    void shouldHoldPinnedAllocatorMemoryAndNameItsBytes() {
        MemorySegment mem = NativeMemory.map(MIB);
        try {
            Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
            SendHold hold = new SendHold();
            assertThat(r.holdForSend(PD, mem.address() + 4096, 4096, hold)).isTrue();
            assertThat(hold.holding()).isTrue();
            assertThat(hold.segment().address() + hold.offset()).isEqualTo(mem.address() + 4096);
            assertThat(hold.offset() + 4096).isLessThanOrEqualTo(hold.segment().byteSize());
            hold.release();
            hold.release(); // idempotent
            assertThat(hold.holding()).isFalse();
            assertThat(r.holdForSend(PD, mem.address() + MIB - 1024, 1024, hold)).as("the last KiB").isTrue();
            hold.release();
        } finally {
            table.deregisterAll();
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldHoldNothingTheKeyCheckRefuses() {
        MemorySegment mem = NativeMemory.map(MIB);
        try {
            Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
            SendHold hold = new SendHold();
            assertThat(r.holdForSend(PD + 1, mem.address(), 4096, hold)).as("another PD").isFalse();
            assertThat(r.holdForSend(PD, mem.address() + MIB - 100, 4096, hold)).as("past the end").isFalse();
            assertThat(r.holdForSend(PD, mem.address() - 4096, 4096, hold)).as("before the start").isFalse();
            assertThat(r.holdForSend(PD, mem.address(), -1, hold)).as("negative length").isFalse();
            r.close();
            assertThat(r.holdForSend(PD, mem.address(), 4096, hold)).as("deregistered").isFalse();
            assertThat(hold.holding()).isFalse();
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldCopyMemoryTheApplicationCanFreeBehindJrxesBack() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment mem = arena.allocate(MIB, 4096);
            Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
            SendHold hold = new SendHold();
            assertThat(r.holdForSend(PD, mem.address(), 4096, hold)).as("an arena's memory").isFalse();
            assertThat(hold.holding()).isFalse();
            r.close();
        }
    }

    @Test
    void shouldMakeDeregistrationWaitForTheRelease() throws Exception {
        MemorySegment mem = NativeMemory.map(MIB);
        try {
            Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
            SendHold hold = new SendHold();
            assertThat(r.holdForSend(PD, mem.address(), 4096, hold)).isTrue();
            CompletableFuture<Void> closing = CompletableFuture.runAsync(r::close);
            // held: the close cannot finish (a copy in flight makes it wait the same way)
            assertThat(catchTimeout(closing, 300)).isTrue();
            hold.release();
            closing.get(10, TimeUnit.SECONDS);
            assertThat(r.holdForSend(PD, mem.address(), 4096, hold)).isFalse();
        } finally {
            NativeMemory.unmap(mem);
        }
    }

    @Test
    void shouldMakeAnUnmapThroughTheAllocatorWaitForTheRelease() throws Exception {
        MemorySegment mem = NativeMemory.map(MIB);
        Region r = MemoryRegions.register(table, PD, mem, Access.LOCAL_WRITE);
        SendHold hold = new SendHold();
        assertThat(r.holdForSend(PD, mem.address(), 4096, hold)).isTrue();
        CompletableFuture<Void> unmapping = CompletableFuture.runAsync(() -> NativeMemory.unmap(mem));
        assertThat(catchTimeout(unmapping, 300)).isTrue();
        hold.release();
        unmapping.get(10, TimeUnit.SECONDS);
        assertThat(r.holdForSend(PD, mem.address(), 4096, hold)).as("revoked").isFalse();
        r.close();
    }

    /** True when {@code f} is still running after {@code millis}. */
    private static boolean catchTimeout(CompletableFuture<?> f, long millis) throws Exception {
        try {
            f.get(millis, TimeUnit.MILLISECONDS);
            return false;
        } catch (java.util.concurrent.TimeoutException e) {
            return true;
        }
    }
}
