package dev.jrxe;

/**
 * Every tunable of jrxe in one place: the system property name and its default. Each layer reads
 * its settings from here; APIs that take explicit settings use these as their defaults.
 */
public final class Configuration {
    private Configuration() {
    }

    // ---------------------------------------------------------------- net (link)

    /** UDP port of RoCEv2. Tests may use another port; the wire always says 4791 by default. */
    public static final String PORT_PROP = "jrxe.port";
    public static final int PORT_DEFAULT = 4791;

    public static int port() {
        return Integer.getInteger(PORT_PROP, PORT_DEFAULT);
    }

    // ---------------------------------------------------------------- wire

    /** Largest RoCE payload a device accepts per packet (the largest IB MTU). */
    public static final String WIRE_MAX_PAYLOAD_PROP = "jrxe.wire.maxPayload";
    public static final int WIRE_MAX_PAYLOAD_DEFAULT = 4096;

    public static int wireMaxPayload() {
        return Integer.getInteger(WIRE_MAX_PAYLOAD_PROP, WIRE_MAX_PAYLOAD_DEFAULT);
    }

    // ---------------------------------------------------------------- memory

    // ---------------------------------------------------------------- transport

    // ---------------------------------------------------------------- verbs / device
}
