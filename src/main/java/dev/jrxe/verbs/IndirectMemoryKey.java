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
 */
public final class IndirectMemoryKey implements AutoCloseable {
    /** mlx5dv_mkey_init_attr create_flags. */
    public static final int INDIRECT = IndirectKey.INDIRECT;
    public static final int BLOCK_SIGNATURE = IndirectKey.BLOCK_SIGNATURE;
    public static final int CRYPTO = IndirectKey.CRYPTO;
    public static final int UPDATE_TAG = IndirectKey.UPDATE_TAG;
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

    public ProtectionDomain pd() {
        return pd;
    }

    public int lkey() {
        return key.lkey();
    }

    public int rkey() {
        return key.rkey();
    }

    /** The entries it takes: the requested number rounded up to a multiple of 4 (as mlx5dv writes back). */
    public int maxEntries() {
        return key.maxEntries();
    }

    /** Whether a layout is configured now. */
    public boolean isConfigured() {
        return key.isConfigured();
    }

    /** Bytes of the configured layout (0 when free). */
    public long length() {
        return key.length();
    }

    IndirectKey key() {
        return key;
    }

    /** {@code mlx5dv_destroy_mkey} (holding the engine: no access is half done when it returns). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        pd.device().engine().withEngine(() -> {
            if (!key.destroyed()) {
                IndirectKeys.destroy(key);
            }
        });
    }
}
