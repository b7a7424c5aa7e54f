package dev.jrxe.ib;

/** Work-completion flags ({@code enum ibv_wc_flags}). */
public final class WcFlags {
    public static final int GRH = 1;
    public static final int WITH_IMM = 1 << 1;
    public static final int IP_CSUM_OK = 1 << 2;
    public static final int WITH_INV = 1 << 3;
    /**
     * jrxe SRD: a WRITE_WITH_IMM that consumed no receive WQE (the QP was created with
     * {@code SrdDv.UNSOLICITED_WRITE_RECV}); what {@code efadv_wc_is_unsolicited} reports. Not an
     * ibv_wc_flags bit: chosen above them.
     */
    public static final int UNSOLICITED = 1 << 16;

    private WcFlags() {
    }
}
