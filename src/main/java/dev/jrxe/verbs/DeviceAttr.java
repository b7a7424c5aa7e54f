package dev.jrxe.verbs;

/**
 * Device attributes ({@code struct ibv_device_attr_ex}, with the {@code struct ibv_device_attr}
 * it embeds) as {@link Device#query()} ({@code ibv_query_device_ex}) fills them: Linux rxe's
 * values where rxe has them, and the limits jrxe enforces (exceeding a {@code max_*} count fails
 * creation with ENOMEM, a size or SGE limit with EINVAL). Fields hold the values unsigned C fields
 * would, in Java's signed types.
 *
 * <p>Not thread safe: a plain holder; every {@code query()} returns a new one, which the caller
 * owns. Writing to it changes nothing on the device.
 *
 * <pre>{@code
 * DeviceAttr a = dev.query();
 * QpCap cap = new QpCap(Math.min(4096, a.maxQpWr), 1024, 1, 1, a.maxInlineData);
 * boolean flush = (a.deviceCapFlags & DeviceAttr.CAP_FLUSH_GLOBAL) != 0;
 * }</pre>
 */
public final class DeviceAttr {
    /**
     * {@code IBV_DEVICE_BAD_PKEY_CNTR}: the port has a bad P_Key counter
     * ({@link PortAttr#badPkeyCntr}); a {@code device_cap_flags} bit.
     */
    public static final int CAP_BAD_PKEY_CNTR = 1 << 1;
    /** {@code IBV_DEVICE_BAD_QKEY_CNTR}: the port has a Q_Key violation counter ({@link PortAttr#qkeyViolCntr}). */
    public static final int CAP_BAD_QKEY_CNTR = 1 << 2;
    /** {@code IBV_DEVICE_AUTO_PATH_MIG}: automatic path migration (reported as rxe does). */
    public static final int CAP_AUTO_PATH_MIG = 1 << 4;
    /** {@code IBV_DEVICE_CHANGE_PHY_PORT}: a QP's port may change in SQD (reported as rxe does). */
    public static final int CAP_CHANGE_PHY_PORT = 1 << 5;
    /** {@code IBV_DEVICE_UD_AV_PORT_ENFORCE}: a UD address vector's port must be the QP's. */
    public static final int CAP_UD_AV_PORT_ENFORCE = 1 << 6;
    /** {@code IBV_DEVICE_PORT_ACTIVE_EVENT}: the device reports {@code IBV_EVENT_PORT_ACTIVE}. */
    public static final int CAP_PORT_ACTIVE_EVENT = 1 << 10;
    /** {@code IBV_DEVICE_SYS_IMAGE_GUID}: {@link #sysImageGuid} is set. */
    public static final int CAP_SYS_IMAGE_GUID = 1 << 11;
    /** {@code IBV_DEVICE_RC_RNR_NAK_GEN}: an RC responder without a receive WQE sends an RNR NAK. */
    public static final int CAP_RC_RNR_NAK_GEN = 1 << 12;
    /** {@code IBV_DEVICE_SRQ_RESIZE}: {@code ibv_modify_srq} can change max_wr (jrxe: not set). */
    public static final int CAP_SRQ_RESIZE = 1 << 13;
    /** {@code IBV_DEVICE_MEM_WINDOW}: memory windows ({@code ibv_alloc_mw}). */
    public static final int CAP_MEM_WINDOW = 1 << 17;
    /** {@code IBV_DEVICE_MEM_MGT_EXTENSIONS}: IBTA memory management extensions (jrxe: not set). */
    public static final int CAP_MEM_MGT_EXTENSIONS = 1 << 21;
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2B}: type 2B memory windows (bound by a BIND_MW work request). */
    public static final int CAP_MEM_WINDOW_TYPE_2B = 1 << 24;
    /** {@code IBV_DEVICE_FLUSH_GLOBAL}: IBTA 1.5 FLUSH to global visibility (a {@code device_cap_flags_ex} bit). */
    public static final long CAP_FLUSH_GLOBAL = 1L << 38;
    /** {@code IBV_DEVICE_FLUSH_PERSISTENT}: IBTA 1.5 FLUSH to persistence. */
    public static final long CAP_FLUSH_PERSISTENT = 1L << 39;
    /** {@code IBV_DEVICE_ATOMIC_WRITE}: IBTA 1.5 ATOMIC_WRITE (an 8-byte atomic store). */
    public static final long CAP_ATOMIC_WRITE = 1L << 40;

    /** {@code IBV_ATOMIC_NONE}: no atomic operations (an {@link #atomicCap} value). */
    public static final int ATOMIC_NONE = 0;
    /** {@code IBV_ATOMIC_HCA}: atomics are atomic among this device's accesses (jrxe's value). */
    public static final int ATOMIC_HCA = 1;
    /** {@code IBV_ATOMIC_GLOB}: atomics are atomic against CPU accesses too. */
    public static final int ATOMIC_GLOB = 2;

    /** {@code fw_ver}: firmware version string ({@code "0.0.0"}: jrxe has no firmware). */
    public String fwVer = "0.0.0";
    /**
     * {@code node_guid}: EUI-64 of the device's made-up MAC 02:00:a:b:c:d (from its IPv4 address),
     * most significant byte first.
     */
    public long nodeGuid;
    /** {@code sys_image_guid}: the node GUID again, as rxe reports it. */
    public long sysImageGuid;
    /** {@code max_mr_size}: largest region in bytes, unsigned ({@code -1}: 2^64 - 1, rxe's value). */
    public long maxMrSize = -1L;
    /** {@code page_size_cap}: supported page sizes as a bit mask (rxe's 0xfffff000: 4 KiB and up). */
    public long pageSizeCap = 0xfffff000L;
    /** {@code vendor_id}: rxe's 0xffffff. */
    public int vendorId = 0xffffff;
    /** {@code vendor_part_id}: 0. */
    public int vendorPartId;
    /** {@code hw_ver}: 0. */
    public int hwVer;
    /** {@code max_qp}: most queue pairs at once (QP1 included); creating more is ENOMEM. */
    public int maxQp;
    /**
     * {@code max_qp_wr}: most work requests in one send or receive queue ({@code QpCap.maxSendWr},
     * {@code maxRecvWr}).
     */
    public int maxQpWr;
    /**
     * {@code device_cap_flags_ex}: the {@code CAP_*} bits; the low 32 bits are the classic
     * {@code device_cap_flags}.
     */
    public long deviceCapFlags;
    /**
     * {@code completion_timestamp_mask}: the bits a completion timestamp
     * ({@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}) has, 0 for none; jrxe's are all 64 bits, in
     * nanoseconds of the device's clock.
     */
    public long completionTimestampMask;
    /** {@code hca_core_clock}: the timestamp clock's frequency in kHz (jrxe: 1,000,000, one tick a nanosecond). */
    public long hcaCoreClock;
    /** {@code max_sge}: most scatter/gather entries of a send or receive work request. */
    public int maxSge;
    /** {@code max_sge_rd}: most SGEs of an RDMA READ work request. */
    public int maxSgeRd;
    /** {@code max_cq}: most completion queues at once; creating more is ENOMEM. */
    public int maxCq;
    /** {@code max_cqe}: most entries of one completion queue (more is EINVAL). */
    public int maxCqe;
    /** {@code max_mr}: most memory keys at once; regions and windows share this table. */
    public int maxMr;
    /** {@code max_pd}: most protection domains at once; allocating more is ENOMEM. */
    public int maxPd;
    /**
     * {@code max_qp_rd_atom}: most outstanding RDMA READ / atomic requests a QP may target
     * ({@code max_dest_rd_atomic}), 128.
     */
    public int maxQpRdAtom;
    /** {@code max_ee_rd_atom}: 0 (no end-to-end contexts). */
    public int maxEeRdAtom;
    /** {@code max_res_rd_atom}: responder resources for incoming READ / atomic requests across the device. */
    public int maxResRdAtom;
    /**
     * {@code max_qp_init_rd_atom}: most outstanding READ / atomic requests a QP may initiate
     * ({@code max_rd_atomic}), 128.
     */
    public int maxQpInitRdAtom;
    /** {@code max_ee_init_rd_atom}: 0 (no end-to-end contexts). */
    public int maxEeInitRdAtom;
    /** {@code atomic_cap}: {@link #ATOMIC_NONE}, {@link #ATOMIC_HCA} or {@link #ATOMIC_GLOB}. */
    public int atomicCap;
    /** {@code max_ee}: 0 (no RD end-to-end contexts). */
    public int maxEe;
    /** {@code max_rdd}: 0 (no RD domains). */
    public int maxRdd;
    /** {@code max_mw}: most memory windows; they share the key table with regions ({@link #maxMr}). */
    public int maxMw;
    /** {@code max_raw_ipv6_qp}: 0. */
    public int maxRawIpv6Qp;
    /** {@code max_raw_ethy_qp}: 0. */
    public int maxRawEthyQp;
    /** {@code max_mcast_grp}: most multicast groups the device's QPs attach to. */
    public int maxMcastGrp;
    /** {@code max_mcast_qp_attach}: most QPs attached to one multicast group. */
    public int maxMcastQpAttach;
    /** {@code max_total_mcast_qp_attach}: most multicast attachments in all. */
    public int maxTotalMcastQpAttach;
    /** {@code max_ah}: most address handles at once; creating more is ENOMEM. */
    public int maxAh;
    /** {@code max_fmr}: 0 (no fast memory regions). */
    public int maxFmr;
    /** {@code max_srq}: most shared receive queues at once; creating more is ENOMEM. */
    public int maxSrq;
    /** {@code max_srq_wr}: most work requests in one SRQ. */
    public int maxSrqWr;
    /** {@code max_srq_sge}: most SGEs of an SRQ receive work request. */
    public int maxSrqSge;
    /** {@code max_pkeys}: P_Key table size (1: the default P_Key only). */
    public int maxPkeys;
    /** {@code local_ca_ack_delay}: IBTA encoded, 4.096 µs × 2^value (rxe's 15). */
    public int localCaAckDelay;
    /** {@code phys_port_cnt}: ports; a jrxe device has one, port 1. */
    public int physPortCnt = 1;
    /** {@code max_inline_data}: most bytes of an {@code IBV_SEND_INLINE} request ({@code QpCap.maxInlineData}). */
    public int maxInlineData;
    /** {@code num_comp_vectors}: completion vectors; {@code compVector} of a CQ must be below it. */
    public int numCompVectors;
    /** {@code odp_caps.general_caps}: {@code IBV_ODP_SUPPORT} (1) and {@code IBV_ODP_SUPPORT_IMPLICIT} (2). */
    public int odpGeneralCaps;
    /**
     * {@code odp_caps.per_transport_caps.rc_odp_caps}: RC operations that work on on-demand-paging
     * memory, {@code IBV_ODP_SUPPORT_SEND} (1), {@code _RECV} (2), {@code _WRITE} (4), {@code _READ}
     * (8), {@code _ATOMIC} (16), {@code _SRQ_RECV} (32), {@code _FLUSH} (64), {@code _ATOMIC_WRITE} (128).
     */
    public int odpRcCaps;
    /** {@code uc_odp_caps}: UC operations that work on ODP memory (bits as {@link #odpRcCaps}). */
    public int odpUcCaps;
    /** {@code ud_odp_caps}: UD operations that work on ODP memory (bits as {@link #odpRcCaps}). */
    public int odpUdCaps;
    /** {@code xrc_odp_caps}: 0 (no XRC). */
    public int odpXrcCaps;

    /**
     * Creates a holder with only the fixed values set ({@code fw_ver}, {@code max_mr_size},
     * {@code page_size_cap}, {@code vendor_id}, {@code phys_port_cnt}), the rest 0;
     * {@link Device#query()} returns a filled one.
     */
    public DeviceAttr() {
    }
}
