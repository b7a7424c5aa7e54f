package dev.jrxe.verbs;

/** {@code struct efadv_device_attr}: what a device's SRD QPs can do ({@link SrdDv#queryDevice}). */
public final class SrdDeviceAttr {
    public int maxSqWr;
    public int maxRqWr;
    public int maxSqSge;
    public int maxRqSge;
    /** Inline bytes per send work request. */
    public int inlineBufSize;
    /** {@code SrdDv.CAPS_*} bits. */
    public int deviceCaps;
    /** The largest RDMA READ or WRITE of one work request. */
    public int maxRdmaSize;
}
