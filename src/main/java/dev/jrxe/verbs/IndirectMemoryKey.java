package dev.jrxe.verbs;

import dev.jrxe.memory.IndirectKey;
import dev.jrxe.memory.IndirectKeys;
import dev.jrxe.memory.MemoryException;

/**
 * An indirect memory key ({@code mlx5dv_mkey}): a zero-based lkey and rkey whose bytes are a list
 * of SGEs or an interleaving of regions, configured by a work request on an RC send queue
 * ({@link MkeyEx}). Created free; usable once configured, by any work request posted after the
 * configuring one on that QP; reconfigured only after LOCAL_INV; invalidated by a peer's
 * SEND_WITH_INV when created with {@link #REMOTE_INVALIDATE}. Entries may be pinned, explicit-ODP
 * or implicit-ODP regions of the key's PD, mixed. While configured, its regions cannot be
 * deregistered or re-registered (EBUSY).
 *
 * <pre>{@code
 * IndirectMemoryKey mkey = pd.createIndirectKey(IndirectMemoryKey.INDIRECT, 4);
 * // configure it in an extended-API batch of an RC QP (see MkeyEx), for example
 * mx.mrList(mkey, Access.LOCAL_WRITE | Access.REMOTE_READ, new Sge(a.addr(), 4096, a.lkey()),
 *           new Sge(b.addr(), 4096, b.lkey()));
 * // then the peer READs [0, mkey.length()) with mkey.rkey(): a's 4 KiB, then b's
 * }</pre>
 *
 * <p>Thread safe: the accessors may be read from any thread; configuring and invalidating run
 * in work-request order on the engine; {@link #close} may run from any thread.
 */
public final class IndirectMemoryKey implements AutoCloseable {
    /** {@code MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT} of {@code mlx5dv_mkey_init_attr.create_flags}: required. */
    public static final int INDIRECT = IndirectKey.INDIRECT;
    /** {@code MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE}: not supported (EOPNOTSUPP). */
    public static final int BLOCK_SIGNATURE = IndirectKey.BLOCK_SIGNATURE;
    /** {@code MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO}: not supported (EOPNOTSUPP). */
    public static final int CRYPTO = IndirectKey.CRYPTO;
    /** {@code MLX5DV_MKEY_INIT_ATTR_FLAGS_UPDATE_TAG}: not supported (EOPNOTSUPP). */
    public static final int UPDATE_TAG = IndirectKey.UPDATE_TAG;
    /** {@code MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE}: a peer's SEND_WITH_INV may free the key. */
    public static final int REMOTE_INVALIDATE = IndirectKey.REMOTE_INVALIDATE;

    private final ProtectionDomain pd;
    private final IndirectKey key;
    private boolean closed;

    private IndirectMemoryKey(ProtectionDomain pd, IndirectKey key) {
        this.pd = pd;
        this.key = key;
    }

    static IndirectMemoryKey create(ProtectionDomain pd, int flags, int maxEntries) {
        try {
            return new IndirectMemoryKey(pd, IndirectKeys.create(pd.device().keys(), pd.handle(), flags, maxEntries));
        } catch (MemoryException e) {
            throw new VerbsException(e.errno(), e.getMessage());
        }
    }

    /** {@return the protection domain the key was created in (its entries must be regions of it)} */
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@return {@code mkey->lkey}: the key for local SGEs (the same value as the rkey)} */
    public int lkey() {
        return key.lkey();
    }

    /** {@return {@code mkey->rkey}: the key peers use, at zero-based addresses {@code [0, length())}} */
    public int rkey() {
        return key.rkey();
    }

    /** {@return the entries it takes: the requested number rounded up to a multiple of 4 (as mlx5dv writes back)} */
    public int maxEntries() {
        return key.maxEntries();
    }

    /** {@return whether a layout is configured now (false while free: created, or after LOCAL_INV)} */
    public boolean isConfigured() {
        return key.isConfigured();
    }

    /** {@return bytes of the configured layout (0 when free)} */
    public long length() {
        return key.length();
    }

    IndirectKey key() {
        return key;
    }

    /**
     * {@code mlx5dv_destroy_mkey}: the key stops working and its regions are released (holding the
     * engine: no access is half done when it returns). Twice is harmless.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        pd.device().withEveryEngine(() -> {
            if (!key.destroyed()) {
                IndirectKeys.destroy(key);
            }
        });
    }
}
