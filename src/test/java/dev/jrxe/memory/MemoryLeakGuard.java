package dev.jrxe.memory;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Registered for every test class (META-INF/services, autodetection on): a class that leaves pinned
 * ranges or jrxe mappings behind fails. The pin ledger and the mapping registry are process-wide,
 * so a leak would otherwise surface later as a wrong pin count in whichever class happens to run
 * next on a recycled address, far from its cause.
 */
public final class MemoryLeakGuard implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(MemoryLeakGuard.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NS).put("before", new int[]{PinLedger.rangeCount(), NativeMemory.mappingCount()});
    }

    @Override
    public void afterAll(ExtensionContext context) {
        int[] before = context.getStore(NS).get("before", int[].class);
        int pins = PinLedger.rangeCount();
        int maps = NativeMemory.mappingCount();
        if (pins > before[0] || maps > before[1]) {
            throw new AssertionError(context.getDisplayName() + " leaked: pinned ranges " + before[0] + " -> "
                    + pins + ", mappings " + before[1] + " -> " + maps);
        }
    }
}
