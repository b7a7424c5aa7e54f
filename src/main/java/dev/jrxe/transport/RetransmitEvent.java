package dev.jrxe.transport;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: the requester goes back to a PSN and sends from there again (go-back-N). */
@Name("dev.jrxe.Retransmit")
@Label("Retransmit")
@Category({"jrxe", "Transport"})
@Description("An RC requester resends from a PSN: ACK timeout, PSN sequence NAK, or missing READ/atomic response")
@StackTrace(false)
final class RetransmitEvent extends Event {
    static final String TIMEOUT = "ACK timeout";
    static final String SEQUENCE_NAK = "PSN sequence NAK";
    static final String MISSING_RESPONSE = "READ/atomic response missing";

    @Label("Device")
    String device;
    @Label("QPN")
    int qpn;
    @Label("PSN")
    @Description("The 24-bit PSN it resends from")
    int psn;
    @Label("Reason")
    String reason;
    @Label("Retries Left")
    @Description("Retries left of retry_cnt after this one (7: unlimited is not a value; counted retries only)")
    int retriesLeft;

    static void emit(Qp qp, long psn, String reason) {
        RetransmitEvent e = new RetransmitEvent();
        if (e.isEnabled()) {
            e.device = qp.engine.name;
            e.qpn = qp.qpn;
            e.psn = (int) (psn & 0xFFFFFF);
            e.reason = reason;
            e.retriesLeft = qp.retryLeft;
            e.commit();
        }
    }
}
