/**
 * The link: one UDP socket per device bound to an IPv4 address and port 4791, batched send and
 * receive, pcapng capture, fault injection and link counters. Knows nothing about RoCE; the
 * {@link dev.jrxe.net.DatagramSealer} and {@link dev.jrxe.net.DatagramHandler} hooks let the
 * wire layer above it add and check the ICRC.
 */
package dev.jrxe.net;
