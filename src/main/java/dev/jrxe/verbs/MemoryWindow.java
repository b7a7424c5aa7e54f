package dev.jrxe.verbs;

import dev.jrxe.ib.Access;
import dev.jrxe.memory.MemoryException;
import dev.jrxe.memory.MemoryWindows;

/**
 * A memory window ({@code ibv_mw}): a remote key for part of a memory region, with its own access
 * rights. Type 1 windows are bound with {@link QueuePair#bindMw} and unbound by a bind of length
 * 0; type 2 windows are bound with a BIND_MW work request (classic or extended API), belong to
 * the QP that bound them, and are invalidated by LOCAL_INV, by a peer's SEND_WITH_INV, or by
 * {@link #close}. The region needs {@code Access.MW_BIND}; while windows are bound to it, it
 * cannot be deregistered (EBUSY).
 *
 * <p>As in libibverbs, {@link #rkey()} changes when a bind is <em>posted</em>; the new rkey is
 * valid once the bind has executed, which happens before any later work request of the same QP
 * (so a SEND that carries it to the peer may follow at once).
 *
 * <pre>{@code
 * MemoryWindow mw = pd.allocMw(MemoryWindow.TYPE_1);
 * int rkey = qp.bindMw(mw, 1, SendFlags.SIGNALED, mr, mr.addr(), 4096, Access.REMOTE_READ);
 * // hand rkey to the peer; later: qp.bindMw(mw, 2, 0, null, 0, 0, 0) unbinds
 * mw.close();
 * }</pre>
 *
 * <p>Thread safe: {@link #rkey()} and {@link #state()} may be read from any thread; binds
 * serialize on the QP's send queue; {@link #close} may run from any thread.
 */
public final class MemoryWindow implements AutoCloseable {
    /** {@code IBV_MW_TYPE_1} (1): bound and unbound by {@link QueuePair#bindMw}, tied to no QP. */
    public static final int TYPE_1 = dev.jrxe.memory.MemoryWindow.TYPE_1;
    /** {@code IBV_MW_TYPE_2} (2): bound by a BIND_MW work request, owned by the QP that bound it. */
    public static final int TYPE_2 = dev.jrxe.memory.MemoryWindow.TYPE_2;

    private final ProtectionDomain pd;
    private final dev.jrxe.memory.MemoryWindow window;
    private volatile int rkey;
    private boolean closed;

    private MemoryWindow(ProtectionDomain pd, dev.jrxe.memory.MemoryWindow window) {
        this.pd = pd;
        this.window = window;
        this.rkey = window.key();
    }

    static MemoryWindow alloc(ProtectionDomain pd, int type) {
        if (type != TYPE_1 && type != TYPE_2) {
            throw VerbsException.einval("memory window type " + type + " (1 or 2)");
        }
        try {
            return new MemoryWindow(pd, MemoryWindows.alloc(pd.device().keys(), pd.handle(), type));
        } catch (MemoryException e) {
            throw new VerbsException(e.errno(), e.getMessage());
        }
    }

    /**
     * {@code ibv_inc_rkey}: the same index with the next 8-bit key, the usual new rkey of a bind.
     *
     * @param rkey a window's rkey
     * @return {@code rkey} with its low 8 bits (the key) incremented, wrapping 0xFF to 0
     */
    public static int incRkey(int rkey) {
        return (rkey & 0xFFFFFF00) | ((rkey + 1) & 0xFF);
    }

    /** {@return the protection domain the window was allocated in} */
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@return {@link #TYPE_1} or {@link #TYPE_2}} */
    public int type() {
        return window.type();
    }

    /** {@return {@code mw->rkey}: the rkey as of the last bind posted (see the class comment)} */
    public int rkey() {
        return rkey;
    }

    /** The rkey the window has now (changes when a bind executes). */
    int currentKey() {
        return window.key();
    }

    /** Called when a bind of this window with {@code newRkey} is posted. */
    void posted(int newRkey) {
        rkey = newRkey;
    }

    /** The memory layer's window (state, binding). */
    dev.jrxe.memory.MemoryWindow window() {
        return window;
    }

    /**
     * {@return the window's state as rxe keeps it: 0 FREE (a type 2 window unbound or
     * invalidated), 1 VALID (a type 1 window from allocation on, a type 2 window while bound) or
     * 2 INVALID (deallocated)}
     */
    public int state() {
        return window.state();
    }

    /**
     * {@code ibv_dealloc_mw}: unbinds (its rkey stops working at once; no access through it is
     * half done when this returns) and frees it. Twice is harmless.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // holding the engine: no access through the window is half done when this returns
        pd.device().withEveryEngine(() -> {
            if (window.state() != dev.jrxe.memory.MemoryWindow.INVALID) {
                MemoryWindows.dealloc(window);
            }
        });
    }
}
