package dev.jrxe.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The simulated network: datagrams between {@link SimLink}s, each one {@link #LATENCY} in flight
 * unless its {@link Fault}s say otherwise (dropped, delivered twice, delayed past later ones,
 * a bit flipped). Which faults hit which datagram is the {@link FaultPlan}'s; everything else is
 * fixed, so a run is a function of its seed and its fault schedule.
 */
final class SimNetwork {
    /** One-way latency of every datagram. */
    static final long LATENCY = 5_000;

    private record InFlight(long at, long order, int src, int srcPort, int dst, byte[] bytes) {
    }

    private final SimClock clock;
    private final FaultPlan plan;
    private final Trace trace;
    private final Map<Integer, SimLink> links = new HashMap<>();
    private final PriorityQueue<InFlight> inFlight = new PriorityQueue<>((a, b) -> a.at != b.at
        ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
    private long seq;
    private long order;
    long dropped;
    long duplicated;
    long delayed;
    long corrupted;
    long undeliverable;

    SimNetwork(SimClock clock, FaultPlan plan, Trace trace) {
        this.clock = clock;
        this.plan = plan;
        this.trace = trace;
    }

    SimLink attach(int address, int port) {
        SimLink l = new SimLink(this, address, port);
        links.put(address, l);
        return l;
    }

    SimClock clock() {
        return clock;
    }

    /** Datagrams sent so far. */
    long sent() {
        return seq;
    }

    /** A link hands over a sealed datagram. */
    void send(int src, int srcPort, int dst, byte[] bytes) {
        long s = seq++;
        trace.datagram(clock.getAsLong(), s, src, dst, bytes);
        List<Fault> faults = plan.decide(s, bytes.length);
        if (!faults.isEmpty()) {
            trace.note(clock.getAsLong(), "  fault " + faults);
        }
        long at = clock.getAsLong() + LATENCY;
        boolean duplicate = false;
        for (Fault f : faults) {
            switch (f.kind()) {
                case Fault.DROP -> {
                    dropped++;
                    return;
                }
                case Fault.DUPLICATE -> duplicate = true;
                case Fault.DELAY -> {
                    at += f.value();
                    delayed++;
                }
                default -> {
                    int bit = (int) (f.value() % (8L * bytes.length));
                    bytes[bit >>> 3] ^= (byte) (1 << (bit & 7));
                    corrupted++;
                }
            }
        }
        inFlight.add(new InFlight(at, order++, src, srcPort, dst, bytes));
        if (duplicate) {
            duplicated++;
            inFlight.add(new InFlight(at + LATENCY, order++, src, srcPort, dst, bytes.clone()));
        }
    }

    /** When the next datagram arrives, or {@code Long.MAX_VALUE}. */
    long nextDelivery() {
        InFlight d = inFlight.peek();
        return d == null ? Long.MAX_VALUE : d.at;
    }

    /** Hands every datagram due by now to its link; returns how many. */
    int deliverDue() {
        int n = 0;
        long now = clock.getAsLong();
        while (!inFlight.isEmpty() && inFlight.peek().at <= now) {
            InFlight d = inFlight.poll();
            SimLink to = links.get(d.dst);
            if (to == null) {
                undeliverable++;
                continue;
            }
            to.arrive(d.src, d.srcPort, d.bytes);
            n++;
        }
        return n;
    }

    List<SimLink> links() {
        return new ArrayList<>(links.values());
    }
}
