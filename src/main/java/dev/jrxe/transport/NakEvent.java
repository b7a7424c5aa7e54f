package dev.jrxe.transport;

import dev.jrxe.wire.Aeth;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: a NAK (or RNR NAK) a responder sent or a requester received. */
@Name("dev.jrxe.Nak")
@Label("NAK")
@Category({"jrxe", "Transport"})
@Description("A negative acknowledgement sent or received: PSN sequence error, RNR, invalid request, "
    + "remote access or operational error")
@StackTrace(false)
final class NakEvent extends Event {
    @Label("Device")
    String device;
    @Label("QPN")
    int qpn;
    @Label("Direction")
    String direction;
    @Label("PSN")
    int psn;
    @Label("Syndrome")
    @Description("The AETH syndrome byte")
    int syndrome;
    @Label("Kind")
    String kind;

    static void emit(Qp qp, boolean sent, long psn, int syndrome) {
        NakEvent e = new NakEvent();
        if (e.isEnabled()) {
            e.device = qp.engine.name;
            e.qpn = qp.qpn;
            e.direction = sent ? "sent" : "received";
            e.psn = (int) (psn & 0xFFFFFF);
            e.syndrome = syndrome;
            e.kind = Aeth.describe(syndrome);
            e.commit();
        }
    }
}
