package dev.jrxe.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One send work-queue entry: the work request as posted (copied in at post time, so the caller may
 * reuse its request object) plus the requester's progress on it. Preallocated per QP slot.
 */
public final class SendWqe {
    // ---- the work request
    public long wrId;
    public int opcode;
    public int sendFlags;
    public int numSge;
    public final long[] sgeAddr;
    public final int[] sgeLength;
    public final int[] sgeLkey;
    public int immData;
    public long remoteAddr;
    public int rkey;
    public long compareAdd;
    public long swap;
    public int invalidateRkey;
    /** BIND_MW: the window's current rkey, the region's lkey, the window's length and access
     *  ({@link #remoteAddr} is where it starts, {@link #rkey} the rkey it gets). */
    public int bindMwKey;
    public int bindMrKey;
    public long bindLength;
    public int bindAccess;
    /**
     * UMR (DRIVER1): the indirect key to configure, the access it gets and its layout; setters
     * of the configure-with-setters form still owed (must be 0 when the batch completes).
     */
    public int umrKey;
    public int umrAccess;
    public dev.jrxe.memory.IndirectKeys.Spec umrSpec;
    public int umrSettersLeft;
    /** FLUSH: placement type (1 GLOBAL, 2 PERSISTENT) and selectivity level (0 RANGE, 1 MR). */
    public int flushType;
    public int flushLevel;
    /** UD: destination address (IPv4, big-endian int), QPN and Q_Key. */
    public int udDestAddr;
    public int udDestQpn;
    public int udQkey;
    /** Inline payload copied at post time (null unless the QP allows inline data). */
    public final MemorySegment inline;
    public int inlineLength;
    /** The payload was copied into {@link #inline} at post time (IBV_SEND_INLINE). */
    public boolean inlined;
    /** Total message length in bytes. */
    public long length;

    // ---- requester / completer state
    public int state;
    /** Completion status decided before the wire (a local error), else SUCCESS. */
    public int status;
    /** Extended PSN (see {@link Qp#psn}) of the first packet of this message. */
    public long firstPsn;
    /** Extended PSN of the last packet (READ: of the last expected response). */
    public long lastPsn;
    /** Bytes already put on the wire in the current pass (READ: bytes received). */
    public long offset;
    /** Packets the message occupies (READ: responses). */
    public int packets;

    public static final int POSTED = 0;
    public static final int PROCESSING = 1;
    public static final int PENDING = 2;
    public static final int DONE = 3;

    SendWqe(int maxSge, int maxInline, Arena arena) {
        sgeAddr = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeLkey = new int[maxSge];
        inline = maxInline > 0 ? arena.allocate(maxInline, 8) : null;
    }

    /** True when the WR asks for a completion or must report one (errors always do). */
    public boolean signaled(boolean sqSigAll) {
        return sqSigAll || (sendFlags & dev.jrxe.ib.SendFlags.SIGNALED) != 0;
    }
}
