package dev.jrxe.cm;

/**
 * The layouts of the CM messages jrxe sends and takes (IBTA vol. 1 ch. 12, tables 106-120;
 * Linux's ibta_vol1_c12.h), as offsets into a {@link Mad}'s data area. Sub-byte fields name their
 * byte and bit position (bit 0 = least significant). Only what RoCE uses: no alternate path, no
 * EE contexts, no LAP/APR (Linux ignores those on RoCE ports).
 */
public final class CmMessages {
    private CmMessages() {
    }

    /** Transport service types of a REQ. */
    public static final int TRANSPORT_RC = 0;
    public static final int TRANSPORT_UC = 1;

    /** REQ (0x0010): 140 bytes of fields, then 92 bytes of private data. */
    public static final class Req {
        public static final int LOCAL_COMM_ID = 0;
        public static final int SERVICE_ID = 8;
        public static final int LOCAL_CA_GUID = 16;
        public static final int LOCAL_QKEY = 28;
        /** 24 bits; Responder Resources in the byte after. */
        public static final int LOCAL_QPN = 32;
        public static final int RESPONDER_RESOURCES = 35;
        public static final int INITIATOR_DEPTH = 39;
        /** Byte 43: Remote CM Response Timeout (bits 7..3), Transport Service Type (2..1), E2E flow control (0). */
        public static final int BYTE43 = 43;
        /** 24 bits; byte 47: Local CM Response Timeout (7..3), Retry Count (2..0). */
        public static final int STARTING_PSN = 44;
        public static final int BYTE47 = 47;
        public static final int PKEY = 48;
        /** Byte 50: Path MTU (7..4), RDC exists (3), RNR Retry Count (2..0). */
        public static final int BYTE50 = 50;
        /** Byte 51: Max CM Retries (7..4), SRQ (3), Extended Transport Type (2..0). */
        public static final int BYTE51 = 51;
        public static final int PRIMARY_LOCAL_LID = 52;
        public static final int PRIMARY_REMOTE_LID = 54;
        public static final int PRIMARY_LOCAL_GID = 56;
        public static final int PRIMARY_REMOTE_GID = 72;
        /** Word 88: Flow Label (bits 31..12), Packet Rate (5..0). */
        public static final int PRIMARY_FLOW_LABEL_WORD = 88;
        public static final int PRIMARY_TRAFFIC_CLASS = 92;
        public static final int PRIMARY_HOP_LIMIT = 93;
        /** Byte 94: SL (7..4), Subnet Local (3). */
        public static final int BYTE94 = 94;
        /** Byte 95: Primary Local ACK Timeout (7..3). */
        public static final int BYTE95 = 95;
        public static final int PRIVATE_DATA = 140;
        public static final int PRIVATE_DATA_SIZE = 92;

        private Req() {
        }
    }

    /** REP (0x0013): 36 bytes, then 196 bytes of private data. */
    public static final class Rep {
        public static final int LOCAL_COMM_ID = 0;
        public static final int REMOTE_COMM_ID = 4;
        public static final int LOCAL_QKEY = 8;
        public static final int LOCAL_QPN = 12;
        public static final int STARTING_PSN = 20;
        public static final int RESPONDER_RESOURCES = 24;
        public static final int INITIATOR_DEPTH = 25;
        /** Byte 26: Target ACK Delay (7..3), Failover Accepted (2..1), E2E flow control (0). */
        public static final int BYTE26 = 26;
        /** Byte 27: RNR Retry Count (7..5), SRQ (4). */
        public static final int BYTE27 = 27;
        public static final int LOCAL_CA_GUID = 28;
        public static final int PRIVATE_DATA = 36;
        public static final int PRIVATE_DATA_SIZE = 196;

        private Rep() {
        }
    }

    /** RTU (0x0014), DREP (0x0016): two comm IDs, then 224 bytes of private data. */
    public static final class Rtu {
        public static final int LOCAL_COMM_ID = 0;
        public static final int REMOTE_COMM_ID = 4;
        public static final int PRIVATE_DATA = 8;
        public static final int PRIVATE_DATA_SIZE = 224;

        private Rtu() {
        }
    }

    /** DREQ (0x0015): two comm IDs, the receiver's QPN (24 bits), 220 bytes of private data. */
    public static final class Dreq {
        public static final int LOCAL_COMM_ID = 0;
        public static final int REMOTE_COMM_ID = 4;
        public static final int REMOTE_QPN = 8;
        public static final int PRIVATE_DATA = 12;
        public static final int PRIVATE_DATA_SIZE = 220;

        private Dreq() {
        }
    }

    /** REJ (0x0012). */
    public static final class Rej {
        public static final int LOCAL_COMM_ID = 0;
        public static final int REMOTE_COMM_ID = 4;
        /** Byte 8: Message Rejected (7..6): 0 REQ, 1 REP, 2 other. */
        public static final int BYTE8 = 8;
        /** Byte 9: Rejected Info Length (7..1). */
        public static final int BYTE9 = 9;
        public static final int REASON = 10;
        public static final int ARI = 12;
        public static final int ARI_SIZE = 72;
        public static final int PRIVATE_DATA = 84;
        public static final int PRIVATE_DATA_SIZE = 148;

        public static final int MSG_REQ = 0;
        public static final int MSG_REP = 1;
        public static final int MSG_OTHER = 2;

        private Rej() {
        }
    }

    /** MRA (0x0011): two comm IDs, Message MRAed (byte 8, 7..6), Service Timeout (byte 9, 7..3). */
    public static final class Mra {
        public static final int LOCAL_COMM_ID = 0;
        public static final int REMOTE_COMM_ID = 4;
        public static final int BYTE8 = 8;
        public static final int BYTE9 = 9;

        private Mra() {
        }
    }

    /** SIDR_REQ (0x0017): Request ID, P_Key, Service ID, 216 bytes of private data (rdma_cm header first). */
    public static final class SidrReq {
        public static final int REQUEST_ID = 0;
        public static final int PKEY = 4;
        public static final int SERVICE_ID = 8;
        public static final int PRIVATE_DATA = 16;
        public static final int PRIVATE_DATA_SIZE = 216;

        private SidrReq() {
        }
    }

    /** SIDR_REP (0x0018): Request ID, Status, the QPN and Q_Key to send to, 136 bytes of private data. */
    public static final class SidrRep {
        public static final int REQUEST_ID = 0;
        public static final int STATUS = 4;
        public static final int QPN = 8;
        public static final int SERVICE_ID = 12;
        public static final int QKEY = 20;
        public static final int PRIVATE_DATA = 96;
        public static final int PRIVATE_DATA_SIZE = 136;

        public static final int SUCCESS = 0;
        /** No listener for the service ID. */
        public static final int UNSUPPORTED = 1;
        public static final int REJECT = 2;
        public static final int NO_QP = 3;

        private SidrRep() {
        }
    }

    /** REJ reasons (enum ib_cm_rej_reason). */
    public static final class RejReason {
        public static final int NO_QP = 1;
        public static final int TIMEOUT = 4;
        public static final int INVALID_COMM_ID = 6;
        public static final int INVALID_SERVICE_ID = 8;
        public static final int INVALID_TRANSPORT_TYPE = 9;
        public static final int STALE_CONN = 10;
        public static final int INVALID_GID = 12;
        public static final int INVALID_MTU = 26;
        public static final int CONSUMER_DEFINED = 28;
        public static final int INVALID_CLASS_VERSION = 31;

        private RejReason() {
        }
    }

    /** {@code 4.096 µs × 2^x} as Linux approximates it: {@code 2^(x-8)} ms, at least 1 ms. */
    public static long timeoutMillis(int x) {
        return 1L << Math.max(x - 8, 0);
    }
}
