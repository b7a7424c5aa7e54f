package dev.jrxe.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.text.ParseException;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import picocli.CommandLine.Option;

/**
 * {@code --jfr FILE}: records the run with Java Flight Recorder, JDK's default settings plus every
 * jrxe event (dev.jrxe.QpState, Retransmit, Nak, RnrWait, OdpFault, OdpChild), and writes FILE
 * when the command ends. Open it with JDK Mission Control or {@code jfr print --events 'dev.jrxe.*' FILE}.
 */
final class JfrOption {
    /** The jrxe event names, all enabled in a recording. */
    static final String[] EVENTS = {"dev.jrxe.QpState", "dev.jrxe.Retransmit", "dev.jrxe.Nak", "dev.jrxe.RnrWait",
        "dev.jrxe.OdpFault", "dev.jrxe.OdpChild"};

    @Option(converter = Converters.OutputFile.class, names = "--jfr", paramLabel = "FILE",
        description = "record a Java Flight Recording with jrxe's events (QP states, retransmissions, NAKs, RNR "
            + "waits, ODP faults and children) to FILE")
    Path file;

    /** A recording under way, or nothing. */
    interface Session extends AutoCloseable {
        @Override
        void close();
    }

    Session start(PrintWriter err) throws IOException {
        if (file == null) {
            return () -> { };
        }
        Recording r;
        try {
            r = new Recording(Configuration.getConfiguration("default"));
        } catch (ParseException e) {
            throw new IOException("JFR's default configuration: " + e.getMessage(), e);
        }
        for (String e : EVENTS) {
            r.enable(e);
        }
        r.setName("jrxe");
        r.setToDisk(true);
        r.setDestination(file);
        r.start();
        return () -> {
            r.stop(); // writes the destination
            r.close();
            err.println("jfr: recording written to " + file);
            err.flush();
        };
    }
}
