package dev.jrxe.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class Inet6TextTest {
    private static String ntop(String hex) {
        return Inet6Text.ntop(HexFormat.of().parseHex(hex));
    }

    @Test
    void shouldPrintIpv4MappedGidAsDottedQuad() {
        assertThat(ntop("00000000000000000000ffff7f000002")).isEqualTo("::ffff:127.0.0.2");
        assertThat(ntop("00000000000000000000ffff0a4d0002")).isEqualTo("::ffff:10.77.0.2");
    }

    @Test
    void shouldPrintLinkLocalGidLikeRxeCapture() {
        // GID[0] of rxe0 in ../shared/captures/rxe-ibv_devinfo-v.txt
        assertThat(ntop("fe80000000000000505400fffe4d0002")).isEqualTo("fe80::5054:ff:fe4d:2");
    }

    @Test
    void shouldPrintZeroGidAsDoubleColon() {
        assertThat(ntop("00000000000000000000000000000000")).isEqualTo("::");
    }

    @Test
    void shouldCompressOnlyTheFirstOfEqualLongestZeroRuns() {
        assertThat(ntop("00010000000000020000000000030004")).isEqualTo("1::2:0:0:3:4");
        assertThat(ntop("00010000000200000000000000000003")).isEqualTo("1:0:2::3");
    }

    @Test
    void shouldNotCompressASingleZeroWord() {
        assertThat(ntop("00010000000200030004000500060007")).isEqualTo("1:0:2:3:4:5:6:7");
    }

    @Test
    void shouldCompressTrailingAndLeadingRuns() {
        assertThat(ntop("00010000000000000000000000000000")).isEqualTo("1::");
        assertThat(ntop("00000000000000000000000000000001")).isEqualTo("::1");
        assertThat(ntop("000000000000000000000000c0a80001")).isEqualTo("::192.168.0.1");
    }

    @Test
    void shouldRejectWrongLength() {
        assertThatThrownBy(() -> Inet6Text.ntop(new byte[4])).isInstanceOf(IllegalArgumentException.class);
    }
}
