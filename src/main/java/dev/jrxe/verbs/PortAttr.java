package dev.jrxe.verbs;

/**
 * Port attributes ({@code struct ibv_port_attr}) as {@link Device#queryPort(int)}
 * ({@code ibv_query_port}) fills them for port 1, in rxe's shape: an Ethernet (RoCE) port with no
 * LIDs and no subnet manager, always active while the device is open.
 *
 * <p>Not thread safe: a plain holder; every {@code queryPort} returns a new one, which the caller
 * owns. Writing to it changes nothing on the device.
 *
 * <pre>{@code
 * PortAttr p = dev.queryPort(1);
 * int mtuBytes = Mtu.bytes(p.activeMtu);   // the largest SEND payload per packet
 * }</pre>
 */
public final class PortAttr {
    /** {@code IBV_PORT_DOWN}: a {@link #state} value. */
    public static final int PORT_DOWN = 1;
    /** {@code IBV_PORT_ACTIVE}: a {@link #state} value, what a jrxe port reports. */
    public static final int PORT_ACTIVE = 4;
    /** {@code IBV_LINK_LAYER_ETHERNET}: a {@link #linkLayer} value (RoCE). */
    public static final int LINK_LAYER_ETHERNET = 2;

    /** {@code state} ({@code enum ibv_port_state}): {@link #PORT_ACTIVE}. */
    public int state = PORT_ACTIVE;
    /** {@code max_mtu}: largest path MTU, a {@link dev.jrxe.ib.Mtu} enum ({@code IBV_MTU_4096}). */
    public int maxMtu;
    /**
     * {@code active_mtu}: the MTU enum {@link DeviceConfig#activeMtu(int)} sets (default 4096),
     * rounded down to an MTU and kept within the link's largest datagram less 80 bytes of headers
     * (rxe derives it from the netdev MTU); {@code ibv_modify_qp} caps a QP's path MTU at it.
     */
    public int activeMtu;
    /** {@code gid_tbl_len}: GID table entries (1024, as rxe; only {@link Device#IPV4_GID_INDEX} is filled). */
    public int gidTblLen;
    /** {@code port_cap_flags}: {@code IBV_PORT_CM_SUP} (0x10000), as rxe: a connection manager runs on it. */
    public int portCapFlags;
    /** {@code max_msg_sz}: largest message in bytes (2^31). */
    public long maxMsgSz;
    /** {@code bad_pkey_cntr}: P_Key violations (jrxe reports 0). */
    public int badPkeyCntr;
    /**
     * {@code qkey_viol_cntr}: Q_Key violations (jrxe reports 0; see {@code link_drop_bad_qkey} in
     * {@link Device#counters()}).
     */
    public int qkeyViolCntr;
    /** {@code pkey_tbl_len}: P_Key table entries (1: the default P_Key 0xFFFF at index 0). */
    public int pkeyTblLen;
    /** {@code lid}: 0 (RoCE has no LIDs). */
    public int lid;
    /** {@code sm_lid}: 0 (no subnet manager). */
    public int smLid;
    /** {@code lmc}: 0. */
    public int lmc;
    /** {@code max_vl_num}: IBTA encoded virtual lane count (1: VL0 only). */
    public int maxVlNum;
    /** {@code sm_sl}: 0. */
    public int smSl;
    /** {@code subnet_timeout}: 0. */
    public int subnetTimeout;
    /** {@code init_type_reply}: 0. */
    public int initTypeReply;
    /** {@code active_width}: IBTA encoded ({@code IBV_WIDTH_1X}, 1). */
    public int activeWidth;
    /** {@code active_speed}: IBTA encoded ({@code IBV_SPEED_SDR}, 1); jrxe's speed is the UDP link's. */
    public int activeSpeed;
    /** {@code phys_state}: IBTA port physical state (5: LinkUp). */
    public int physState;
    /** {@code link_layer}: {@link #LINK_LAYER_ETHERNET}. */
    public int linkLayer = LINK_LAYER_ETHERNET;
    /** {@code port_cap_flags2}: 0. */
    public int portCapFlags2;

    /**
     * Creates a holder with {@link #state} active and {@link #linkLayer} Ethernet, the rest 0;
     * {@link Device#queryPort(int)} returns a filled one.
     */
    public PortAttr() {
    }
}
