package dev.jrxe.verbs;

/**
 * Device attributes ({@code struct ibv_device_attr_ex}) in Linux rxe's shape, holding the limits
 * jrxe enforces.
 */
public final class DeviceAttr {
    /** device_cap_flags bits (rdma-core {@code enum ibv_device_cap_flags}). */
    public static final int CAP_BAD_PKEY_CNTR = 1 << 1;
    public static final int CAP_BAD_QKEY_CNTR = 1 << 2;
    public static final int CAP_AUTO_PATH_MIG = 1 << 4;
    public static final int CAP_CHANGE_PHY_PORT = 1 << 5;
    public static final int CAP_UD_AV_PORT_ENFORCE = 1 << 6;
    public static final int CAP_PORT_ACTIVE_EVENT = 1 << 10;
    public static final int CAP_SYS_IMAGE_GUID = 1 << 11;
    public static final int CAP_RC_RNR_NAK_GEN = 1 << 12;
    public static final int CAP_SRQ_RESIZE = 1 << 13;
    public static final int CAP_MEM_WINDOW = 1 << 17;
    public static final int CAP_MEM_MGT_EXTENSIONS = 1 << 21;
    public static final int CAP_MEM_WINDOW_TYPE_2B = 1 << 24;
    /** device_cap_flags_ex bits of IBTA 1.5's operations (rdma-core {@code IBV_DEVICE_*}). */
    public static final long CAP_FLUSH_GLOBAL = 1L << 38;
    public static final long CAP_FLUSH_PERSISTENT = 1L << 39;
    public static final long CAP_ATOMIC_WRITE = 1L << 40;

    /** atomic_cap values. */
    public static final int ATOMIC_NONE = 0;
    public static final int ATOMIC_HCA = 1;
    public static final int ATOMIC_GLOB = 2;

    public String fwVer = "0.0.0";
    public long nodeGuid;
    public long sysImageGuid;
    public long maxMrSize = -1L;
    public long pageSizeCap = 0xfffff000L;
    public int vendorId = 0xffffff;
    public int vendorPartId;
    public int hwVer;
    public int maxQp;
    public int maxQpWr;
    public long deviceCapFlags;
    /**
     * Completion timestamps ({@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}): the bits a timestamp
     * has (0: none) and the clock in kHz. jrxe's are nanoseconds of the device's clock.
     */
    public long completionTimestampMask;
    public long hcaCoreClock;
    public int maxSge;
    public int maxSgeRd;
    public int maxCq;
    public int maxCqe;
    public int maxMr;
    public int maxPd;
    public int maxQpRdAtom;
    public int maxEeRdAtom;
    public int maxResRdAtom;
    public int maxQpInitRdAtom;
    public int maxEeInitRdAtom;
    public int atomicCap;
    public int maxEe;
    public int maxRdd;
    public int maxMw;
    public int maxRawIpv6Qp;
    public int maxRawEthyQp;
    public int maxMcastGrp;
    public int maxMcastQpAttach;
    public int maxTotalMcastQpAttach;
    public int maxAh;
    public int maxFmr;
    public int maxSrq;
    public int maxSrqWr;
    public int maxSrqSge;
    public int maxPkeys;
    public int localCaAckDelay;
    public int physPortCnt = 1;
    public int maxInlineData;
    public int numCompVectors;
    /** ODP: general caps (ODP_SUPPORT 1, IMPLICIT 2) and per-transport caps. */
    public int odpGeneralCaps;
    public int odpRcCaps;
    public int odpUcCaps;
    public int odpUdCaps;
    public int odpXrcCaps;
}
