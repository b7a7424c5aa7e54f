package dev.jrxe.wire;

import static dev.jrxe.wire.OpcodeTable.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OpcodeTableTest {

    /**
     * Facts of Linux rxe's rxe_opcode[] (drivers/infiniband/sw/rxe/rxe_opcode.c, plus the FLUSH and
     * ATOMIC WRITE patches): opcode, header length, headers at their offsets, and the mask bits
     * REQ/ACK, START/MIDDLE/END, RWR, COMP, PAYLOAD written as letters.
     * Letters: Q request, A response (rxe ACK), F first, M middle, L last, W consumes a receive WQE
     * (RWR), C completes (COMP), P payload.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        0x00 | 12 |                   | QFWP
        0x01 | 12 |                   | QMP
        0x02 | 12 |                   | QLCP
        0x03 | 16 | IMMDT@12          | QLCP
        0x04 | 12 |                   | QFLWCP
        0x05 | 16 | IMMDT@12          | QFLWCP
        0x06 | 28 | RETH@12           | QFP
        0x07 | 12 |                   | QMP
        0x08 | 12 |                   | QLP
        0x09 | 16 | IMMDT@12          | QLWCP
        0x0A | 28 | RETH@12           | QFLP
        0x0B | 32 | RETH@12 IMMDT@28  | QFLWCP
        0x0C | 28 | RETH@12           | QFL
        0x0D | 16 | AETH@12           | AFP
        0x0E | 12 |                   | AMP
        0x0F | 16 | AETH@12           | ALP
        0x10 | 16 | AETH@12           | AFLP
        0x11 | 16 | AETH@12           | AFL
        0x12 | 24 | AETH@12 ATMACK@16 | AFL
        0x13 | 40 | ATMETH@12         | QFL
        0x14 | 40 | ATMETH@12         | QFL
        0x16 | 16 | IETH@12           | QLCP
        0x17 | 16 | IETH@12           | QFLWCP
        0x1C | 32 | FETH@12 RETH@16   | QFL
        0x1D | 28 | RETH@12           | QFLP
        0x20 | 12 |                   | QFWP
        0x21 | 12 |                   | QMP
        0x22 | 12 |                   | QLCP
        0x23 | 16 | IMMDT@12          | QLCP
        0x24 | 12 |                   | QFLWCP
        0x25 | 16 | IMMDT@12          | QFLWCP
        0x26 | 28 | RETH@12           | QFP
        0x27 | 12 |                   | QMP
        0x28 | 12 |                   | QLP
        0x29 | 16 | IMMDT@12          | QLWCP
        0x2A | 28 | RETH@12           | QFLP
        0x2B | 32 | RETH@12 IMMDT@28  | QFLWCP
        0x64 | 20 | DETH@12           | QFLWCP
        0x65 | 24 | DETH@12 IMMDT@20  | QFLWCP
        """)
    void shouldMatchRxeOpcodeFacts(String opcodeHex, int length, String headers, String mask) {
        int op = Integer.decode(opcodeHex);
        assertThat(isKnown(op)).isTrue();
        assertThat(headerLength(op)).isEqualTo(length);
        Map<Integer, Integer> expected = new HashMap<>();
        if (headers != null) {
            for (String h : headers.trim().split(" +")) {
                String[] p = h.split("@");
                expected.put(HEADER.get(p[0]), Integer.parseInt(p[1]));
            }
        }
        for (Map.Entry<String, Integer> h : HEADER.entrySet()) {
            int flag = h.getValue();
            assertThat(offset(op, flag)).as(h.getKey()).isEqualTo(expected.getOrDefault(flag, -1));
            assertThat(has(op, flag)).as(h.getKey()).isEqualTo(expected.containsKey(flag));
        }
        assertThat(has(op, REQUEST)).isEqualTo(mask.contains("Q"));
        assertThat(has(op, RESPONSE)).isEqualTo(mask.contains("A"));
        assertThat(has(op, FIRST)).isEqualTo(mask.contains("F"));
        assertThat(has(op, MIDDLE)).isEqualTo(mask.contains("M"));
        assertThat(has(op, LAST)).isEqualTo(mask.contains("L"));
        assertThat(has(op, CONSUMES_RECV_WQE)).isEqualTo(mask.contains("W"));
        assertThat(has(op, COMPLETES)).isEqualTo(mask.contains("C"));
        assertThat(has(op, HAS_PAYLOAD)).isEqualTo(mask.contains("P"));
        assertThat(has(op, IMMEDIATE)).isEqualTo(has(op, HAS_IMMDT));
        assertThat(has(op, INVALIDATE)).isEqualTo(has(op, HAS_IETH));
    }

    private static final Map<String, Integer> HEADER = new LinkedHashMap<>();

    static {
        HEADER.put("RDETH", HAS_RDETH);
        HEADER.put("DETH", HAS_DETH);
        HEADER.put("RETH", HAS_RETH);
        HEADER.put("ATMETH", HAS_ATMETH);
        HEADER.put("AETH", HAS_AETH);
        HEADER.put("ATMACK", HAS_ATMACK);
        HEADER.put("IMMDT", HAS_IMMDT);
        HEADER.put("IETH", HAS_IETH);
        HEADER.put("FETH", HAS_FETH);
    }

    @Test
    void shouldKnowExactlyTheRcUcUdAndCnpOpcodes() {
        int known = 0;
        for (int op = 0; op < 256; op++) {
            if (isKnown(op)) {
                known++;
                int type = flags(op) & (TYPE_RC | TYPE_UC | TYPE_UD | TYPE_CNP | TYPE_SRD);
                int expected = switch (Opcodes.transport(op)) {
                    case Opcodes.TRANSPORT_RC -> TYPE_RC;
                    case Opcodes.TRANSPORT_UC -> TYPE_UC;
                    case Opcodes.TRANSPORT_UD -> TYPE_UD;
                    case Opcodes.TRANSPORT_CNP -> TYPE_CNP;
                    case Opcodes.TRANSPORT_SRD -> TYPE_SRD;
                    default -> -1;
                };
                assertThat(type).as(Opcodes.name(op)).isEqualTo(expected);
                assertThat(Opcodes.name(op)).doesNotStartWith("Unknown");
            } else {
                assertThat(flags(op)).isZero();
                assertThat(headerLength(op)).isZero();
                assertThat(Opcodes.name(op)).isEqualTo(String.format("Unknown OpCode 0x%02X", op));
            }
        }
        assertThat(known).isEqualTo(25 + 12 + 2 + 1 + 8);
        assertThat(isKnown(0x15)).as("reserved RC opcode").isFalse();
        assertThat(isKnown(0x40)).as("RD is not implemented").isFalse();
        for (int op = Opcodes.SRD_RESERVED_FIRST; op <= Opcodes.SRD_RESERVED_LAST; op++) {
            assertThat(isKnown(op)).as("0x%02X", op).isEqualTo(op <= Opcodes.SRD_NAK);
        }
    }

    @Test
    void shouldDescribeCnpAsBthPlusSixteenReservedBytesWithoutPayload() {
        assertThat(headerLength(Opcodes.CNP)).isEqualTo(28);
        assertThat(flags(Opcodes.CNP)).isEqualTo(TYPE_CNP);
    }

    @Test
    void shouldClassifyOperations() {
        assertThat(has(Opcodes.RC_SEND_MIDDLE, SEND)).isTrue();
        assertThat(has(Opcodes.UC_RDMA_WRITE_LAST, WRITE)).isTrue();
        assertThat(has(Opcodes.RC_RDMA_READ_REQUEST, READ)).isTrue();
        assertThat(has(Opcodes.RC_RDMA_READ_RESPONSE_MIDDLE, READ)).as("rxe: responses are ACK only").isFalse();
        assertThat(has(Opcodes.RC_FETCH_ADD, ATOMIC)).isTrue();
        assertThat(has(Opcodes.RC_FLUSH, FLUSH)).isTrue();
        assertThat(has(Opcodes.RC_ATOMIC_WRITE, ATOMIC_WRITE)).isTrue();
        assertThat(has(Opcodes.RC_ATOMIC_WRITE, ATOMIC)).isFalse();
        assertThat(has(Opcodes.RC_SEND_ONLY, ONLY)).isTrue();
        assertThat(has(Opcodes.RC_SEND_FIRST, ONLY)).isFalse();
        int longest = 0;
        for (int op = 0; op < 256; op++) {
            longest = Math.max(longest, headerLength(op));
        }
        assertThat(MAX_HEADER_LENGTH).isEqualTo(longest).isEqualTo(headerLength(Opcodes.SRD_WRITE_WITH_IMM));
    }

    @Test
    void shouldRejectAnOffsetQueryForSomethingOtherThanOneHeader() {
        assertThatThrownBy(() -> offset(Opcodes.RC_SEND_ONLY, HAS_PAYLOAD)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> offset(Opcodes.RC_SEND_ONLY, HAS_RETH | HAS_AETH))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> offset(Opcodes.RC_SEND_ONLY, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldNameOpcodesAsWiresharkDoes() {
        assertThat(Opcodes.name(Opcodes.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE)).isEqualTo("RC RDMA Write Only Immediate");
        assertThat(Opcodes.name(Opcodes.RC_SEND_ONLY_WITH_INVALIDATE)).isEqualTo("RC Send Only Invalidate");
        assertThat(Opcodes.name(Opcodes.UD_SEND_ONLY)).isEqualTo("UD Send Only");
        assertThat(Opcodes.name(0x100 | Opcodes.RC_ACKNOWLEDGE)).isEqualTo("RC Acknowledge");
        assertThat(OpcodeTable.name(Opcodes.CNP)).isEqualTo("CNP");
    }
}
