package dev.jrxe.verbs;

/** An address handle ({@code ibv_ah}) for datagram QPs. */
public final class AddressHandle implements AutoCloseable {
    private final ProtectionDomain pd;
    private final AhAttr attr;

    AddressHandle(ProtectionDomain pd, AhAttr attr) {
        if (attr.dgid == null || !attr.dgid.isIpv4()) {
            throw VerbsException.einval("jrxe address handles need an IPv4-mapped destination GID");
        }
        this.pd = pd;
        this.attr = attr.copy();
    }

    public ProtectionDomain pd() {
        return pd;
    }

    public AhAttr attr() {
        return attr.copy();
    }

    /** Destination IPv4 address, big-endian int. */
    public int destAddr() {
        return attr.dgid.ipv4();
    }

    @Override
    public void close() {
    }
}
