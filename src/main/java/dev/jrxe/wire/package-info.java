/**
 * The RoCEv2 wire format: the opcode table ({@link dev.jrxe.wire.OpcodeTable}), flyweight codecs
 * over {@link java.lang.foreign.MemorySegment} for the BTH and every extension header, the packet
 * view and writer ({@link dev.jrxe.wire.RocePacket}, {@link dev.jrxe.wire.PacketWriter}), PSN and
 * QPN arithmetic, and the ICRC ({@link dev.jrxe.wire.Icrc}) with the link hooks that add it on send
 * ({@link dev.jrxe.wire.IcrcSealer}) and check it on receive ({@link dev.jrxe.wire.RxDecoder}).
 * Depends on {@code dev.jrxe.net} only.
 */
package dev.jrxe.wire;
