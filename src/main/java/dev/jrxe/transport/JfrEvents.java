package dev.jrxe.transport;

/**
 * Where the transport emits its JFR events: only when the runtime has {@code jdk.jfr} (a jlink
 * image may leave it out, and the event classes would then fail to load on the receive path).
 * Each event costs nothing unless a recording enables it.
 */
final class JfrEvents {
    static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private JfrEvents() {
    }

    static void qpState(Qp qp, int from, int to) {
        if (AVAILABLE) {
            QpStateEvent.emit(qp, from, to);
        }
    }

    static void retransmit(Qp qp, long psn, String reason) {
        if (AVAILABLE) {
            RetransmitEvent.emit(qp, psn, reason);
        }
    }

    static void nak(Qp qp, boolean sent, long psn, int syndrome) {
        if (AVAILABLE) {
            NakEvent.emit(qp, sent, psn, syndrome);
        }
    }

    static void rnrWait(Qp qp, long psn, long waitNanos) {
        if (AVAILABLE) {
            RnrWaitEvent.emit(qp, psn, waitNanos);
        }
    }
}
