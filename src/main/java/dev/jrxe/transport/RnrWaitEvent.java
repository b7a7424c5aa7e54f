package dev.jrxe.transport;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** JFR: an RC requester waits out an RNR NAK before it resends. */
@Name("dev.jrxe.RnrWait")
@Label("RNR Wait")
@Category({"jrxe", "Transport"})
@Description("The peer had no receive posted: the requester waits the RNR timer it was given, then resends")
@StackTrace(false)
final class RnrWaitEvent extends Event {
    @Label("Device")
    String device;
    @Label("QPN")
    int qpn;
    @Label("PSN")
    int psn;
    @Label("Wait")
    @Timespan(Timespan.NANOSECONDS)
    long wait;
    @Label("RNR Retries Left")
    int rnrRetriesLeft;

    static void emit(Qp qp, long psn, long waitNanos) {
        RnrWaitEvent e = new RnrWaitEvent();
        if (e.isEnabled()) {
            e.device = qp.engine.name;
            e.qpn = qp.qpn;
            e.psn = (int) (psn & 0xFFFFFF);
            e.wait = waitNanos;
            e.rnrRetriesLeft = qp.rnrRetryLeft;
            e.commit();
        }
    }
}
