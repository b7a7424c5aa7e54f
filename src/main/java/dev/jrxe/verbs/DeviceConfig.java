package dev.jrxe.verbs;

import dev.jrxe.Configuration;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;

/** How to open a {@link Device}: its name, IPv4 address, UDP port and link options. */
public final class DeviceConfig {
    String name = "jrxe0";
    Inet4Address address;
    int udpPort = Configuration.port();
    Path pcap;
    String linkMode;
    double dropRate;
    double duplicateRate;
    double reorderRate;
    int reorderDepth = 3;
    double corruptRate;
    long faultSeed = 1;
    int activeMtu = 4096;
    boolean manualProgress;
    java.util.function.LongSupplier clock = System::nanoTime;
    long seed;
    dev.jrxe.net.Link link;
    boolean privilegedQkey;
    boolean noGso;
    boolean detached;

    public static DeviceConfig of(String name, String address) {
        try {
            InetAddress a = InetAddress.getByName(address);
            if (!(a instanceof Inet4Address v4)) {
                throw VerbsException.einval("jrxe devices bind IPv4 addresses: " + address);
            }
            DeviceConfig c = new DeviceConfig();
            c.name = name;
            c.address = v4;
            return c;
        } catch (UnknownHostException e) {
            throw VerbsException.einval("bad address " + address);
        }
    }

    public DeviceConfig udpPort(int port) {
        this.udpPort = port;
        return this;
    }

    /** Writes every packet sent and received to this pcapng file. */
    public DeviceConfig pcap(Path file) {
        this.pcap = file;
        return this;
    }

    /** Link mode: AUTO (default), CHANNEL, MMSG or GSO. */
    public DeviceConfig linkMode(String mode) {
        this.linkMode = mode;
        return this;
    }

    /** Fault injection on what this device's link sends (drop, duplicate, reorder probabilities). */
    public DeviceConfig faults(double drop, double duplicate, double reorder, long seed) {
        this.dropRate = drop;
        this.duplicateRate = duplicate;
        this.reorderRate = reorder;
        this.faultSeed = seed;
        return this;
    }

    public DeviceConfig corrupt(double rate) {
        this.corruptRate = rate;
        return this;
    }

    /** Active MTU of the port in bytes (256..4096), standing in for the netdev MTU. */
    public DeviceConfig activeMtu(int bytes) {
        this.activeMtu = bytes;
        return this;
    }

    /**
     * No progress thread: the device runs only when its application drives it
     * ({@link Device#progress()}, posting, polling), like libfabric's manual progress. For programs
     * that want every step on their own thread, and for the simulator, which runs several devices
     * in one thread.
     */
    public DeviceConfig manualProgress() {
        this.manualProgress = true;
        return this;
    }

    /**
     * The nanosecond clock every timer of the device reads (retransmit, RNR, ACK hold, ODP idle
     * reclaim); default {@code System::nanoTime}. The simulator gives a virtual clock.
     */
    public DeviceConfig clock(java.util.function.LongSupplier nanos) {
        this.clock = java.util.Objects.requireNonNull(nanos, "clock");
        return this;
    }

    /**
     * Seeds what the device draws at random (QPNs, the 8-bit part of memory keys), so that a run
     * repeats exactly; default 0: unpredictable ({@code SecureRandom}), which is what a device on a
     * network should be (docs/SECURITY.md).
     */
    public DeviceConfig seed(long seed) {
        this.seed = seed;
        return this;
    }

    /** A link to use instead of opening a UDP socket (the simulator's in-memory network). */
    DeviceConfig link(dev.jrxe.net.Link link) {
        this.link = link;
        return this;
    }

    /**
     * Never sends UDP GSO trains (the AUTO and GSO link modes become MMSG, or CHANNEL where FFM is
     * not available): every datagram goes to the kernel alone, so a capture on lo or a veth, which
     * sees GSO trains whole (docs/CAPTURE.md), shows each RoCE packet as the wire carries it.
     */
    public DeviceConfig noGso(boolean noGso) {
        this.noGso = noGso;
        return this;
    }

    /**
     * Opens the device for queries only ({@code ibv_devinfo}'s use): its link binds no socket,
     * drops whatever is sent and receives nothing, so the query works while another process holds
     * the address and port. Attributes are those of the same device opened normally.
     */
    public DeviceConfig detached() {
        this.detached = true;
        return this;
    }

    /**
     * Lets QPs of this device take a controlled Q_Key (high bit set, e.g. 0x80000000), as the
     * kernel allows a process with CAP_NET_RAW or after {@code rdma system set privileged-qkey on};
     * default false: modify_qp with such a Q_Key fails with EPERM.
     */
    public DeviceConfig privilegedQkey(boolean allowed) {
        this.privilegedQkey = allowed;
        return this;
    }

    boolean privilegedQkey() {
        return privilegedQkey;
    }

    public String name() {
        return name;
    }

    public Inet4Address address() {
        return address;
    }
}
