package dev.jrxe.memory;

import dev.jrxe.ib.Access;
import dev.jrxe.ib.Errno;

/**
 * Allocation, binding, invalidation and deallocation of {@link MemoryWindow}s, with rxe_mw.c's
 * checks. Binding and invalidation run on the engine thread when the requester reaches their
 * work request; they return 0 or an errno (EINVAL for every rule rxe enforces), which the
 * transport turns into MW_BIND_ERR or LOC_QP_OP_ERR.
 */
public final class MemoryWindows {
    /** Access bits a bind may give a window. */
    private static final int BIND_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE
        | Access.REMOTE_ATOMIC | Access.ZERO_BASED;

    private MemoryWindows() {
    }

    /**
     * ibv_alloc_mw: type 1 starts VALID and unbound, type 2 FREE.
     *
     * @throws MemoryException EINVAL for another type (verbs' check), ENOMEM when the key table is full
     */
    public static MemoryWindow alloc(KeyTable table, int pdHandle, int type) {
        if (type != MemoryWindow.TYPE_1 && type != MemoryWindow.TYPE_2) {
            throw new MemoryException(Errno.EINVAL, "memory window type " + type);
        }
        int key = table.reserve();
        MemoryWindow mw = new MemoryWindow(table, key, type, pdHandle);
        table.publish(key, mw);
        return mw;
    }

    /**
     * Binds {@code mw} to {@code [addr, addr+length)} of {@code mr} with {@code access}, giving it
     * the 8-bit key {@code newKey & 0xFF} (rxe_bind_mw / rxe_check_bind_mw / rxe_do_bind_mw).
     * {@code mwKey} is the window's rkey as the work request names it; {@code qpPd} and {@code qpn}
     * are the binding QP's ({@code qpToken}: unique to that QP's life). A type 1 bind of length 0
     * unbinds. Returns 0 or EINVAL.
     */
    public static int bind(MemoryWindow mw, int mwKey, int qpPd, long qpToken, Region mr, long addr, long length,
                           int access, int newKey) {
        synchronized (mw) {
            if (mw.key() != mwKey || mw.state() == MemoryWindow.INVALID) {
                return Errno.EINVAL;
            }
            if (mw.type() == MemoryWindow.TYPE_1) {
                if ((access & Access.ZERO_BASED) != 0) {
                    return Errno.EINVAL; // o10-36.2.2
                }
            } else {
                if (mw.state() != MemoryWindow.FREE) {
                    return Errno.EINVAL; // o10-37.2.30
                }
                if (qpPd != mw.pdHandle()) {
                    return Errno.EINVAL; // C10-72
                }
                if (mr == null || length == 0) {
                    return Errno.EINVAL; // o10-37.2.40
                }
            }
            if ((access & ~BIND_ACCESS) != 0) {
                return Errno.EINVAL;
            }
            boolean unbind = mw.type() == MemoryWindow.TYPE_1 && length == 0;
            if (!unbind && mr == null) {
                return Errno.EINVAL;
            }
            int key = (mwKey & ~0xFF) | (newKey & 0xFF);
            MemoryWindow.Binding old = mw.binding();
            if (unbind) {
                mw.setBinding(null);
            } else {
                // checked and held under the region's lock: no rereg between the check and the hold
                synchronized (mr) {
                    int st = checkRegion(mw, mr, addr, length, access);
                    if (st != 0) {
                        return st;
                    }
                    mr.keyHolds++;
                }
                mw.setBinding(mw.newBinding(mr, addr, length, access, qpToken, key));
            }
            release(old);
            // the old rkey stops resolving the moment the key changes
            mw.setKey(key);
            mw.setState(MemoryWindow.VALID);
            return 0;
        }
    }

    /** C10-73..75 and the region's own state. */
    private static int checkRegion(MemoryWindow mw, Region mr, long addr, long length, int access) {
        if (mr == null || !mr.isValid() || mr.pdHandle() != mw.pdHandle()) {
            return Errno.EINVAL;
        }
        int mrAccess = mr.access();
        if ((mrAccess & Access.MW_BIND) == 0) {
            return Errno.EINVAL; // C10-73
        }
        if ((access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && (mrAccess & Access.LOCAL_WRITE) == 0) {
            return Errno.EINVAL; // C10-74
        }
        // C10-75: the window lies inside the region (a zero-based one too: addr is where it starts)
        long mrStart = mr.start();
        long mrLength = mr.length();
        long offset = addr - mrStart;
        if (Long.compareUnsigned(offset, mrLength) > 0 || Long.compareUnsigned(length, mrLength - offset) > 0) {
            return Errno.EINVAL;
        }
        return 0;
    }

    /**
     * LOCAL_INV, or a peer's SEND_WITH_INV, of {@code rkey} from a QP in {@code pdHandle}
     * (rxe_invalidate_mw): EINVAL for a type 1 window (o10-37.2.26), a window that is not bound,
     * another key value or another PD; else the window is FREE again.
     */
    public static int invalidate(MemoryWindow mw, int pdHandle, int rkey) {
        synchronized (mw) {
            if (mw.key() != rkey || mw.type() == MemoryWindow.TYPE_1 || mw.state() != MemoryWindow.VALID
                || mw.pdHandle() != pdHandle) {
                return Errno.EINVAL;
            }
            MemoryWindow.Binding old = mw.binding();
            mw.setBinding(null);
            mw.setState(MemoryWindow.FREE);
            release(old);
            return 0;
        }
    }

    /** ibv_dealloc_mw: unbinds and frees the key. EINVAL if already deallocated. */
    public static void dealloc(MemoryWindow mw) {
        synchronized (mw) {
            if (mw.state() == MemoryWindow.INVALID) {
                throw new MemoryException(Errno.EINVAL, "memory window already deallocated");
            }
            MemoryWindow.Binding old = mw.binding();
            mw.setBinding(null);
            mw.setState(MemoryWindow.INVALID);
            release(old);
            mw.table().free(mw.key());
        }
    }

    /** Releases a binding made stale: waits for the accesses still running through it, then frees its hold on the region. */
    private static void release(MemoryWindow.Binding b) {
        if (b != null) {
            b.inFlight.awaitQuiet();
            synchronized (b.mr) {
                b.mr.keyHolds--;
            }
        }
    }
}
