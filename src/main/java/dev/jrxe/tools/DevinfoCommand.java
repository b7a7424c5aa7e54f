package dev.jrxe.tools;

import dev.jrxe.ib.Mtu;
import dev.jrxe.memory.OdpCaps;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceAttr;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.PortAttr;
import dev.jrxe.verbs.SrdDeviceAttr;
import dev.jrxe.verbs.SrdDv;
import dev.jrxe.verbs.VerbsException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jrxe devinfo}: {@code ibv_devinfo} for a jrxe device, with its field names, order and tabs
 * (checked against rxe's {@code ibv_devinfo -v} in ../shared/captures).
 */
@Command(name = "devinfo", mixinStandardHelpOptions = true,
    description = {"Print device and port attributes like ibv_devinfo.",
        "A read-only query: it binds no socket, so it works while another process uses the address. "
            + "The GID table lists only GIDs the device can send from: index 1, the IPv4-mapped RoCEv2 GID "
            + "(rxe's IPv6 link-local GID at index 0 is empty: jrxe sends over IPv4 only)."})
public final class DevinfoCommand implements Callable<Integer> {
    /** Names of the device_cap_flags bits ibv_devinfo knows, by bit number. */
    private static final String[] CAP_NAMES = {
        "RESIZE_MAX_WR", "BAD_PKEY_CNTR", "BAD_QKEY_CNTR", "RAW_MULTI", "AUTO_PATH_MIG", "CHANGE_PHY_PORT",
        "UD_AV_PORT_ENFORCE", "CURR_QP_STATE_MOD", "SHUTDOWN_PORT", "INIT_TYPE", "PORT_ACTIVE_EVENT",
        "SYS_IMAGE_GUID", "RC_RNR_NAK_GEN", "SRQ_RESIZE", "N_NOTIFY_CQ", null, null, "MEM_WINDOW", "UD_IP_CSUM",
        null, "XRC", "MEM_MGT_EXTENSIONS", null, "MEM_WINDOW_TYPE_2A", "MEM_WINDOW_TYPE_2B", "RC_IP_CSUM",
        "RAW_IP_CSUM", null, null, "MANAGED_FLOW_STEERING",
    };
    /** Names of the extended (upper 32) device_cap_flags_ex bits ibv_devinfo knows. */
    private static final String[] CAP_EX_NAMES = new String[64];

    static {
        CAP_EX_NAMES[34] = "RAW_SCATTER_FCS";
        CAP_EX_NAMES[36] = "PCI_WRITE_END_PADDING";
        CAP_EX_NAMES[38] = "FLUSH_GLOBAL";
        CAP_EX_NAMES[39] = "FLUSH_PERSISTENT";
        CAP_EX_NAMES[40] = "ATOMIC_WRITE";
    }

    /**
     * Names of the per-transport ODP bits. ibv_devinfo up to rdma-core 50 prints bits 6 and 7 as
     * "Unknown flags: 0xC0"; jrxe names them after IBV_ODP_SUPPORT_FLUSH / _ATOMIC_WRITE.
     */
    private static final String[] ODP_NAMES = {
        "SUPPORT_SEND", "SUPPORT_RECV", "SUPPORT_WRITE", "SUPPORT_READ", "SUPPORT_ATOMIC", "SUPPORT_SRQ",
        "SUPPORT_FLUSH", "SUPPORT_ATOMIC_WRITE",
    };

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(converter = Converters.DeviceName.class,
        names = {"-d", "--ib-dev"}, description = "device name (default ${DEFAULT-VALUE})", defaultValue = "jrxe0")
    String name;

    @Option(converter = Converters.DeviceAddress.class,
        names = "--ip", description = "IPv4 address the device binds (default ${DEFAULT-VALUE})",
        defaultValue = "127.0.0.1")
    String ip;

    @Option(converter = Converters.IbPort.class, names = {"-i", "--ib-port"},
        description = "use port PORT of the device (default all ports; a jrxe device has port 1)",
        paramLabel = "PORT")
    Integer port;

    @Option(names = {"-l", "--list"}, description = "print only the device names")
    boolean list;

    @Option(names = {"-v", "--verbose"}, description = "print all the attributes of the device")
    boolean verbose;

    @Option(converter = Converters.Port.class,
        names = "--udp-port", description = "UDP port of the device (default ${DEFAULT-VALUE})",
        defaultValue = "4791")
    int udpPort;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (list) {
            // a jrxe process sees exactly the device it opens
            out.printf("1 HCA found:%n\t%s%n%n", name);
            out.flush();
            return 0;
        }
        // a query: the device's link binds nothing, so devinfo works beside a process using the address
        try (Device dev = Device.open(DeviceConfig.of(name, ip).udpPort(udpPort).detached())) {
            return print(dev, out, err, verbose, port == null ? 0 : port);
        } catch (VerbsException e) {
            err.println("Failed to open device: " + e.getMessage());
            return 1;
        } finally {
            out.flush();
        }
    }

    static String guid(long g) {
        return String.format("%04x:%04x:%04x:%04x", (g >>> 48) & 0xFFFF, (g >>> 32) & 0xFFFF, (g >>> 16) & 0xFFFF,
            g & 0xFFFF);
    }

    /** Prints in ibv_devinfo's layout; {@code onlyPort} 0 means all ports. Returns ibv_devinfo's exit code. */
    static int print(Device dev, PrintWriter o, PrintWriter err, boolean verbose, int onlyPort) {
        DeviceAttr a = dev.query();
        if (onlyPort > a.physPortCnt) {
            err.println("Invalid port requested for device");
            return 4;
        }
        o.printf("hca_id:\t%s%n", dev.name());
        o.printf("\ttransport:\t\t\tInfiniBand (0)%n");
        if (!a.fwVer.isEmpty()) {
            o.printf("\tfw_ver:\t\t\t\t%s%n", a.fwVer);
        }
        o.printf("\tnode_guid:\t\t\t%s%n", guid(a.nodeGuid));
        o.printf("\tsys_image_guid:\t\t\t%s%n", guid(a.sysImageGuid));
        o.printf("\tvendor_id:\t\t\t0x%04x%n", a.vendorId);
        o.printf("\tvendor_part_id:\t\t\t%d%n", a.vendorPartId);
        o.printf("\thw_ver:\t\t\t\t0x%X%n", a.hwVer);
        o.printf("\tphys_port_cnt:\t\t\t%d%n", a.physPortCnt);
        if (verbose) {
            printDeviceDetails(a, o);
            printSrd(SrdDv.queryDevice(dev), o);
        }
        for (int p = 1; p <= a.physPortCnt; p++) {
            if (onlyPort != 0 && onlyPort != p) {
                continue;
            }
            printPort(dev, p, o, verbose);
        }
        return 0;
    }

    /** What efadv_query_device reports for EFA, for jrxe's SRD QPs (docs/SRD.md); not in ibv_devinfo. */
    private static void printSrd(SrdDeviceAttr s, PrintWriter o) {
        o.printf("\tsrd (jrxe, as efadv_query_device):%n");
        o.printf("\t\tmax_sq_wr:\t\t%d%n", s.maxSqWr);
        o.printf("\t\tmax_rq_wr:\t\t%d%n", s.maxRqWr);
        o.printf("\t\tmax_sq_sge:\t\t%d%n", s.maxSqSge);
        o.printf("\t\tmax_rq_sge:\t\t%d%n", s.maxRqSge);
        o.printf("\t\tinline_buf_size:\t%d%n", s.inlineBufSize);
        o.printf("\t\tmax_rdma_size:\t\t%d%n", s.maxRdmaSize);
        o.printf("\t\tdevice_caps:\t\t0x%X%n", s.deviceCaps);
        String[][] caps = {{"RDMA_READ", "1"}, {"RNR_RETRY", "2"}, {"RDMA_WRITE", "8"}, {"UNSOLICITED_WRITE_RECV", "16"}};
        for (String[] c : caps) {
            if ((s.deviceCaps & Integer.parseInt(c[1])) != 0) {
                o.printf("\t\t\t\t\t%s%n", c[0]);
            }
        }
    }

    private static void printDeviceDetails(DeviceAttr a, PrintWriter o) {
        o.printf("\tmax_mr_size:\t\t\t0x%x%n", a.maxMrSize);
        o.printf("\tpage_size_cap:\t\t\t0x%x%n", a.pageSizeCap);
        o.printf("\tmax_qp:\t\t\t\t%d%n", a.maxQp);
        o.printf("\tmax_qp_wr:\t\t\t%d%n", a.maxQpWr);
        int caps = (int) a.deviceCapFlags;
        o.printf("\tdevice_cap_flags:\t\t0x%08x%n", caps);
        printFlags(o, caps & 0xFFFFFFFFL, CAP_NAMES);
        o.printf("\tmax_sge:\t\t\t%d%n", a.maxSge);
        o.printf("\tmax_sge_rd:\t\t\t%d%n", a.maxSgeRd);
        o.printf("\tmax_cq:\t\t\t\t%d%n", a.maxCq);
        o.printf("\tmax_cqe:\t\t\t%d%n", a.maxCqe);
        o.printf("\tmax_mr:\t\t\t\t%d%n", a.maxMr);
        o.printf("\tmax_pd:\t\t\t\t%d%n", a.maxPd);
        o.printf("\tmax_qp_rd_atom:\t\t\t%d%n", a.maxQpRdAtom);
        o.printf("\tmax_ee_rd_atom:\t\t\t%d%n", a.maxEeRdAtom);
        o.printf("\tmax_res_rd_atom:\t\t%d%n", a.maxResRdAtom);
        o.printf("\tmax_qp_init_rd_atom:\t\t%d%n", a.maxQpInitRdAtom);
        o.printf("\tmax_ee_init_rd_atom:\t\t%d%n", a.maxEeInitRdAtom);
        o.printf("\tatomic_cap:\t\t\t%s (%d)%n", switch (a.atomicCap) {
            case DeviceAttr.ATOMIC_NONE -> "ATOMIC_NONE";
            case DeviceAttr.ATOMIC_HCA -> "ATOMIC_HCA";
            case DeviceAttr.ATOMIC_GLOB -> "ATOMIC_GLOB";
            default -> "invalid atomic capability";
        }, a.atomicCap);
        o.printf("\tmax_ee:\t\t\t\t%d%n", a.maxEe);
        o.printf("\tmax_rdd:\t\t\t%d%n", a.maxRdd);
        o.printf("\tmax_mw:\t\t\t\t%d%n", a.maxMw);
        o.printf("\tmax_raw_ipv6_qp:\t\t%d%n", a.maxRawIpv6Qp);
        o.printf("\tmax_raw_ethy_qp:\t\t%d%n", a.maxRawEthyQp);
        o.printf("\tmax_mcast_grp:\t\t\t%d%n", a.maxMcastGrp);
        o.printf("\tmax_mcast_qp_attach:\t\t%d%n", a.maxMcastQpAttach);
        o.printf("\tmax_total_mcast_qp_attach:\t%d%n", a.maxTotalMcastQpAttach);
        o.printf("\tmax_ah:\t\t\t\t%d%n", a.maxAh);
        o.printf("\tmax_fmr:\t\t\t%d%n", a.maxFmr);
        o.printf("\tmax_srq:\t\t\t%d%n", a.maxSrq);
        if (a.maxSrq != 0) {
            o.printf("\tmax_srq_wr:\t\t\t%d%n", a.maxSrqWr);
            o.printf("\tmax_srq_sge:\t\t\t%d%n", a.maxSrqSge);
        }
        o.printf("\tmax_pkeys:\t\t\t%d%n", a.maxPkeys);
        o.printf("\tlocal_ca_ack_delay:\t\t%d%n", a.localCaAckDelay);
        o.printf("\tgeneral_odp_caps:%n");
        if ((a.odpGeneralCaps & OdpCaps.ODP_SUPPORT) != 0) {
            o.printf("\t\t\t\t\tODP_SUPPORT%n");
        }
        if ((a.odpGeneralCaps & OdpCaps.ODP_SUPPORT_IMPLICIT) != 0) {
            o.printf("\t\t\t\t\tODP_SUPPORT_IMPLICIT%n");
        }
        long unknownGeneral = a.odpGeneralCaps & ~(OdpCaps.ODP_SUPPORT | OdpCaps.ODP_SUPPORT_IMPLICIT);
        if (unknownGeneral != 0) {
            o.printf("\t\t\t\t\tUnknown flags: 0x%X%n", unknownGeneral);
        }
        printOdp(o, "rc_odp_caps", a.odpRcCaps);
        printOdp(o, "uc_odp_caps", a.odpUcCaps);
        printOdp(o, "ud_odp_caps", a.odpUdCaps);
        printOdp(o, "xrc_odp_caps", a.odpXrcCaps);
        // completion timestamps in ns (rxe has none); no TSO, RSS, WQs, packet pacing or tag
        // matching, like rxe: ibv_devinfo prints those as zeros / "not supported"
        if (a.completionTimestampMask != 0) {
            o.printf("\tcompletion timestamp_mask:\t\t\t0x%016x%n", a.completionTimestampMask);
        } else {
            o.printf("\tcompletion_timestamp_mask not supported%n");
        }
        if (a.hcaCoreClock != 0) {
            o.printf("\thca_core_clock:\t\t\t%dkHZ%n", a.hcaCoreClock);
        } else {
            o.printf("\tcore clock not supported%n");
        }
        o.printf("\tdevice_cap_flags_ex:\t\t0x%X%n", a.deviceCapFlags);
        printFlags(o, a.deviceCapFlags & 0xFFFFFFFF00000000L, CAP_EX_NAMES);
        o.printf("\ttso_caps:%n");
        o.printf("\t\tmax_tso:\t\t\t0%n");
        o.printf("\trss_caps:%n");
        o.printf("\t\tmax_rwq_indirection_tables:\t\t\t0%n");
        o.printf("\t\tmax_rwq_indirection_table_size:\t\t\t0%n");
        o.printf("\t\trx_hash_function:\t\t\t\t0x0%n");
        o.printf("\t\trx_hash_fields_mask:\t\t\t\t0x0%n");
        o.printf("\tmax_wq_type_rq:\t\t\t0%n");
        o.printf("\tpacket_pacing_caps:%n");
        o.printf("\t\tqp_rate_limit_min:\t0kbps%n");
        o.printf("\t\tqp_rate_limit_max:\t0kbps%n");
        o.printf("\ttag matching not supported%n");
        o.printf("\tnum_comp_vectors:\t\t%d%n", a.numCompVectors);
    }

    private static void printPort(Device dev, int p, PrintWriter o, boolean verbose) {
        PortAttr pa = dev.queryPort(p);
        o.printf("\t\tport:\t%d%n", p);
        o.printf("\t\t\tstate:\t\t\t%s (%d)%n", portState(pa.state), pa.state);
        o.printf("\t\t\tmax_mtu:\t\t%s (%d)%n", mtu(pa.maxMtu), pa.maxMtu);
        o.printf("\t\t\tactive_mtu:\t\t%s (%d)%n", mtu(pa.activeMtu), pa.activeMtu);
        o.printf("\t\t\tsm_lid:\t\t\t%d%n", pa.smLid);
        o.printf("\t\t\tport_lid:\t\t%d%n", pa.lid);
        o.printf("\t\t\tport_lmc:\t\t0x%02x%n", pa.lmc);
        o.printf("\t\t\tlink_layer:\t\t%s%n", pa.linkLayer == PortAttr.LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
        if (verbose) {
            o.printf("\t\t\tmax_msg_sz:\t\t0x%x%n", pa.maxMsgSz);
            o.printf("\t\t\tport_cap_flags:\t\t0x%08x%n", pa.portCapFlags);
            o.printf("\t\t\tport_cap_flags2:\t0x%04x%n", pa.portCapFlags2);
            o.printf("\t\t\tmax_vl_num:\t\t%s (%d)%n", vlNum(pa.maxVlNum), pa.maxVlNum);
            o.printf("\t\t\tbad_pkey_cntr:\t\t0x%x%n", pa.badPkeyCntr);
            o.printf("\t\t\tqkey_viol_cntr:\t\t0x%x%n", pa.qkeyViolCntr);
            o.printf("\t\t\tsm_sl:\t\t\t%d%n", pa.smSl);
            o.printf("\t\t\tpkey_tbl_len:\t\t%d%n", pa.pkeyTblLen);
            o.printf("\t\t\tgid_tbl_len:\t\t%d%n", pa.gidTblLen);
            o.printf("\t\t\tsubnet_timeout:\t\t%d%n", pa.subnetTimeout);
            o.printf("\t\t\tinit_type_reply:\t%d%n", pa.initTypeReply);
            o.printf("\t\t\tactive_width:\t\t%sX (%d)%n", width(pa.activeWidth), pa.activeWidth);
            o.printf("\t\t\tactive_speed:\t\t%s (%d)%n", speed(pa.activeSpeed), pa.activeSpeed);
            o.printf("\t\t\tphys_state:\t\t%s (%d)%n", physState(pa.physState), pa.physState);
            for (int g = 0; g < pa.gidTblLen; g++) {
                Gid gid = dev.queryGid(p, g);
                if (gid.interfaceId() != 0) { // ibv_devinfo skips entries whose low 64 bits are zero
                    o.printf("\t\t\tGID[%3d]:\t\t%s, RoCE v2%n", g, ntop(gid));
                }
            }
        }
        o.printf("%n");
    }

    private static void printFlags(PrintWriter o, long flags, String[] names) {
        long unknown = 0;
        for (int b = 0; b < 64; b++) {
            if ((flags & (1L << b)) == 0) {
                continue;
            }
            if (b < names.length && names[b] != null) {
                o.printf("\t\t\t\t\t%s%n", names[b]);
            } else {
                unknown |= 1L << b;
            }
        }
        if (unknown != 0) {
            o.printf("\t\t\t\t\tUnknown flags: 0x%X%n", unknown);
        }
    }

    private static void printOdp(PrintWriter o, String name, int caps) {
        o.printf("\t%s:%n", name);
        if (caps == 0) {
            o.printf("\t\t\t\t\tNO SUPPORT%n");
            return;
        }
        printFlags(o, caps & 0xFFFFFFFFL, ODP_NAMES);
    }

    private static String portState(int s) {
        return switch (s) {
            case 1 -> "PORT_DOWN";
            case 2 -> "PORT_INIT";
            case 3 -> "PORT_ARMED";
            case 4 -> "PORT_ACTIVE";
            default -> "invalid state";
        };
    }

    private static String mtu(int m) {
        int bytes = Mtu.bytes(m);
        return bytes < 0 ? "invalid MTU" : Integer.toString(bytes);
    }

    private static String vlNum(int v) {
        return switch (v) {
            case 1 -> "1";
            case 2 -> "2";
            case 3 -> "4";
            case 4 -> "8";
            case 5 -> "15";
            default -> "invalid value";
        };
    }

    private static String width(int w) {
        return switch (w) {
            case 1 -> "1";
            case 2 -> "4";
            case 4 -> "8";
            case 8 -> "12";
            case 16 -> "2";
            default -> "invalid width";
        };
    }

    private static String speed(int s) {
        return switch (s) {
            case 1 -> "2.5 Gbps";
            case 2 -> "5.0 Gbps";
            case 4, 8 -> "10.0 Gbps";
            case 16 -> "14.0 Gbps";
            case 32 -> "25.0 Gbps";
            case 64 -> "50.0 Gbps";
            default -> "invalid speed";
        };
    }

    private static String physState(int s) {
        return switch (s) {
            case 1 -> "SLEEP";
            case 2 -> "POLLING";
            case 3 -> "DISABLED";
            case 4 -> "PORT_CONFIGURATION TRAINNING";
            case 5 -> "LINK_UP";
            case 6 -> "LINK_ERROR_RECOVERY";
            case 7 -> "PHY TEST";
            default -> "invalid physical state";
        };
    }

    /** inet_ntop(AF_INET6) of a GID, as ibv_devinfo and ibv_rc_pingpong print it. */
    static String ntop(Gid gid) {
        return Inet6Text.ntop(gid.raw());
    }
}
