package dev.jrxe.verbs;

/**
 * An address vector ({@code struct ibv_ah_attr} with its {@code struct ibv_global_route}) as
 * RoCEv2 uses it: for {@link ProtectionDomain#createAh(AhAttr)} ({@code ibv_create_ah}) and as
 * an RC / UC QP's {@link QpAttr#ahAttr} ({@code IBV_QP_AV}). RoCEv2 addresses by GID, so the
 * vector must be global with an IPv4-mapped destination GID and a valid source GID index (else
 * EINVAL); the LID fields are kept but unused.
 *
 * <p>Not thread safe: a plain holder for one thread; {@code createAh} and {@code modify} copy it,
 * so it may be changed and reused once they return.
 *
 * <pre>{@code
 * AhAttr a = new AhAttr(Gid.ofIpv4(peerAddr), Device.IPV4_GID_INDEX);
 * AddressHandle ah = pd.createAh(a);
 * }</pre>
 */
public final class AhAttr {
    /** {@code grh.dgid}: the destination GID, IPv4-mapped (a unicast address or an IPv4 multicast group). */
    public Gid dgid;
    /** {@code grh.sgid_index}: the source GID, {@link Device#IPV4_GID_INDEX}, the device's only valid one. */
    public int sgidIndex;
    /**
     * {@code grh.hop_limit}: 0..255 ({@code ibv_create_ah}: else EINVAL), default 64; kept, not
     * applied to the IP TTL.
     */
    public int hopLimit = 64;
    /** {@code grh.traffic_class}: 0..255 ({@code ibv_create_ah}: else EINVAL); kept, not applied to the IP TOS. */
    public int trafficClass;
    /**
     * {@code grh.flow_label}: 20 bits ({@code ibv_create_ah}: else EINVAL). An RC / UC QP's UDP
     * source port derives from it, as rxe's does (0: from both QP numbers).
     */
    public int flowLabel;
    /** {@code is_global}: a GRH is present; RoCEv2 needs it (false: EINVAL). Default true. */
    public boolean isGlobal = true;
    /** {@code dlid}: kept, unused (RoCE has no LIDs). */
    public int dlid;
    /** {@code sl}: service level; kept, unused. */
    public int sl;
    /** {@code src_path_bits}: kept, unused. */
    public int srcPathBits;
    /** {@code port_num}: 1, the device's only port ({@code ibv_create_ah}: else EINVAL). */
    public int portNum = 1;

    /** An empty vector: global, hop limit 64, port 1, no destination GID yet. */
    public AhAttr() {
    }

    /**
     * A global vector to {@code dgid} from GID index {@code sgidIndex}, hop limit 64, port 1.
     *
     * @param dgid      the destination GID, IPv4-mapped ({@link Gid#ofIpv4(int)})
     * @param sgidIndex the source GID index, {@link Device#IPV4_GID_INDEX}
     */
    public AhAttr(Gid dgid, int sgidIndex) {
        this.dgid = dgid;
        this.sgidIndex = sgidIndex;
    }

    AhAttr copy() {
        AhAttr a = new AhAttr(dgid, sgidIndex);
        a.hopLimit = hopLimit;
        a.trafficClass = trafficClass;
        a.flowLabel = flowLabel;
        a.isGlobal = isGlobal;
        a.dlid = dlid;
        a.sl = sl;
        a.srcPathBits = srcPathBits;
        a.portNum = portNum;
        return a;
    }
}
