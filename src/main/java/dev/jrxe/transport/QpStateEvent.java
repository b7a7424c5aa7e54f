package dev.jrxe.transport;

import dev.jrxe.ib.QpState;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: a QP changed state (a modify by the application, or the transport moving it to ERR). */
@Name("dev.jrxe.QpState")
@Label("QP State")
@Category({"jrxe", "Transport"})
@Description("A queue pair changed state")
@StackTrace(false)
final class QpStateEvent extends Event {
    @Label("Device")
    String device;
    @Label("QPN")
    int qpn;
    @Label("From")
    String from;
    @Label("To")
    String to;

    static void emit(Qp qp, int from, int to) {
        if (from == to) {
            return;
        }
        QpStateEvent e = new QpStateEvent();
        if (e.isEnabled()) {
            e.device = qp.engine.name;
            e.qpn = qp.qpn;
            e.from = QpState.name(from);
            e.to = QpState.name(to);
            e.commit();
        }
    }
}
