package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.jrxe.verbs.Gid;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** rc-pingpong's options, defaults and wire message, in process. */
class RcPingpongCommandTest {
    private static RcPingpongCommand parse(String... args) {
        RcPingpongCommand cmd = new RcPingpongCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    /** Runs the command; returns exit code, stdout, stderr. */
    private static String[] execute(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new RcPingpongCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute(args);
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }

    @Test
    void shouldHaveIbvRcPingpongDefaults() {
        RcPingpongCommand c = parse();
        assertThat(c.port).isEqualTo(18515);
        assertThat(c.ibPort).isEqualTo(1);
        assertThat(c.size).isEqualTo(4096);
        assertThat(c.mtu).isEqualTo(1024);
        assertThat(c.rxDepth).isEqualTo(500);
        assertThat(c.iters).isEqualTo(1000);
        assertThat(c.sl).isZero();
        assertThat(c.useEvents).isFalse();
        assertThat(c.validate).isFalse();
        assertThat(c.odp || c.implicitOdp || c.prefetch).isFalse();
        assertThat(c.servername).isNull();
        assertThat(c.udpPort).isEqualTo(4791);
        assertThat(c.gidx).as("jrxe's documented deviation: RoCE needs a GID").isEqualTo(1);
    }

    @Test
    void shouldTakeIbvRcPingpongShortAndLongOptions() {
        RcPingpongCommand c = parse("-p", "9999", "-d", "jrxe7", "-i", "1", "-s", "8", "-m", "4096", "-r", "10",
            "-n", "5", "-l", "3", "-e", "-g", "1", "-o", "-O", "-P", "-c", "peer");
        assertThat(c.port).isEqualTo(9999);
        assertThat(c.ibDev).isEqualTo("jrxe7");
        assertThat(c.size).isEqualTo(8);
        assertThat(c.mtu).isEqualTo(4096);
        assertThat(c.rxDepth).isEqualTo(10);
        assertThat(c.iters).isEqualTo(5);
        assertThat(c.sl).isEqualTo(3);
        assertThat(c.gidx).isEqualTo(1);
        assertThat(c.useEvents && c.odp && c.implicitOdp && c.prefetch && c.validate).isTrue();
        assertThat(c.servername).isEqualTo("peer");
        RcPingpongCommand l = parse("--port=1", "--ib-dev=jrxe3", "--ib-port=1", "--size=1", "--mtu=256", "--rx-depth=2",
            "--iters=3", "--sl=1", "--events", "--gid-idx=1", "--odp", "--iodp", "--prefetch", "--chk");
        assertThat(l.port + l.size + l.rxDepth + l.iters).isEqualTo(1 + 1 + 2 + 3);
        assertThat(l.mtu).isEqualTo(256);
    }

    @Test
    void shouldDocumentTheGidIndexDefaultInHelp() {
        String[] r = execute("--help");
        assertThat(r[0]).isEqualTo("0");
        assertThat(r[1]).contains("-g, --gid-idx=IDX").contains("default 1").contains("RoCE");
    }

    @Test
    void shouldRejectAnInvalidMtuWithUsage() {
        String[] r = execute("-m", "1000");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("'--mtu': 1000 is not an MTU");
        assertThat(r[1]).isEmpty();
    }

    @Test
    void shouldRejectPortsOutOfRangeWithUsage() {
        // a TCP port out of range is a usage error the shared converter names (issue 17: exit 2)
        String[] bad = execute("-p", "65536");
        assertThat(bad[0]).isEqualTo("2");
        assertThat(bad[2]).contains("65536 is not a port (1..65535)");
        assertThat(execute("-i", "0")[0]).isEqualTo("2");
    }

    @Test
    void shouldRejectPrefetchWithoutOdp() {
        String[] r = execute("-P");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("prefetch is valid only with on-demand memory region");
    }

    @Test
    void shouldEncodeAddressAs52NulPaddedBytes() {
        Gid gid = Gid.ofIpv4(0x7f000002);
        RcPingpongCommand.Dest d = new RcPingpongCommand.Dest(0, 0x11, 0xabcdef, gid);
        byte[] wire = d.encode();
        assertThat(wire).hasSize(52);
        assertThat(new String(wire, 0, 51, StandardCharsets.US_ASCII))
            .isEqualTo("0000:000011:abcdef:00000000000000000000ffff7f000002");
        assertThat(wire[51]).isZero();
    }

    @Test
    void shouldDecodeWhatIbvRcPingpongSends() {
        byte[] wire = new byte[52];
        byte[] text = "0000:0001a2:00ff00:fe80000000000000505400fffe4d0002".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, wire, 0, text.length);
        RcPingpongCommand.Dest d = RcPingpongCommand.Dest.decode(wire);
        assertThat(d).isNotNull();
        assertThat(d.qpn()).isEqualTo(0x1a2);
        assertThat(d.psn()).isEqualTo(0xff00);
        assertThat(DevinfoCommand.ntop(d.gid())).isEqualTo("fe80::5054:ff:fe4d:2");
        assertThat(RcPingpongCommand.Dest.decode(d.encode())).isEqualTo(d);
    }

    @Test
    void shouldRefuseToDecodeGarbage() {
        byte[] wire = new byte[52];
        Arrays.fill(wire, (byte) 'z');
        assertThat(RcPingpongCommand.Dest.decode(wire)).isNull();
        assertThat(RcPingpongCommand.Dest.decode(new byte[52])).isNull();
    }
}
