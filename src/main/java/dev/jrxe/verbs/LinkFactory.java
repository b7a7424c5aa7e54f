package dev.jrxe.verbs;

import dev.jrxe.net.FaultConfig;
import dev.jrxe.net.Link;
import dev.jrxe.net.LinkConfig;
import dev.jrxe.net.LinkMode;
import dev.jrxe.net.Links;
import dev.jrxe.ib.Errno;
import dev.jrxe.wire.IcrcSealer;
import java.io.IOException;

/** Opens the link a device's configuration asks for, with the ICRC sealer on it. */
final class LinkFactory {
    private LinkFactory() {
    }

    /** The device's links, one per engine ({@link DeviceConfig#engines}). */
    static Link[] openAll(DeviceConfig c) {
        if (c.engines == 1) {
            return new Link[] {open(c)};
        }
        if (c.pcap != null) {
            throw VerbsException.einval("a capture file needs a device of one engine (engines " + c.engines + ")");
        }
        if (c.detached) {
            Link[] links = new Link[c.engines];
            for (int i = 0; i < links.length; i++) {
                links[i] = open(c);
            }
            return links;
        }
        LinkConfig config = builder(c).engines(c.engines).build();
        if (Links.resolve(config.mode()) == LinkMode.CHANNEL) {
            throw VerbsException.einval("engines " + c.engines + " need a native link (MMSG or GSO), not CHANNEL");
        }
        try {
            return Links.openGroup(config, IcrcSealer::new);
        } catch (IOException e) {
            throw failure(c, e);
        }
    }

    static Link open(DeviceConfig c) {
        LinkConfig.Builder b = builder(c);
        if (c.detached) {
            return Links.detached(b.build());
        }
        try {
            return Links.open(b.build(), new IcrcSealer());
        } catch (IOException e) {
            throw failure(c, e);
        }
    }

    private static LinkConfig.Builder builder(DeviceConfig c) {
        LinkConfig.Builder b = LinkConfig.builder(c.address).port(c.udpPort);
        if (c.linkBatch > 0) {
            b.batch(c.linkBatch);
        }
        if (c.maxDatagram > 0) {
            b.maxDatagram(c.maxDatagram);
        }
        if (c.sendBufferBytes > 0) {
            b.sendBufferBytes(c.sendBufferBytes);
        }
        if (c.receiveBufferBytes > 0) {
            b.receiveBufferBytes(c.receiveBufferBytes);
        }
        LinkMode mode = c.linkMode == null ? LinkMode.AUTO : LinkMode.valueOf(c.linkMode.toUpperCase(java.util.Locale.ROOT));
        if (c.noGso && (mode == LinkMode.AUTO || mode == LinkMode.GSO)) {
            mode = Links.supported(LinkMode.MMSG) ? LinkMode.MMSG : LinkMode.CHANNEL;
        }
        if (mode != LinkMode.AUTO) {
            b.mode(mode);
        }
        if (c.pcap != null) {
            b.pcap(c.pcap);
        }
        if (c.dropRate > 0 || c.duplicateRate > 0 || c.reorderRate > 0 || c.corruptRate > 0) {
            FaultConfig f = new FaultConfig(c.dropRate, c.duplicateRate, c.reorderRate, c.reorderDepth,
                c.corruptRate, c.faultSeed);
            b.txFaults(f);
        }
        return b;
    }

    /** The errno a failure to open a link stands for, with words a user can act on. */
    private static VerbsException failure(DeviceConfig c, IOException failure) {
        if (failure instanceof java.net.BindException e) {
            // NativeLink names the errno, ChannelLink carries the JDK's words for it
            String m = String.valueOf(e.getMessage());
            String where = "cannot bind " + c.address.getHostAddress() + ":" + c.udpPort + ": ";
            if (m.contains("EADDRINUSE") || m.contains("already in use")) {
                return new VerbsException(Errno.EADDRINUSE, where + "in use");
            }
            if (m.contains("EADDRNOTAVAIL") || m.contains("assign requested")) {
                return new VerbsException(Errno.EADDRNOTAVAIL, where + "not an address of this machine");
            }
            return new VerbsException(Errno.EIO, where + m);
        }
        if (failure instanceof java.nio.file.FileSystemException e) {
            // the capture file, not the socket: say so (a NoSuchFileException's message is the bare path)
            String why = e.getReason() != null ? e.getReason() : e.getClass().getSimpleName().replace("Exception", "");
            return new VerbsException(Errno.EIO, "cannot write the capture " + e.getFile() + ": " + why);
        }
        return new VerbsException(Errno.EIO, "cannot open the link on "
            + c.address.getHostAddress() + ":" + c.udpPort + ": " + failure.getMessage());
    }
}
