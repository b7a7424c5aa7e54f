package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceAttr;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.PortAttr;
import dev.jrxe.verbs.SrdDeviceAttr;
import dev.jrxe.verbs.SrdDv;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** devinfo against the layout of rxe's {@code ibv_devinfo -v} (../shared/captures/rxe-ibv_devinfo-v.txt). */
class DevinfoCommandTest {
    private static final String IP = "127.0.0.2";
    /**
     * Every line of rxe's {@code ibv_devinfo -v} up to its value, in order, tabs included; flag lines
     * (five tabs) left out (ibv_devinfo prints max_srq_wr and max_srq_sge only when max_srq is not 0).
     */
    private static final List<String> VERBOSE_KEYS = List.of(
        "hca_id:\t",
        "\ttransport:\t\t\t",
        "\tfw_ver:\t\t\t\t",
        "\tnode_guid:\t\t\t",
        "\tsys_image_guid:\t\t\t",
        "\tvendor_id:\t\t\t",
        "\tvendor_part_id:\t\t\t",
        "\thw_ver:\t\t\t\t",
        "\tphys_port_cnt:\t\t\t",
        "\tmax_mr_size:\t\t\t",
        "\tpage_size_cap:\t\t\t",
        "\tmax_qp:\t\t\t\t",
        "\tmax_qp_wr:\t\t\t",
        "\tdevice_cap_flags:\t\t",
        "\tmax_sge:\t\t\t",
        "\tmax_sge_rd:\t\t\t",
        "\tmax_cq:\t\t\t\t",
        "\tmax_cqe:\t\t\t",
        "\tmax_mr:\t\t\t\t",
        "\tmax_pd:\t\t\t\t",
        "\tmax_qp_rd_atom:\t\t\t",
        "\tmax_ee_rd_atom:\t\t\t",
        "\tmax_res_rd_atom:\t\t",
        "\tmax_qp_init_rd_atom:\t\t",
        "\tmax_ee_init_rd_atom:\t\t",
        "\tatomic_cap:\t\t\t",
        "\tmax_ee:\t\t\t\t",
        "\tmax_rdd:\t\t\t",
        "\tmax_mw:\t\t\t\t",
        "\tmax_raw_ipv6_qp:\t\t",
        "\tmax_raw_ethy_qp:\t\t",
        "\tmax_mcast_grp:\t\t\t",
        "\tmax_mcast_qp_attach:\t\t",
        "\tmax_total_mcast_qp_attach:\t",
        "\tmax_ah:\t\t\t\t",
        "\tmax_fmr:\t\t\t",
        "\tmax_srq:\t\t\t",
        "\tmax_srq_wr:\t\t\t",
        "\tmax_srq_sge:\t\t\t",
        "\tmax_pkeys:\t\t\t",
        "\tlocal_ca_ack_delay:\t\t",
        "\tgeneral_odp_caps:",
        "\trc_odp_caps:",
        "\tuc_odp_caps:",
        "\tud_odp_caps:",
        "\txrc_odp_caps:",
        "\tcompletion timestamp_mask:\t\t\t",
        "\thca_core_clock:\t\t\t",
        "\tdevice_cap_flags_ex:\t\t",
        "\ttso_caps:",
        "\t\tmax_tso:\t\t\t",
        "\trss_caps:",
        "\t\tmax_rwq_indirection_tables:\t\t\t",
        "\t\tmax_rwq_indirection_table_size:\t\t\t",
        "\t\trx_hash_function:\t\t\t\t",
        "\t\trx_hash_fields_mask:\t\t\t\t",
        "\tmax_wq_type_rq:\t\t\t",
        "\tpacket_pacing_caps:",
        "\t\tqp_rate_limit_min:\t",
        "\t\tqp_rate_limit_max:\t",
        "\ttag matching not supported",
        "\tnum_comp_vectors:\t\t",
        // jrxe's SRD attributes (efadv_query_device's), after what ibv_devinfo prints
        "\tsrd (jrxe, as efadv_query_device):", "\t\tmax_sq_wr:\t\t", "\t\tmax_rq_wr:\t\t", "\t\tmax_sq_sge:\t\t",
        "\t\tmax_rq_sge:\t\t", "\t\tinline_buf_size:\t", "\t\tmax_rdma_size:\t\t", "\t\tdevice_caps:\t\t",
        "\t\tport:\t",
        "\t\t\tstate:\t\t\t",
        "\t\t\tmax_mtu:\t\t",
        "\t\t\tactive_mtu:\t\t",
        "\t\t\tsm_lid:\t\t\t",
        "\t\t\tport_lid:\t\t",
        "\t\t\tport_lmc:\t\t",
        "\t\t\tlink_layer:\t\t",
        "\t\t\tmax_msg_sz:\t\t",
        "\t\t\tport_cap_flags:\t\t",
        "\t\t\tport_cap_flags2:\t",
        "\t\t\tmax_vl_num:\t\t",
        "\t\t\tbad_pkey_cntr:\t\t",
        "\t\t\tqkey_viol_cntr:\t\t",
        "\t\t\tsm_sl:\t\t\t",
        "\t\t\tpkey_tbl_len:\t\t",
        "\t\t\tgid_tbl_len:\t\t",
        "\t\t\tsubnet_timeout:\t\t",
        "\t\t\tinit_type_reply:\t",
        "\t\t\tactive_width:\t\t",
        "\t\t\tactive_speed:\t\t",
        "\t\t\tphys_state:\t\t",
        // rxe lists its IPv6 link-local GID[0] too; a jrxe device has no IPv6 address, so the
        // entry is empty and ibv_devinfo's rule (skip an all-zero interface id) leaves it out
        "\t\t\tGID[  1]:\t\t", "", "");
    private static final Pattern KEY = Pattern.compile("^(\\t*[^:\\t]+:\\t*)");

    private static String[] run(String... args) throws Exception {
        int udp = FreePorts.udp(IP);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new DevinfoCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of("--ip", IP, "--udp-port", Integer.toString(udp)));
        all.addAll(Arrays.asList(args));
        int rc = cl.execute(all.toArray(String[]::new));
        return new String[] {Integer.toString(rc), out.toString(), err.toString()};
    }

    private static List<String> keys(String output) {
        List<String> keys = new ArrayList<>();
        for (String line : output.split("\n", -1)) {
            if (line.startsWith("\t\t\t\t\t")) {
                continue;
            }
            Matcher m = KEY.matcher(line);
            keys.add(m.find() ? m.group(1) : line);
        }
        return keys;
    }

    /** The value after a key line, e.g. value(out, "\tmax_qp:") . */
    private static String value(String output, String key) {
        for (String line : output.split("\n")) {
            if (line.startsWith(key)) {
                return line.substring(key.length()).replaceFirst("^\t+", "");
            }
        }
        throw new AssertionError("no line " + key.replace("\t", "\\t") + " in\n" + output);
    }

    /** The flag lines (five tabs) right after the key line. */
    private static List<String> flagsAfter(String output, String key) {
        List<String> flags = new ArrayList<>();
        boolean in = false;
        for (String line : output.split("\n")) {
            if (in && line.startsWith("\t\t\t\t\t")) {
                flags.add(line.substring(5));
            } else if (in) {
                break;
            } else if (line.startsWith(key)) {
                in = true;
            }
        }
        return flags;
    }

    @Test
    void shouldPrintVerboseFieldsInIbvDevinfoOrderWithItsTabs() throws Exception {
        String[] r = run("-v");
        assertThat(r[0]).isEqualTo("0");
        assertThat(keys(r[1])).containsExactlyElementsOf(VERBOSE_KEYS);
    }

    @Test
    void shouldPrintTheShortFormLikeIbvDevinfo() throws Exception {
        String[] r = run();
        assertThat(r[0]).isEqualTo("0");
        // the field lines of `ibv_devinfo -d rxe_a` in ../shared/captures/setup.txt
        assertThat(keys(r[1])).containsExactly("hca_id:\t", "\ttransport:\t\t\t", "\tfw_ver:\t\t\t\t",
            "\tnode_guid:\t\t\t", "\tsys_image_guid:\t\t\t", "\tvendor_id:\t\t\t", "\tvendor_part_id:\t\t\t",
            "\thw_ver:\t\t\t\t", "\tphys_port_cnt:\t\t\t", "\t\tport:\t", "\t\t\tstate:\t\t\t",
            "\t\t\tmax_mtu:\t\t", "\t\t\tactive_mtu:\t\t", "\t\t\tsm_lid:\t\t\t", "\t\t\tport_lid:\t\t",
            "\t\t\tport_lmc:\t\t", "\t\t\tlink_layer:\t\t", "", "");
        assertThat(r[1]).startsWith("hca_id:\tjrxe0\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t0.0.0\n");
    }

    @Test
    void shouldPrintTheSrdAttributesAsEfadvQueryDeviceReportsThem() throws Exception {
        String out = run("-v")[1];
        try (Device dev = Device.open(DeviceConfig.of("probe", IP).udpPort(FreePorts.udp(IP)))) {
            SrdDeviceAttr s = SrdDv.queryDevice(dev);
            assertThat(out).contains("\tsrd (jrxe, as efadv_query_device):\n");
            assertThat(value(out, "\t\tmax_sq_wr:")).isEqualTo(Integer.toString(s.maxSqWr));
            assertThat(value(out, "\t\tmax_rq_sge:")).isEqualTo(Integer.toString(s.maxRqSge));
            assertThat(value(out, "\t\tinline_buf_size:")).isEqualTo(Integer.toString(s.inlineBufSize));
            assertThat(value(out, "\t\tmax_rdma_size:")).isEqualTo("16777216");
            assertThat(value(out, "\t\tdevice_caps:")).isEqualTo("0x1B");
            assertThat(out).contains("\t\t\t\t\tRDMA_READ\n\t\t\t\t\tRNR_RETRY\n\t\t\t\t\tRDMA_WRITE\n"
                + "\t\t\t\t\tUNSOLICITED_WRITE_RECV\n");
        }
    }

    @Test
    void shouldPrintJrxeValuesInIbvDevinfoFormats() throws Exception {
        String out = run("-v")[1];
        try (Device dev = Device.open(DeviceConfig.of("probe", IP).udpPort(FreePorts.udp(IP)))) {
            DeviceAttr a = dev.query();
            PortAttr p = dev.queryPort(1);
            assertThat(value(out, "\tnode_guid:")).isEqualTo(DevinfoCommand.guid(a.nodeGuid))
                .matches("[0-9a-f]{4}(:[0-9a-f]{4}){3}");
            assertThat(value(out, "\tvendor_id:")).isEqualTo("0xffffff");
            assertThat(value(out, "\thw_ver:")).isEqualTo("0x0");
            assertThat(value(out, "\tmax_qp:")).isEqualTo(Integer.toString(a.maxQp));
            assertThat(value(out, "\tmax_qp_wr:")).isEqualTo(Integer.toString(a.maxQpWr));
            assertThat(value(out, "\tmax_sge:")).isEqualTo(Integer.toString(a.maxSge));
            assertThat(value(out, "\tmax_cqe:")).isEqualTo(Integer.toString(a.maxCqe));
            assertThat(value(out, "\tmax_mr:")).isEqualTo(Integer.toString(a.maxMr));
            assertThat(value(out, "\tmax_qp_rd_atom:")).isEqualTo(Integer.toString(a.maxQpRdAtom));
            assertThat(value(out, "\tmax_srq:")).isEqualTo("917503");
            assertThat(value(out, "\tdevice_cap_flags:")).isEqualTo(String.format("0x%08x", (int) a.deviceCapFlags));
            assertThat(value(out, "\tdevice_cap_flags_ex:")).isEqualTo(String.format("0x%X", a.deviceCapFlags));
            assertThat(flagsAfter(out, "\tdevice_cap_flags:")).contains("RC_RNR_NAK_GEN", "PORT_ACTIVE_EVENT")
                .contains("MEM_WINDOW", "MEM_WINDOW_TYPE_2B").doesNotContain("SRQ_RESIZE", "MEM_MGT_EXTENSIONS");
            assertThat(flagsAfter(out, "\tdevice_cap_flags_ex:")).containsExactly("FLUSH_GLOBAL", "FLUSH_PERSISTENT",
                "ATOMIC_WRITE");
            assertThat(value(out, "\tcompletion timestamp_mask:")).isEqualTo("0xffffffffffffffff");
            assertThat(value(out, "\thca_core_clock:")).isEqualTo("1000000kHZ");
            assertThat(value(out, "\tatomic_cap:")).isEqualTo("ATOMIC_HCA (1)");
            assertThat(flagsAfter(out, "\tgeneral_odp_caps:")).contains("ODP_SUPPORT");
            assertThat(flagsAfter(out, "\trc_odp_caps:")).startsWith("SUPPORT_SEND", "SUPPORT_RECV")
                .contains("SUPPORT_FLUSH", "SUPPORT_ATOMIC_WRITE");
            assertThat(flagsAfter(out, "\tuc_odp_caps:")).containsExactly("SUPPORT_SEND", "SUPPORT_RECV",
                "SUPPORT_WRITE", "SUPPORT_SRQ");
            assertThat(flagsAfter(out, "\tud_odp_caps:")).containsExactly("SUPPORT_SEND", "SUPPORT_RECV", "SUPPORT_SRQ");
            assertThat(value(out, "\tmax_mcast_grp:")).isEqualTo("8192");
            assertThat(value(out, "\tmax_mcast_qp_attach:")).isEqualTo("56");
            assertThat(value(out, "\tmax_total_mcast_qp_attach:")).isEqualTo("458752");
            assertThat(value(out, "\t\t\tstate:")).isEqualTo("PORT_ACTIVE (4)");
            assertThat(value(out, "\t\t\tmax_mtu:")).isEqualTo("4096 (5)");
            assertThat(value(out, "\t\t\tactive_mtu:")).isEqualTo((128 << p.activeMtu) + " (" + p.activeMtu + ")");
            assertThat(value(out, "\t\t\tlink_layer:")).isEqualTo("Ethernet");
            assertThat(value(out, "\t\t\tmax_msg_sz:")).isEqualTo("0x" + Long.toHexString(p.maxMsgSz));
            assertThat(value(out, "\t\t\tgid_tbl_len:")).isEqualTo("1024");
            assertThat(value(out, "\t\t\tmax_vl_num:")).isEqualTo("1 (1)");
            assertThat(value(out, "\t\t\tactive_width:")).isEqualTo("1X (1)");
            assertThat(value(out, "\t\t\tphys_state:")).isEqualTo("LINK_UP (5)");
            assertThat(out).doesNotContain("GID[  0]");
            assertThat(value(out, "\t\t\tGID[  1]:")).isEqualTo("::ffff:127.0.0.2, RoCE v2");
        }
    }

    @Test
    void shouldListTheDevice() throws Exception {
        String[] r = run("-l");
        assertThat(r[0]).isEqualTo("0");
        assertThat(r[1]).isEqualTo("1 HCA found:\n\tjrxe0\n\n");
    }

    @Test
    void shouldPrintOnlyTheRequestedPort() throws Exception {
        String[] r = run("-i", "1");
        assertThat(r[0]).isEqualTo("0");
        assertThat(r[1]).contains("\t\tport:\t1\n");
    }

    @Test
    void shouldRejectAPortTheDeviceDoesNotHave() throws Exception {
        // refused while parsing, a usage error in one line (issue 17), where ibv_devinfo exits 4
        String[] r = run("-i", "2");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[2]).contains("port 2 does not exist: a jrxe device has port 1 only");
        assertThat(r[1]).isEmpty();
        assertThat(run("-i", "0")[0]).isEqualTo("2");
    }

    /** A read-only query (issue 17): it binds nothing, so a device holding the address does not stop it. */
    @Test
    void shouldQueryWhileAnotherDeviceHoldsTheAddressAndPort() throws Exception {
        int udp = FreePorts.udp(IP);
        try (dev.jrxe.verbs.Device held = dev.jrxe.verbs.Device.open(dev.jrxe.verbs.DeviceConfig.of("held", IP).udpPort(udp))) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cl = new CommandLine(new DevinfoCommand());
            cl.setOut(new PrintWriter(out, true));
            cl.setErr(new PrintWriter(err, true));
            int rc = cl.execute("--ip", IP, "--udp-port", Integer.toString(udp), "-v");
            assertThat(rc).as(err.toString()).isZero();
            assertThat(out.toString()).contains("hca_id:\tjrxe0", "GID[  1]:\t\t::ffff:" + IP + ", RoCE v2");
            // and it left the held device's socket alone: a second bind still fails
            assertThatThrownBy(() -> dev.jrxe.verbs.Device.open(dev.jrxe.verbs.DeviceConfig.of("again", IP).udpPort(udp)))
                .isInstanceOfSatisfying(dev.jrxe.verbs.VerbsException.class,
                    e -> assertThat(e.errno()).isEqualTo(dev.jrxe.ib.Errno.EADDRINUSE));
        }
    }
}
