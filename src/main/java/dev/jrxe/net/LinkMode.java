package dev.jrxe.net;

/** How a {@link Link} moves datagrams through the kernel. */
public enum LinkMode {
    /** The fastest mode this kernel and JVM support: GSO, else MMSG, else CHANNEL. */
    AUTO,
    /** Portable: one {@code java.nio.channels.DatagramChannel} call per datagram. */
    CHANNEL,
    /** Linux via FFM: {@code sendmmsg}/{@code recvmmsg}, a batch of datagrams per system call. */
    MMSG,
    /**
     * Linux via FFM: like {@link #MMSG}, and trains of equal-size datagrams to one destination go
     * as one UDP GSO message (the kernel segments them); receive takes UDP GRO super-datagrams.
     */
    GSO
}
