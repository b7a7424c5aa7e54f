package dev.jrxe.memory;

import dev.jrxe.sys.Mem;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: pages of an ODP region mapped on first access (a page fault, as the NIC's would be). */
@Name("dev.jrxe.OdpFault")
@Label("ODP Fault")
@Category({"jrxe", "Memory"})
@Description("Pages of an on-demand-paging region were mapped for an access (first touch, or after an invalidation)")
@StackTrace(false)
final class OdpFaultEvent extends Event {
    @Label("Address")
    long address;
    @Label("Pages")
    int pages;
    @Label("Bytes")
    @DataAmount
    long bytes;
    @Label("Implicit")
    @Description("The region is implicit ODP (the whole address space)")
    boolean implicit;

    static void emit(long address, int pages, boolean implicit) {
        OdpFaultEvent e = new OdpFaultEvent();
        if (e.isEnabled()) {
            e.address = address;
            e.pages = pages;
            e.bytes = (long) pages * Mem.PAGE_SIZE;
            e.implicit = implicit;
            e.commit();
        }
    }
}
