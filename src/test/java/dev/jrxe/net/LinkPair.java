package dev.jrxe.net;

import java.io.IOException;
import java.net.BindException;
import java.util.function.UnaryOperator;

/**
 * Two links, A on 127.0.0.2 and B on 127.0.0.3, on the same (free) UDP port: A binds any free
 * port, B takes the same number on its own address.
 */
final class LinkPair implements AutoCloseable {
    static final String A = "127.0.0.2";
    static final String B = "127.0.0.3";

    final Link a;
    final Link b;

    private LinkPair(Link a, Link b) {
        this.a = a;
        this.b = b;
    }

    static LinkPair open(LinkMode mode, DatagramSealer sealer) throws IOException {
        return open(mode, sealer, c -> c, c -> c);
    }

    static LinkPair open(LinkMode mode, DatagramSealer sealer, UnaryOperator<LinkConfig.Builder> aConfig,
                         UnaryOperator<LinkConfig.Builder> bConfig) throws IOException {
        BindException last = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            Link a = Links.open(aConfig.apply(LinkConfig.builder(A).port(0).mode(mode)).build(), sealer);
            try {
                Link b = Links.open(bConfig.apply(LinkConfig.builder(B).port(a.localPort()).mode(mode)).build(), sealer);
                return new LinkPair(a, b);
            } catch (BindException e) {
                last = e;
                a.close();
            }
        }
        throw last;
    }

    int addrA() {
        return a.localAddress();
    }

    int addrB() {
        return b.localAddress();
    }

    @Override
    public void close() {
        try {
            a.close();
        } finally {
            b.close();
        }
    }
}
