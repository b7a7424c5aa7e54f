package dev.jrxe.verbs;

/** Scatter/gather element ({@code struct ibv_sge}): address, length, local key. */
public final class Sge {
    public long addr;
    public int length;
    public int lkey;

    public Sge() {
    }

    public Sge(long addr, int length, int lkey) {
        set(addr, length, lkey);
    }

    public Sge set(long addr, int length, int lkey) {
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }
}
