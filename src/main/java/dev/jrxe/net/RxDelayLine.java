package dev.jrxe.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Copies of received datagrams that receive-side fault injection holds back until a number of
 * later datagrams have overtaken them. Buffers are allocated once.
 */
final class RxDelayLine {
    private final MemorySegment[] buf;
    private final int[] len;
    private final int[] srcAddr;
    private final int[] srcPort;
    private final int[] dstAddr;
    private final int[] left;
    private final int maxDatagram;
    private int size;

    RxDelayLine(Arena arena, int capacity, int maxDatagram) {
        this.maxDatagram = maxDatagram;
        this.buf = new MemorySegment[capacity];
        for (int i = 0; i < capacity; i++) {
            buf[i] = arena.allocate(maxDatagram, 8);
        }
        this.len = new int[capacity];
        this.srcAddr = new int[capacity];
        this.srcPort = new int[capacity];
        this.dstAddr = new int[capacity];
        this.left = new int[capacity];
    }

    int size() {
        return size;
    }

    boolean hasRoom(int length) {
        return size < buf.length && length <= maxDatagram;
    }

    void hold(MemorySegment from, long off, int length, int addr, int port, int dst, int depth) {
        MemorySegment.copy(from, off, buf[size], 0, length);
        len[size] = length;
        srcAddr[size] = addr;
        srcPort[size] = port;
        dstAddr[size] = dst;
        left[size] = depth;
        size++;
    }

    /** One datagram overtook the held ones: delivers those now due, in hold order; returns how many. */
    int overtaken(AbstractLink link, DatagramHandler h) {
        int keep = 0;
        int calls = 0;
        for (int i = 0; i < size; i++) {
            if (--left[i] == 0) {
                calls += link.handOver(h, buf[i], 0, len[i], srcAddr[i], srcPort[i], dstAddr[i]);
            } else {
                if (keep != i) {
                    MemorySegment b = buf[keep];
                    buf[keep] = buf[i];
                    buf[i] = b;
                    len[keep] = len[i];
                    srcAddr[keep] = srcAddr[i];
                    srcPort[keep] = srcPort[i];
                    dstAddr[keep] = dstAddr[i];
                    left[keep] = left[i];
                }
                keep++;
            }
        }
        size = keep;
        return calls;
    }
}
