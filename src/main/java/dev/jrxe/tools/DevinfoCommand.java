package dev.jrxe.tools;

import dev.jrxe.ib.Mtu;
import dev.jrxe.verbs.Device;
import dev.jrxe.verbs.DeviceAttr;
import dev.jrxe.verbs.DeviceConfig;
import dev.jrxe.verbs.Gid;
import dev.jrxe.verbs.PortAttr;
import java.io.PrintStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jrxe devinfo}: {@code ibv_devinfo} for a jrxe device, with its field names and layout. */
@Command(name = "devinfo", mixinStandardHelpOptions = true,
    description = "Print device and port attributes like ibv_devinfo.")
public final class DevinfoCommand implements Callable<Integer> {
    @Option(names = {"-d", "--ib-dev"}, description = "device name (default ${DEFAULT-VALUE})", defaultValue = "jrxe0")
    String name;

    @Option(names = "--ip", description = "IPv4 address the device binds (default ${DEFAULT-VALUE})",
        defaultValue = "127.0.0.1")
    String ip;

    @Option(names = {"-i", "--ib-port"}, description = "port number (default all)", defaultValue = "0")
    int port;

    @Option(names = {"-v", "--verbose"}, description = "print all the attributes")
    boolean verbose;

    @Option(names = "--udp-port", description = "UDP port (default ${DEFAULT-VALUE})", defaultValue = "4791")
    int udpPort;

    @Override
    public Integer call() {
        try (Device dev = Device.open(DeviceConfig.of(name, ip).udpPort(udpPort))) {
            print(dev, System.out, verbose, port);
        }
        return 0;
    }

    static String guid(long g) {
        return String.format("%04x:%04x:%04x:%04x", (g >>> 48) & 0xFFFF, (g >>> 32) & 0xFFFF, (g >>> 16) & 0xFFFF,
            g & 0xFFFF);
    }

    /** Prints in ibv_devinfo's layout. */
    static void print(Device dev, PrintStream o, boolean verbose, int onlyPort) {
        DeviceAttr a = dev.query();
        o.printf("hca_id:\t%s%n", dev.name());
        o.printf("\ttransport:\t\t\tInfiniBand (0)%n");
        o.printf("\tfw_ver:\t\t\t\t%s%n", a.fwVer);
        o.printf("\tnode_guid:\t\t\t%s%n", guid(a.nodeGuid));
        o.printf("\tsys_image_guid:\t\t\t%s%n", guid(a.sysImageGuid));
        o.printf("\tvendor_id:\t\t\t0x%06x%n", a.vendorId);
        o.printf("\tvendor_part_id:\t\t\t%d%n", a.vendorPartId);
        o.printf("\thw_ver:\t\t\t\t0x%x%n", a.hwVer);
        o.printf("\tphys_port_cnt:\t\t\t%d%n", a.physPortCnt);
        if (verbose) {
            o.printf("\tmax_mr_size:\t\t\t0x%x%n", a.maxMrSize);
            o.printf("\tpage_size_cap:\t\t\t0x%x%n", a.pageSizeCap);
            o.printf("\tmax_qp:\t\t\t\t%d%n", a.maxQp);
            o.printf("\tmax_qp_wr:\t\t\t%d%n", a.maxQpWr);
            o.printf("\tdevice_cap_flags:\t\t0x%08x%n", a.deviceCapFlags);
            String[] capNames = {null, "BAD_PKEY_CNTR", "BAD_QKEY_CNTR", null, "AUTO_PATH_MIG", "CHANGE_PHY_PORT",
                "UD_AV_PORT_ENFORCE", null, null, null, "PORT_ACTIVE_EVENT", "SYS_IMAGE_GUID", "RC_RNR_NAK_GEN",
                "SRQ_RESIZE", null, null, null, "MEM_WINDOW", null, null, null, "MEM_MGT_EXTENSIONS", null, null,
                "MEM_WINDOW_TYPE_2B"};
            for (int b = 0; b < capNames.length; b++) {
                if ((a.deviceCapFlags & (1L << b)) != 0 && capNames[b] != null) {
                    o.printf("\t\t\t\t\t%s%n", capNames[b]);
                }
            }
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
            o.printf("\tatomic_cap:\t\t\t%s%n", switch (a.atomicCap) {
                case DeviceAttr.ATOMIC_HCA -> "ATOMIC_HCA (1)";
                case DeviceAttr.ATOMIC_GLOB -> "ATOMIC_GLOB (2)";
                default -> "ATOMIC_NONE (0)";
            });
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
            o.printf("\tmax_srq_wr:\t\t\t%d%n", a.maxSrqWr);
            o.printf("\tmax_srq_sge:\t\t\t%d%n", a.maxSrqSge);
            o.printf("\tmax_pkeys:\t\t\t%d%n", a.maxPkeys);
            o.printf("\tlocal_ca_ack_delay:\t\t%d%n", a.localCaAckDelay);
            o.printf("\tgeneral_odp_caps:%n");
            if ((a.odpGeneralCaps & 1) != 0) {
                o.printf("\t\t\t\t\tODP_SUPPORT%n");
            }
            if ((a.odpGeneralCaps & 2) != 0) {
                o.printf("\t\t\t\t\tODP_SUPPORT_IMPLICIT%n");
            }
            printOdp(o, "rc_odp_caps", a.odpRcCaps);
            printOdp(o, "uc_odp_caps", a.odpUcCaps);
            printOdp(o, "ud_odp_caps", a.odpUdCaps);
            printOdp(o, "xrc_odp_caps", a.odpXrcCaps);
            o.printf("\tcompletion_timestamp_mask not supported%n");
            o.printf("\tcore clock not supported%n");
            o.printf("\tnum_comp_vectors:\t\t%d%n", a.numCompVectors);
        }
        for (int p = 1; p <= a.physPortCnt; p++) {
            if (onlyPort != 0 && onlyPort != p) {
                continue;
            }
            PortAttr pa = dev.queryPort(p);
            o.printf("\t\tport:\t%d%n", p);
            o.printf("\t\t\tstate:\t\t\t%s%n", pa.state == PortAttr.PORT_ACTIVE ? "PORT_ACTIVE (4)" : "PORT_DOWN (1)");
            o.printf("\t\t\tmax_mtu:\t\t%d (%d)%n", Mtu.bytes(pa.maxMtu), pa.maxMtu);
            o.printf("\t\t\tactive_mtu:\t\t%d (%d)%n", Mtu.bytes(pa.activeMtu), pa.activeMtu);
            o.printf("\t\t\tsm_lid:\t\t\t%d%n", pa.smLid);
            o.printf("\t\t\tport_lid:\t\t%d%n", pa.lid);
            o.printf("\t\t\tport_lmc:\t\t0x%02x%n", pa.lmc);
            o.printf("\t\t\tlink_layer:\t\tEthernet%n");
            if (verbose) {
                o.printf("\t\t\tmax_msg_sz:\t\t0x%x%n", pa.maxMsgSz);
                o.printf("\t\t\tport_cap_flags:\t\t0x%08x%n", pa.portCapFlags);
                o.printf("\t\t\tport_cap_flags2:\t0x%04x%n", pa.portCapFlags2);
                o.printf("\t\t\tmax_vl_num:\t\t%d (%d)%n", pa.maxVlNum, pa.maxVlNum);
                o.printf("\t\t\tbad_pkey_cntr:\t\t0x%x%n", pa.badPkeyCntr);
                o.printf("\t\t\tqkey_viol_cntr:\t\t0x%x%n", pa.qkeyViolCntr);
                o.printf("\t\t\tsm_sl:\t\t\t%d%n", pa.smSl);
                o.printf("\t\t\tpkey_tbl_len:\t\t%d%n", pa.pkeyTblLen);
                o.printf("\t\t\tgid_tbl_len:\t\t%d%n", pa.gidTblLen);
                o.printf("\t\t\tsubnet_timeout:\t\t%d%n", pa.subnetTimeout);
                o.printf("\t\t\tinit_type_reply:\t%d%n", pa.initTypeReply);
                o.printf("\t\t\tactive_width:\t\t1X (1)%n");
                o.printf("\t\t\tactive_speed:\t\t2.5 Gbps (1)%n");
                o.printf("\t\t\tphys_state:\t\tLINK_UP (5)%n");
                for (int g = 0; g < dev.gidCount(); g++) {
                    o.printf("\t\t\tGID[%3d]:\t\t%s, RoCE v2%n", g, ntop(dev.queryGid(p, g)));
                }
            }
            o.println();
        }
    }

    private static void printOdp(PrintStream o, String name, int caps) {
        o.printf("\t%s:%n", name);
        if (caps == 0) {
            o.printf("\t\t\t\t\tNO SUPPORT%n");
            return;
        }
        String[] n = {"SUPPORT_SEND", "SUPPORT_RECV", "SUPPORT_WRITE", "SUPPORT_READ", "SUPPORT_ATOMIC",
            "SUPPORT_SRQ", "SUPPORT_FLUSH", "SUPPORT_ATOMIC_WRITE"};
        for (int b = 0; b < n.length; b++) {
            if ((caps & (1 << b)) != 0) {
                o.printf("\t\t\t\t\t%s%n", n[b]);
            }
        }
    }

    /** inet_ntop(AF_INET6) of a GID, as ibv_devinfo prints it. */
    static String ntop(Gid gid) {
        byte[] raw = gid.raw();
        if (gid.isIpv4()) {
            return String.format("::ffff:%d.%d.%d.%d", raw[12] & 0xFF, raw[13] & 0xFF, raw[14] & 0xFF, raw[15] & 0xFF);
        }
        try {
            String s = ((Inet6Address) InetAddress.getByAddress(raw)).getHostAddress();
            return compress(s);
        } catch (UnknownHostException e) {
            return gid.toString();
        }
    }

    /** Java prints fe80:0:0:0:...; inet_ntop compresses the longest run of zero groups to "::". */
    static String compress(String full) {
        String[] g = full.split(":");
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < g.length; ) {
            if (g[i].equals("0")) {
                int j = i;
                while (j < g.length && g[j].equals("0")) {
                    j++;
                }
                if (j - i > bestLen && j - i > 1) {
                    bestStart = i;
                    bestLen = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        if (bestStart < 0) {
            return full;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < bestStart; i++) {
            sb.append(i > 0 ? ":" : "").append(g[i]);
        }
        sb.append("::");
        for (int i = bestStart + bestLen; i < g.length; i++) {
            sb.append(g[i]).append(i < g.length - 1 ? ":" : "");
        }
        return sb.toString();
    }
}
