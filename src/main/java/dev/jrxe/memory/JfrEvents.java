package dev.jrxe.memory;

/**
 * Where the memory layer emits its JFR events: only when the runtime has {@code jdk.jfr} (a jlink
 * image may leave it out). Each event costs nothing unless a recording enables it.
 */
final class JfrEvents {
    static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private JfrEvents() {
    }

    static void odpFault(long address, int pages, boolean implicit) {
        if (AVAILABLE) {
            OdpFaultEvent.emit(address, pages, implicit);
        }
    }

    static void odpChild(String action, OdpChunk c) {
        if (AVAILABLE) {
            OdpChildEvent.emit(action, c);
        }
    }
}
