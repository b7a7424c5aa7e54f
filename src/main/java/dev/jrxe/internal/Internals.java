package dev.jrxe.internal;

import dev.jrxe.memory.KeyTable;
import dev.jrxe.memory.Region;
import dev.jrxe.net.Link;
import dev.jrxe.transport.TransportCounters;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.MemoryRegion;
import java.lang.invoke.MethodHandles;

/**
 * The door from jrxe's own tools, simulator and benchmarks to what the verbs API keeps to itself
 * (a device's key table, transport counters by index and link; a region's memory layer; a
 * device opened on a link of the simulator's). The module does not export this package, so an
 * application cannot use it; {@code verbs} installs the implementation when {@link Device} is
 * initialized (the JDK's SharedSecrets pattern).
 */
public final class Internals {
    /** Implemented by {@code dev.jrxe.verbs}. */
    public interface Verbs {
        KeyTable keys(Device device);

        TransportCounters transportCounters(Device device);

        Link link(Device device);

        Region region(MemoryRegion mr);

        DeviceConfig withLink(DeviceConfig config, Link link);
    }

    private static volatile Verbs verbs;

    private Internals() {
    }

    /** Called once, by {@code Device}'s static initializer. */
    public static void install(Verbs implementation) {
        if (verbs != null) {
            throw new IllegalStateException("installed already");
        }
        verbs = implementation;
    }

    private static Verbs verbs() {
        Verbs v = verbs;
        if (v == null) {
            try {
                MethodHandles.lookup().ensureInitialized(Device.class);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            v = verbs;
        }
        return v;
    }

    /** The device's memory keys (regions) and their ODP counters. */
    public static KeyTable keys(Device device) {
        return verbs().keys(device);
    }

    /** The device's transport counters, by {@code TransportCounters} index. */
    public static TransportCounters transportCounters(Device device) {
        return verbs().transportCounters(device);
    }

    /** The device's link (packets, bytes, calls, drops by reason, fault injection). */
    public static Link link(Device device) {
        return verbs().link(device);
    }

    /** The memory layer's region behind an MR (kind, counters, translation). */
    public static Region region(MemoryRegion mr) {
        return verbs().region(mr);
    }

    /** The config, set to open its device on this link instead of a UDP socket. */
    public static DeviceConfig withLink(DeviceConfig config, Link link) {
        return verbs().withLink(config, link);
    }
}
