package dev.jrxe.memory;

import dev.jrxe.Configuration;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Settings of one device's memory layer (one {@link KeyTable}).
 *
 * @param maxMr           most regions at once; beyond it registration fails with ENOMEM
 * @param pinLimitBytes   most bytes pinned at once (-1: only the kernel's RLIMIT_MEMLOCK)
 * @param childIdleNanos  implicit ODP children idle longer than this are reclaimed
 * @param maxLiveChildren most live children per implicit ODP region (least recently used go first)
 * @param clock           nanosecond clock for idle tracking (tests inject their own)
 */
public record MemoryConfig(int maxMr, long pinLimitBytes, long childIdleNanos, int maxLiveChildren,
                           LongSupplier clock) {
    public MemoryConfig {
        if (maxMr < 1 || maxMr > (1 << 24) - 2) {
            throw new IllegalArgumentException("maxMr out of range: " + maxMr);
        }
        if (maxLiveChildren < 1) {
            throw new IllegalArgumentException("maxLiveChildren must be positive: " + maxLiveChildren);
        }
        if (childIdleNanos < 0) {
            throw new IllegalArgumentException("childIdleNanos must not be negative: " + childIdleNanos);
        }
    }

    /** The settings from {@link Configuration} (system properties or defaults), with the system clock. */
    public static MemoryConfig fromConfiguration() {
        return new MemoryConfig(Configuration.memoryMaxMr(), Configuration.memoryPinLimitBytes(),
                TimeUnit.MILLISECONDS.toNanos(Configuration.memoryChildIdleMillis()),
                Configuration.memoryMaxLiveChildren(), System::nanoTime);
    }

    public MemoryConfig withMaxMr(int value) {
        return new MemoryConfig(value, pinLimitBytes, childIdleNanos, maxLiveChildren, clock);
    }

    public MemoryConfig withPinLimitBytes(long value) {
        return new MemoryConfig(maxMr, value, childIdleNanos, maxLiveChildren, clock);
    }

    public MemoryConfig withChildIdleNanos(long value) {
        return new MemoryConfig(maxMr, pinLimitBytes, value, maxLiveChildren, clock);
    }

    public MemoryConfig withMaxLiveChildren(int value) {
        return new MemoryConfig(maxMr, pinLimitBytes, childIdleNanos, value, clock);
    }

    public MemoryConfig withClock(LongSupplier value) {
        return new MemoryConfig(maxMr, pinLimitBytes, childIdleNanos, maxLiveChildren, value);
    }
}
