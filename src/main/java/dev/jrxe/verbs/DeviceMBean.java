package dev.jrxe.verbs;

import dev.jrxe.net.DropReason;
import dev.jrxe.net.LinkCounters;
import dev.jrxe.transport.TransportCounters;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A device's counters as one read-only MBean, {@code dev.jrxe:type=Device,name=NAME} (a second
 * open device of the same name adds {@code ,instance=N}): the transport's counters under their
 * rxe/jrxe names, the link's packets, bytes, system calls and drops by reason ({@code link_*},
 * {@code drop_*}), the memory layer's ({@code memory_*}), and the gauges {@code live_qps} and
 * {@code memory_regions}. Registered when the device opens (off the opening thread), unregistered
 * when it closes.
 */
final class DeviceMBean implements DynamicMBean {
    static final String DOMAIN = "dev.jrxe";

    private final Map<String, LongSupplier> attributes = new LinkedHashMap<>();
    private final MBeanInfo info;

    DeviceMBean(Device dev) {
        DeviceCounters counters = dev.counters(); // every engine's, summed
        for (int i = 0; i < TransportCounters.count(); i++) {
            int c = i;
            attributes.put(TransportCounters.name(i), () -> counters.transport(c));
        }
        LinkCounters[] l = counters.links();
        attributes.put("link_tx_packets", () -> DeviceCounters.sum(l, LinkCounters::txPackets));
        attributes.put("link_rx_packets", () -> DeviceCounters.sum(l, LinkCounters::rxPackets));
        attributes.put("link_tx_bytes", () -> DeviceCounters.sum(l, LinkCounters::txBytes));
        attributes.put("link_rx_bytes", () -> DeviceCounters.sum(l, LinkCounters::rxBytes));
        attributes.put("link_tx_calls", () -> DeviceCounters.sum(l, LinkCounters::txCalls));
        attributes.put("link_rx_calls", () -> DeviceCounters.sum(l, LinkCounters::rxCalls));
        for (DropReason r : DropReason.values()) {
            attributes.put("drop_" + r.name().toLowerCase(Locale.ROOT), () -> DeviceCounters.sum(l, c -> c.drops(r)));
        }
        for (String name : dev.keys().counters().snapshot().keySet()) {
            attributes.put("memory_" + name, () -> dev.keys().counters().snapshot().get(name));
        }
        attributes.put("live_qps", () -> dev.liveQpCount());
        attributes.put("memory_regions", () -> dev.keys().size());
        List<MBeanAttributeInfo> infos = new ArrayList<>();
        for (String name : attributes.keySet()) {
            infos.add(new MBeanAttributeInfo(name, "long", name.replace('_', ' '), true, false, false));
        }
        info = new MBeanInfo(DeviceMBean.class.getName(), "jrxe device " + dev.name(),
            infos.toArray(MBeanAttributeInfo[]::new), null, null, null);
    }

    /** The registration before the next one: they run one after the other, in the order devices open. */
    private static java.util.concurrent.CompletableFuture<ObjectName> last =
        java.util.concurrent.CompletableFuture.completedFuture(null);

    /**
     * Registers the device's MBean off the calling thread (the platform MBean server takes a while
     * to start), after the registrations asked for before: same-name devices get their instance
     * numbers in the order they opened.
     */
    static synchronized java.util.concurrent.CompletableFuture<ObjectName> registerLater(Device dev) {
        last = last.handleAsync((previous, error) -> register(dev),
            r -> Thread.ofVirtual().name("jrxe-" + dev.name() + "-jmx").start(r));
        return last;
    }

    /** Registers it under the first free name; null when JMX refuses (the device works without). */
    static ObjectName register(Device dev) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        DeviceMBean bean = new DeviceMBean(dev);
        String base = DOMAIN + ":type=Device,name=" + quoteIfNeeded(dev.name());
        for (int instance = 1; instance < 10_000; instance++) {
            try {
                ObjectName name = new ObjectName(instance == 1 ? base : base + ",instance=" + instance);
                server.registerMBean(bean, name);
                return name;
            } catch (InstanceAlreadyExistsException e) {
                // another open device has that name: try the next instance
            } catch (JMException | RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    static void unregister(ObjectName name) {
        if (name == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException | RuntimeException e) {
            // already gone
        }
    }

    private static String quoteIfNeeded(String name) {
        return name.matches("[A-Za-z0-9_.\\-]+") ? name : ObjectName.quote(name);
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        LongSupplier s = attributes.get(attribute);
        if (s == null) {
            throw new AttributeNotFoundException(attribute);
        }
        return s.getAsLong();
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList getAttributes(String[] names) {
        AttributeList list = new AttributeList();
        for (String n : names) {
            LongSupplier s = attributes.get(n);
            if (s != null) {
                list.add(new Attribute(n, s.getAsLong()));
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException(actionName);
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }
}
