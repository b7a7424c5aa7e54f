package dev.jrxe.transport;

/** Where the engine reports asynchronous events (the verbs device's event queue). */
public interface EventSink {
    /** An event about a QP ({@code dev.jrxe.ib.AsyncEventType}). */
    void qpEvent(Qp qp, int type);
}
