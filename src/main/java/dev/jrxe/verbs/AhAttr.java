package dev.jrxe.verbs;

/** Address vector ({@code struct ibv_ah_attr} with its GRH) as RoCEv2 uses it. */
public final class AhAttr {
    public Gid dgid;
    public int sgidIndex;
    public int hopLimit = 64;
    public int trafficClass;
    public int flowLabel;
    public boolean isGlobal = true;
    public int dlid;
    public int sl;
    public int srcPathBits;
    public int portNum = 1;

    public AhAttr() {
    }

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
