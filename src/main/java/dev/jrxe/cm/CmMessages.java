package dev.jrxe.cm;

/**
 * The layouts of the CM messages jrxe sends and takes (IBTA vol. 1 ch. 12, tables 106-120;
 * Linux's ibta_vol1_c12.h), as offsets into a {@link Mad}'s data area. Sub-byte fields name their
 * byte and bit position (bit 0 = least significant). Only what RoCE uses: no alternate path, no
 * EE contexts, no LAP/APR (Linux ignores those on RoCE ports). Offsets are in bytes from the
 * start of the CM message (add {@link Mad#DATA} for the MAD offset); multi-byte fields are
 * big-endian, 24-bit fields the top three bytes of the 32-bit word at their offset.
 *
 * <p>Constants only (and one pure function): safe from any thread.
 *
 * <pre>{@code
 * Mad m = new Mad(bytes);
 * long serviceId = m.u64(CmMessages.Req.SERVICE_ID);
 * }</pre>
 */
public final class CmMessages {
    private CmMessages() {
    }

    /** Transport Service Type of a REQ (byte 43, bits 2..1): RC. */
    public static final int TRANSPORT_RC = 0;
    /** Transport Service Type of a REQ: UC (jrxe's passive side rejects it: INVALID_TRANSPORT_TYPE). */
    public static final int TRANSPORT_UC = 1;

    /** REQ (0x0010): 140 bytes of fields, then 92 bytes of private data. Constants only. */
    public static final class Req {
        /** Local Communication ID (32 bits): the active side's comm ID. */
        public static final int LOCAL_COMM_ID = 0;
        /** Service ID (64 bits): for rdma_cm {@code (port space << 16) | port}, see {@link ServiceIds}. */
        public static final int SERVICE_ID = 8;
        /** Local CA GUID (64 bits): the active device's node GUID. */
        public static final int LOCAL_CA_GUID = 16;
        /** Local Q_Key (32 bits): 0 for RC. */
        public static final int LOCAL_QKEY = 28;
        /** Local QPN (24 bits): the active side's QP number; Responder Resources in the byte after. */
        public static final int LOCAL_QPN = 32;
        /**
         * Responder Resources (8 bits): RDMA READs/atomics the active side takes in flight
         * ({@code max_dest_rd_atomic}).
         */
        public static final int RESPONDER_RESOURCES = 35;
        /** Initiator Depth (8 bits): RDMA READs/atomics the active side issues in flight ({@code max_rd_atomic}). */
        public static final int INITIATOR_DEPTH = 39;
        /** Byte 43: Remote CM Response Timeout (bits 7..3), Transport Service Type (2..1), E2E flow control (0). */
        public static final int BYTE43 = 43;
        /** Starting PSN (24 bits): the PSN the active side expects to receive (the passive side's {@code sq_psn}). */
        public static final int STARTING_PSN = 44;
        /** Byte 47: Local CM Response Timeout (bits 7..3), Retry Count (2..0). */
        public static final int BYTE47 = 47;
        /** Partition Key (16 bits): 0xFFFF, the default P_Key. */
        public static final int PKEY = 48;
        /** Byte 50: Path MTU (7..4, an {@code IBV_MTU_*} enum value), RDC exists (3), RNR Retry Count (2..0). */
        public static final int BYTE50 = 50;
        /** Byte 51: Max CM Retries (7..4), SRQ (3), Extended Transport Type (2..0). */
        public static final int BYTE51 = 51;
        /** Primary Local Port LID (16 bits): 0xFFFF (permissive) on RoCE. */
        public static final int PRIMARY_LOCAL_LID = 52;
        /** Primary Remote Port LID (16 bits): 0xFFFF (permissive) on RoCE. */
        public static final int PRIMARY_REMOTE_LID = 54;
        /** Primary Local Port GID (16 bytes): the active side's, {@code ::ffff:a.b.c.d} for IPv4. */
        public static final int PRIMARY_LOCAL_GID = 56;
        /** Primary Remote Port GID (16 bytes): the passive side's. */
        public static final int PRIMARY_REMOTE_GID = 72;
        /** Word 88: Flow Label (bits 31..12), Packet Rate (5..0). */
        public static final int PRIMARY_FLOW_LABEL_WORD = 88;
        /** Primary Traffic Class (8 bits). */
        public static final int PRIMARY_TRAFFIC_CLASS = 92;
        /** Primary Hop Limit (8 bits): jrxe sends 64. */
        public static final int PRIMARY_HOP_LIMIT = 93;
        /** Byte 94: SL (7..4), Subnet Local (3). */
        public static final int BYTE94 = 94;
        /** Byte 95: Primary Local ACK Timeout (7..3), the QP ACK timeout code (4.096 µs × 2^x). */
        public static final int BYTE95 = 95;
        /** Private Data: for rdma_cm a 36-byte {@link CmaHeader}, then the user's bytes. */
        public static final int PRIVATE_DATA = 140;
        /** Bytes of private data in a REQ. */
        public static final int PRIVATE_DATA_SIZE = 92;

        private Req() {
        }
    }

    /** REP (0x0013): 36 bytes, then 196 bytes of private data. Constants only. */
    public static final class Rep {
        /** Local Communication ID (32 bits): the passive side's comm ID. */
        public static final int LOCAL_COMM_ID = 0;
        /** Remote Communication ID (32 bits): the REQ's Local Communication ID. */
        public static final int REMOTE_COMM_ID = 4;
        /** Local Q_Key (32 bits): 0 for RC. */
        public static final int LOCAL_QKEY = 8;
        /** Local QPN (24 bits): the passive side's QP number. */
        public static final int LOCAL_QPN = 12;
        /** Starting PSN (24 bits): the PSN the passive side expects to receive (the active side's {@code sq_psn}). */
        public static final int STARTING_PSN = 20;
        /** Responder Resources (8 bits): what the passive side grants, at most the REQ's Initiator Depth. */
        public static final int RESPONDER_RESOURCES = 24;
        /** Initiator Depth (8 bits): what the passive side issues, at most the REQ's Responder Resources. */
        public static final int INITIATOR_DEPTH = 25;
        /** Byte 26: Target ACK Delay (7..3), Failover Accepted (2..1), E2E flow control (0). */
        public static final int BYTE26 = 26;
        /** Byte 27: RNR Retry Count (7..5), SRQ (4). */
        public static final int BYTE27 = 27;
        /** Local CA GUID (64 bits): the passive device's node GUID. */
        public static final int LOCAL_CA_GUID = 28;
        /** Private Data: the passive side's {@code rdma_conn_param.private_data}. */
        public static final int PRIVATE_DATA = 36;
        /** Bytes of private data in a REP. */
        public static final int PRIVATE_DATA_SIZE = 196;

        private Rep() {
        }
    }

    /** RTU (0x0014), DREP (0x0016): two comm IDs, then 224 bytes of private data. Constants only. */
    public static final class Rtu {
        /** Local Communication ID (32 bits): the sender's comm ID. */
        public static final int LOCAL_COMM_ID = 0;
        /** Remote Communication ID (32 bits): the receiver's comm ID. */
        public static final int REMOTE_COMM_ID = 4;
        /** Private Data. */
        public static final int PRIVATE_DATA = 8;
        /** Bytes of private data in an RTU or DREP. */
        public static final int PRIVATE_DATA_SIZE = 224;

        private Rtu() {
        }
    }

    /** DREQ (0x0015): two comm IDs, the receiver's QPN (24 bits), 220 bytes of private data. Constants only. */
    public static final class Dreq {
        /** Local Communication ID (32 bits): the sender's comm ID. */
        public static final int LOCAL_COMM_ID = 0;
        /** Remote Communication ID (32 bits): the receiver's comm ID. */
        public static final int REMOTE_COMM_ID = 4;
        /** Remote QPN/EECN (24 bits): the receiver's QP number; a DREQ naming another QP is ignored. */
        public static final int REMOTE_QPN = 8;
        /** Private Data. */
        public static final int PRIVATE_DATA = 12;
        /** Bytes of private data in a DREQ. */
        public static final int PRIVATE_DATA_SIZE = 220;

        private Dreq() {
        }
    }

    /** REJ (0x0012): two comm IDs, what is rejected and why, ARI, 148 bytes of private data. Constants only. */
    public static final class Rej {
        /** Local Communication ID (32 bits): the rejecter's, 0 when it rejects a REQ it made no connection for. */
        public static final int LOCAL_COMM_ID = 0;
        /** Remote Communication ID (32 bits): the comm ID of the side rejected. */
        public static final int REMOTE_COMM_ID = 4;
        /** Byte 8: Message Rejected (7..6): 0 REQ, 1 REP, 2 other. */
        public static final int BYTE8 = 8;
        /** Byte 9: Rejected Info Length (7..1), bytes of ARI. */
        public static final int BYTE9 = 9;
        /** Reason (16 bits): a {@link RejReason}. */
        public static final int REASON = 10;
        /** Additional Rejection Information (for TIMEOUT: the rejecter's CA GUID). */
        public static final int ARI = 12;
        /** Bytes of the ARI field. */
        public static final int ARI_SIZE = 72;
        /** Private Data (a consumer's reject, {@code rdma_reject}). */
        public static final int PRIVATE_DATA = 84;
        /** Bytes of private data in a REJ. */
        public static final int PRIVATE_DATA_SIZE = 148;

        /** Message Rejected / MRAed: a REQ. */
        public static final int MSG_REQ = 0;
        /** Message Rejected / MRAed: a REP. */
        public static final int MSG_REP = 1;
        /** Message Rejected / MRAed: another message (LAP). */
        public static final int MSG_OTHER = 2;

        private Rej() {
        }
    }

    /** MRA (0x0011): two comm IDs, Message MRAed (byte 8, 7..6), Service Timeout (byte 9, 7..3). Constants only. */
    public static final class Mra {
        /** Local Communication ID (32 bits): the sender's comm ID. */
        public static final int LOCAL_COMM_ID = 0;
        /** Remote Communication ID (32 bits): the comm ID of the side asked to wait. */
        public static final int REMOTE_COMM_ID = 4;
        /** Byte 8: Message MRAed (7..6), a {@code Rej.MSG_} value. */
        public static final int BYTE8 = 8;
        /** Byte 9: Service Timeout (7..3), 4.096 µs × 2^x. */
        public static final int BYTE9 = 9;

        private Mra() {
        }
    }

    /**
     * SIDR_REQ (0x0017): Request ID, P_Key, Service ID, 216 bytes of private data (rdma_cm header
     * first). Constants only.
     */
    public static final class SidrReq {
        /** Request ID (32 bits): the requester's ID, echoed in the SIDR_REP. */
        public static final int REQUEST_ID = 0;
        /** Partition Key (16 bits). */
        public static final int PKEY = 4;
        /** Service ID (64 bits): {@code RDMA_PS_UDP << 16 | port} for rdma_cm. */
        public static final int SERVICE_ID = 8;
        /** Private Data: a {@link CmaHeader}, then the user's bytes. */
        public static final int PRIVATE_DATA = 16;
        /** Bytes of private data in a SIDR_REQ. */
        public static final int PRIVATE_DATA_SIZE = 216;

        private SidrReq() {
        }
    }

    /**
     * SIDR_REP (0x0018): Request ID, Status, the QPN and Q_Key to send to, 136 bytes of private data.
     * Constants only.
     */
    public static final class SidrRep {
        /** Request ID (32 bits): the SIDR_REQ's. */
        public static final int REQUEST_ID = 0;
        /** Status (8 bits): {@link #SUCCESS}, {@link #UNSUPPORTED}, {@link #REJECT}, {@link #NO_QP}. */
        public static final int STATUS = 4;
        /** QPN (24 bits): the UD QP to send to. */
        public static final int QPN = 8;
        /** Service ID (64 bits): the SIDR_REQ's. */
        public static final int SERVICE_ID = 12;
        /** Q_Key (32 bits): the Q_Key to send with ({@link ServiceIds#UDP_QKEY} for rdma_cm). */
        public static final int QKEY = 20;
        /** Private Data. */
        public static final int PRIVATE_DATA = 96;
        /** Bytes of private data in a SIDR_REP. */
        public static final int PRIVATE_DATA_SIZE = 136;

        /** Status: the QPN and Q_Key are valid (IB_SIDR_SUCCESS). */
        public static final int SUCCESS = 0;
        /** No listener for the service ID. */
        public static final int UNSUPPORTED = 1;
        /** Status: the service refused ({@code rdma_reject}, a full backlog, a bad header; IB_SIDR_REJECT). */
        public static final int REJECT = 2;
        /** Status: no QP for the service (IB_SIDR_NO_QP). */
        public static final int NO_QP = 3;

        private SidrRep() {
        }
    }

    /** REJ reasons (enum ib_cm_rej_reason): those jrxe sends or tests for. Constants only. */
    public static final class RejReason {
        /** IB_CM_REJ_NO_QP. */
        public static final int NO_QP = 1;
        /** IB_CM_REJ_TIMEOUT: the active side destroyed its id with the REQ outstanding. */
        public static final int TIMEOUT = 4;
        /** IB_CM_REJ_INVALID_COMM_ID. */
        public static final int INVALID_COMM_ID = 6;
        /** IB_CM_REJ_INVALID_SERVICE_ID: nothing listens on the REQ's service ID (ECONNREFUSED to the client). */
        public static final int INVALID_SERVICE_ID = 8;
        /** IB_CM_REJ_INVALID_TRANSPORT_TYPE: not RC, or an RC REQ for a UD service. */
        public static final int INVALID_TRANSPORT_TYPE = 9;
        /** IB_CM_REJ_STALE_CONN. */
        public static final int STALE_CONN = 10;
        /** IB_CM_REJ_INVALID_GID. */
        public static final int INVALID_GID = 12;
        /** IB_CM_REJ_INVALID_MTU. */
        public static final int INVALID_MTU = 26;
        /**
         * IB_CM_REJ_CONSUMER_DEFINED: {@code rdma_reject}, a destroyed unanswered id, a full backlog, or
         * a REQ without a valid rdma_cm header for this device; the only reason with private data.
         */
        public static final int CONSUMER_DEFINED = 28;
        /** IB_CM_REJ_INVALID_CLASS_VERSION. */
        public static final int INVALID_CLASS_VERSION = 31;

        private RejReason() {
        }
    }

    /**
     * {@code 4.096 µs × 2^x} as Linux approximates it ({@code cm_convert_to_ms}): {@code 2^(x-8)} ms,
     * at least 1 ms.
     *
     * @param x an IBTA encoded time, 5 bits (a CM response timeout, a packet life time)
     * @return milliseconds
     */
    public static long timeoutMillis(int x) {
        return 1L << Math.max(x - 8, 0);
    }
}
