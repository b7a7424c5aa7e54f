package dev.jrxe.verbs;

/**
 * One path of an SRD QP ({@link SrdDv#pathStats}): a UDP source port the QP sends from.
 * Immutable: a snapshot of the path's counters when it was taken, readable from any thread.
 *
 * <pre>{@code
 * for (SrdPathStats p : SrdDv.pathStats(qp)) {
 *     System.out.println(p);
 * }
 * }</pre>
 *
 * @param path          index (the DETH path byte of its packets)
 * @param sourcePort    UDP source port
 * @param sent          packets first sent on it
 * @param retransmits   retransmissions sent on it
 * @param timeouts      retransmission timeouts of packets last sent on it
 * @param srttNanos     latest smoothed RTT measured on it (0: none yet)
 */
public record SrdPathStats(int path, int sourcePort, long sent, long retransmits, long timeouts, long srttNanos) {
}
