package dev.jrxe.memory;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR: an implicit ODP region created or released a 2 MiB child. */
@Name("dev.jrxe.OdpChild")
@Label("ODP Child")
@Category({"jrxe", "Memory"})
@Description("An implicit ODP child (2 MiB) was created on first touch, reclaimed (idle or over budget), or "
    + "released (invalidated)")
@StackTrace(false)
final class OdpChildEvent extends Event {
    static final String CREATED = "created";
    static final String RECLAIMED = "reclaimed";
    static final String RELEASED = "released";

    @Label("Action")
    String action;
    @Label("Base")
    long base;
    @Label("Resident Pages")
    @Description("Pages it had mapped when released")
    int pages;
    @Label("Size")
    @DataAmount
    long size;

    static void emit(String action, OdpChunk c) {
        OdpChildEvent e = new OdpChildEvent();
        if (e.isEnabled()) {
            e.action = action;
            e.base = c.base;
            e.pages = c.presentPages();
            e.size = OdpChunk.SIZE;
            e.commit();
        }
    }
}
