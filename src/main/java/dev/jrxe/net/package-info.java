/**
 * The link: one UDP socket per device bound to an IPv4 address and port 4791, batched send and
 * receive, pcapng capture, fault injection and link counters. Knows nothing about RoCE; the
 * {@link dev.jrxe.net.DatagramSealer} and {@link dev.jrxe.net.DatagramHandler} hooks let the
 * wire layer above it add and check the ICRC.
 *
 * <p>Open a link with {@link dev.jrxe.net.Links#open} and a {@link dev.jrxe.net.LinkConfig}. The
 * {@link dev.jrxe.net.LinkMode modes}: CHANNEL (portable DatagramChannel), MMSG (Linux
 * sendmmsg/recvmmsg through FFM) and GSO (MMSG plus UDP GSO trains and UDP GRO receive); AUTO picks
 * the fastest that works.
 *
 * <p>IPv4 Identification, which the ICRC covers: every mode sends from unconnected sockets with DF
 * forced (IP_PMTUDISC_DO), so a single datagram carries ID 0. A GSO message leaves the socket as
 * one DF packet with ID 0; wherever it is cut into datagrams (software GSO before the device, or
 * the NIC) the segments get IDs 0, 1, 2, ... in order, so the sealer is called with the segment
 * index. Proven by GsoCaptureTest with tcpdump on a namespace's lo with tx-udp-segmentation off;
 * with it on (the default), lo passes the unsegmented super-datagram (ID 0) to the receiver,
 * whose UDP_GRO socket takes it whole, and a socket without UDP_GRO gets it cut in the same way.
 *
 * <p>The UDP source port: a datagram committed with a source port other than the link's own goes
 * out through a send-only socket bound to that port (as Linux rxe sends RC traffic from a
 * per-connection port in 0xC000-0xFFFF); replies come to port 4791. UDP checksum: MMSG sends 0 (as
 * rxe, SO_NO_CHECK); GSO needs the kernel's checksum; CHANNEL cannot choose. The ICRC does not
 * cover it.
 */
package dev.jrxe.net;
