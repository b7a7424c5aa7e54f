package dev.jrxe.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The accesses running through one window binding or indirect-key layout, so that invalidating
 * it (LOCAL_INV, a peer's SEND_WITH_INV, dealloc) can wait for them: an access counts itself in,
 * then checks that its binding is still current; an invalidation makes it stale, then waits
 * until none is counted. Both steps are sequentially consistent, so either the access sees the
 * binding stale, or the invalidation sees the access and waits for it to finish. A device of
 * several engines needs this: the access and the invalidation may run on two engine threads at
 * once, and the application must not see the invalidation complete while a write through the
 * old binding is still landing. An access never waits for anything the invalidating thread
 * holds, so the wait is as short as one copy.
 */
final class InFlight {
    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(InFlight.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    private volatile int count;

    /** An access begins (before it checks the binding). */
    void enter() {
        COUNT.getAndAdd(this, 1);
    }

    /** The access is over. */
    void exit() {
        COUNT.getAndAdd(this, -1);
    }

    /** Waits until no access counted before the binding went stale is still running. */
    void awaitQuiet() {
        int spins = 0;
        while ((int) COUNT.getVolatile(this) != 0) {
            if (++spins < 1000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    /** Accesses running now (tests). */
    int running() {
        return (int) COUNT.getVolatile(this);
    }
}
