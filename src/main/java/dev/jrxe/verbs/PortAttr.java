package dev.jrxe.verbs;

/** Port attributes ({@code struct ibv_port_attr}) in rxe's shape. */
public final class PortAttr {
    public static final int PORT_DOWN = 1;
    public static final int PORT_ACTIVE = 4;
    public static final int LINK_LAYER_ETHERNET = 2;

    public int state = PORT_ACTIVE;
    /** ibv_mtu enums. */
    public int maxMtu;
    public int activeMtu;
    public int gidTblLen;
    public int portCapFlags;
    public long maxMsgSz;
    public int badPkeyCntr;
    public int qkeyViolCntr;
    public int pkeyTblLen;
    public int lid;
    public int smLid;
    public int lmc;
    public int maxVlNum;
    public int smSl;
    public int subnetTimeout;
    public int initTypeReply;
    public int activeWidth;
    public int activeSpeed;
    public int physState;
    public int linkLayer = LINK_LAYER_ETHERNET;
    public int portCapFlags2;
}
