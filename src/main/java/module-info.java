/**
 * jrxe, a software RDMA NIC: the InfiniBand verbs model over RoCEv2/UDP in pure Java.
 *
 * <p>The API is three packages: {@link dev.jrxe.verbs} (devices, protection domains, memory
 * regions and windows, completion queues, queue pairs, shared receive queues, address handles),
 * {@link dev.jrxe.ib} (the numbers of the verbs model: opcodes, statuses, states, masks, access
 * flags, errno values) and {@link dev.jrxe.cm} (rdma_cm). Everything else (transport, wire,
 * memory, net, sys, the simulator and the command-line tools) is internal and not exported.
 *
 * <p>jrxe calls the OS through the Foreign Function and Memory API: run with
 * {@code --enable-native-access=dev.jrxe} on the module path ({@code ALL-UNNAMED} on the class
 * path). The command-line tools need picocli and HdrHistogram; the library does not.
 */
module dev.jrxe {
    requires java.management;
    requires jdk.jfr;
    requires jdk.net;
    requires static info.picocli;
    requires static HdrHistogram;

    exports dev.jrxe.verbs;
    exports dev.jrxe.ib;
    exports dev.jrxe.cm;

    opens dev.jrxe.tools to info.picocli;
}
