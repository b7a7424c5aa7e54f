package dev.jrxe.verbs;

import dev.jrxe.memory.KeyTable;
import dev.jrxe.memory.MemStatus;
import dev.jrxe.memory.MemoryKey;
import dev.jrxe.memory.ProcessMemory;
import java.lang.foreign.MemorySegment;

/**
 * Copies the payload of an IBV_SEND_INLINE request into its WQE at post time, so the caller may
 * reuse the buffer when the post returns. As in rdma-core the lkey is not required: when it does
 * not name a region covering the SGE, the bytes are read through the kernel-checked path (an
 * unmapped address gives EFAULT, never a crash).
 */
final class InlineCopy {
    private InlineCopy() {
    }

    /** Copies the WQE's SGEs into its inline buffer; a {@link MemStatus}. */
    static int copy(KeyTable keys, dev.jrxe.transport.SendWqe w) {
        long off = 0;
        MemorySegment dst = w.inline;
        for (int i = 0; i < w.numSge; i++) {
            long len = Integer.toUnsignedLong(w.sgeLength[i]);
            if (len == 0) {
                continue;
            }
            long addr = w.sgeAddr[i];
            MemoryKey k = keys.lookup(w.sgeLkey[i]);
            int st = k != null ? k.read(k.pdHandle(), 0, addr, dst, off, len) : MemStatus.INVALID_KEY;
            if (st != MemStatus.OK) {
                st = ProcessMemory.read(addr, dst, off, len);
            }
            if (st != MemStatus.OK) {
                return st;
            }
            off += len;
        }
        return MemStatus.OK;
    }
}
