package dev.jrxe.transport;

/**
 * Partition keys: 15 bits of partition and a membership bit (0x8000 = full). Two
 * match when their partitions are equal and not the invalid partition 0, and at least one of them
 * is a full member (two limited members may not talk). rxe's pkey_match.
 */
public final class PKeys {
    /** The default partition, full membership: the one entry of a jrxe port's P_Key table. */
    public static final int DEFAULT = 0xFFFF;

    private PKeys() {
    }

    public static boolean match(int a, int b) {
        int pa = a & 0x7FFF;
        return pa != 0 && pa == (b & 0x7FFF) && ((a | b) & 0x8000) != 0;
    }
}
