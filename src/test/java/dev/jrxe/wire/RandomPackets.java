package dev.jrxe.wire;

import static dev.jrxe.wire.OpcodeTable.*;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/** Test helper: fills every header field of a packet being written with random values. */
final class RandomPackets {
    private RandomPackets() {
    }

    static int[] knownOpcodes() {
        return java.util.stream.IntStream.range(0, 256).filter(OpcodeTable::isKnown).toArray();
    }

    /** Writes a packet with random header fields and payload; returns its length, ICRC bytes zero. */
    static int write(PacketWriter w, MemorySegment buf, long offset, int opcode, int payloadLength,
                     SplittableRandom r) {
        w.begin(buf, offset, opcode);
        w.bth().solicited(r.nextBoolean()).migReq(r.nextBoolean()).pkey(r.nextInt(1 << 16))
            .fecn(r.nextBoolean()).becn(r.nextBoolean()).resv6(r.nextInt(64)).destQp(r.nextInt())
            .ackReq(r.nextBoolean()).resv7(r.nextInt(128)).psn(r.nextInt());
        if (has(opcode, HAS_RDETH)) {
            w.rdeth().eeContext(r.nextInt());
        }
        if (has(opcode, HAS_DETH)) {
            w.deth().qkey(r.nextInt()).srcQp(r.nextInt());
        }
        if (has(opcode, HAS_FETH)) {
            w.feth().placementType(r.nextInt(16)).selectivityLevel(r.nextInt(4));
        }
        if (has(opcode, HAS_RETH)) {
            w.reth().va(r.nextLong()).rkey(r.nextInt()).dmaLength(r.nextInt());
        }
        if (has(opcode, HAS_ATMETH)) {
            w.atomicEth().va(r.nextLong()).rkey(r.nextInt()).swapAdd(r.nextLong()).compare(r.nextLong());
        }
        if (has(opcode, HAS_AETH)) {
            w.aeth().syndrome(r.nextInt(256)).msn(r.nextInt());
        }
        if (has(opcode, HAS_ATMACK)) {
            w.atomicAckEth().originalData(r.nextLong());
        }
        if (has(opcode, HAS_IMMDT)) {
            w.immDt().immediate(r.nextInt());
        }
        if (has(opcode, HAS_IETH)) {
            w.ieth().rkey(r.nextInt());
        }
        for (int i = 0; i < payloadLength; i++) {
            buf.set(java.lang.foreign.ValueLayout.JAVA_BYTE, w.payloadOffset() + i, (byte) r.nextInt());
        }
        return w.finish(payloadLength);
    }
}
