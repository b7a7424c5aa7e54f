package dev.jrxe.verbs;

import dev.jrxe.transport.Engine;

/**
 * The engine a CQ or an SRQ belongs to once a QP uses it: a CQ's ring has one producer and an
 * SRQ's ring one consumer, that engine, so every QP of either joins it ({@link Device#placeQp}).
 */
final class EngineBinding {
    private volatile Engine engine;

    /** The bound engine, or null while no QP uses the queue. */
    Engine get() {
        return engine;
    }

    /** Binds to {@code e} (under the device's placement lock); a no-op once bound. */
    void bind(Engine e) {
        if (engine == null) {
            engine = e;
        }
    }
}
