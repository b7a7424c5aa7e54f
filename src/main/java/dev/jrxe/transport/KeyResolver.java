package dev.jrxe.transport;

import dev.jrxe.memory.MemoryKey;

/** Finds the memory key (MR, MW, indirect key) an lkey or rkey names; null when there is none. */
@FunctionalInterface
public interface KeyResolver {
    MemoryKey lookup(int key);
}
