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

    // ---------------------------------------------------------------- memory

    /** Most memory regions one device (key table) holds; rxe's max_mr. */
    public static final String MEMORY_MAX_MR_PROP = "jrxe.memory.maxMr";
    public static final int MEMORY_MAX_MR_DEFAULT = 524287;

    public static int memoryMaxMr() {
        return Integer.getInteger(MEMORY_MAX_MR_PROP, MEMORY_MAX_MR_DEFAULT);
    }

    /** Most bytes one device may pin (pinned MRs); -1 leaves it to the kernel's RLIMIT_MEMLOCK. */
    public static final String MEMORY_PIN_LIMIT_PROP = "jrxe.memory.pinLimitBytes";
    public static final long MEMORY_PIN_LIMIT_DEFAULT = -1;

    public static long memoryPinLimitBytes() {
        return Long.getLong(MEMORY_PIN_LIMIT_PROP, MEMORY_PIN_LIMIT_DEFAULT);
    }

    /** An implicit ODP child (2 MiB) idle longer than this is reclaimed. */
    public static final String MEMORY_CHILD_IDLE_MS_PROP = "jrxe.memory.childIdleMillis";
    public static final long MEMORY_CHILD_IDLE_MS_DEFAULT = 30_000;

    public static long memoryChildIdleMillis() {
        return Long.getLong(MEMORY_CHILD_IDLE_MS_PROP, MEMORY_CHILD_IDLE_MS_DEFAULT);
    }

    /** Most live 2 MiB children one implicit ODP region keeps; beyond it the least recently used go. */
    public static final String MEMORY_MAX_LIVE_CHILDREN_PROP = "jrxe.memory.maxLiveChildren";
    public static final int MEMORY_MAX_LIVE_CHILDREN_DEFAULT = 4096;

    public static int memoryMaxLiveChildren() {
        return Integer.getInteger(MEMORY_MAX_LIVE_CHILDREN_PROP, MEMORY_MAX_LIVE_CHILDREN_DEFAULT);
    }

    // ---------------------------------------------------------------- transport

    // ---------------------------------------------------------------- verbs / device
}
