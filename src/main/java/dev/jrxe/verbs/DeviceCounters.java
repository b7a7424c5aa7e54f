package dev.jrxe.verbs;

import dev.jrxe.net.DropReason;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.transport.TransportCounters;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A device's counters, read-only, by name: first Linux rxe's hw_counters ({@code sent_pkts},
 * {@code rcvd_pkts}, {@code duplicate_request}, {@code retry_exceeded_err}, ... as
 * {@code rdma statistic show} lists them), then jrxe's own (what the receive path refused, SRD's),
 * then the link's ({@code link_tx_packets}, {@code link_rx_packets}, {@code link_tx_calls},
 * {@code link_rx_calls}, {@code link_drop_<reason>}).
 *
 * <pre>{@code
 * long dups = dev.counters().get("duplicate_request");   // requests the responder saw twice
 * dev.counters().snapshot().forEach((name, value) -> System.out.println(name + " " + value));
 * }</pre>
 *
 * <p>A live view: every {@link #get} reads the current value. Thread-safe: any thread may read
 * while the device runs (each value is read on its own, so a snapshot is not atomic across names).
 */
public final class DeviceCounters {
    private static final List<String> LINK_NAMES = linkNames();
    private static final List<String> NAMES = allNames();

    /** One of each per engine: a device's count is their sum. */
    private final TransportCounters[] transport;
    private final LinkCounters[] link;

    DeviceCounters(TransportCounters[] transport, LinkCounters[] link) {
        this.transport = transport.clone();
        this.link = link.clone();
    }

    /** {@return every counter name, in a fixed order (rxe's first); an unmodifiable list, the same for every device} */
    public List<String> names() {
        return NAMES;
    }

    /**
     * The counter's current value.
     *
     * @param name a counter name, one of {@link #names()} (e.g. {@code "rcvd_pkts"})
     * @return the count since the device opened
     * @throws IllegalArgumentException when no counter has that name
     */
    public long get(String name) {
        long v = transport[0].get(name);
        if (v >= 0) {
            for (int i = 1; i < transport.length; i++) {
                v += transport[i].get(name);
            }
            return v;
        }
        java.util.function.ToLongFunction<LinkCounters> f = switch (name) {
            case "link_tx_packets" -> LinkCounters::txPackets;
            case "link_rx_packets" -> LinkCounters::rxPackets;
            case "link_tx_calls" -> LinkCounters::txCalls;
            case "link_rx_calls" -> LinkCounters::rxCalls;
            default -> {
                for (DropReason r : DropReason.values()) {
                    if (name.equals(dropName(r))) {
                        yield c -> c.drops(r);
                    }
                }
                throw new IllegalArgumentException("no counter named " + name + "; names(): " + NAMES);
            }
        };
        return sum(link, f);
    }

    /** The sum of {@code f} over every engine's link counters (what the MBean reads too). */
    static long sum(LinkCounters[] links, java.util.function.ToLongFunction<LinkCounters> f) {
        long v = 0;
        for (LinkCounters c : links) {
            v += f.applyAsLong(c);
        }
        return v;
    }

    /** Every engine's link counters. */
    LinkCounters[] links() {
        return link.clone();
    }

    /** The sum over engines of transport counter {@code i}. */
    long transport(int i) {
        long v = 0;
        for (TransportCounters t : transport) {
            v += t.get(i);
        }
        return v;
    }

    /** {@return every counter's value now, by name, in {@link #names()} order, as an unmodifiable map} */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String n : NAMES) {
            m.put(n, get(n));
        }
        return Collections.unmodifiableMap(m);
    }

    /** {@return the counters that are not zero, as {@code name=value} pairs separated by spaces} */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        snapshot().forEach((n, v) -> {
            if (v != 0) {
                sb.append(sb.isEmpty() ? "" : " ").append(n).append('=').append(v);
            }
        });
        return sb.toString();
    }

    private static String dropName(DropReason r) {
        return "link_drop_" + r.name().toLowerCase(Locale.ROOT);
    }

    private static List<String> linkNames() {
        List<String> l = new ArrayList<>(List.of("link_tx_packets", "link_rx_packets", "link_tx_calls", "link_rx_calls"));
        for (DropReason r : DropReason.values()) {
            l.add(dropName(r));
        }
        return List.copyOf(l);
    }

    private static List<String> allNames() {
        List<String> l = new ArrayList<>();
        for (int i = 0; i < TransportCounters.count(); i++) {
            l.add(TransportCounters.name(i));
        }
        l.addAll(LINK_NAMES);
        return List.copyOf(l);
    }
}
