package dev.jrxe.tools;

/**
 * Text form of a 16-byte GID as glibc's {@code inet_ntop(AF_INET6)} writes it, which is what
 * ibv_devinfo and ibv_rc_pingpong print: lower-case hex words without leading zeros, the longest
 * run (first on a tie) of two or more zero words as "::", and an embedded IPv4 address as a dotted
 * quad for the {@code ::a.b.c.d} and {@code ::ffff:a.b.c.d} forms.
 */
final class Inet6Text {
    private Inet6Text() {
    }

    static String ntop(byte[] raw) {
        if (raw.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + raw.length);
        }
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) {
            w[i] = (raw[2 * i] & 0xFF) << 8 | raw[2 * i + 1] & 0xFF;
        }
        int bestBase = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (w[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && w[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestBase = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2) {
            bestBase = -1;
        }
        StringBuilder sb = new StringBuilder(40);
        for (int i = 0; i < 8; i++) {
            if (i == bestBase) {
                sb.append(':');
                i += bestLen - 1;
                if (i == 7) {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0) {
                sb.append(':');
            }
            boolean embeddedV4 = i == 6 && bestBase == 0 && (bestLen == 6 || bestLen == 5 && w[5] == 0xFFFF);
            if (embeddedV4) {
                sb.append(raw[12] & 0xFF).append('.').append(raw[13] & 0xFF).append('.')
                    .append(raw[14] & 0xFF).append('.').append(raw[15] & 0xFF);
                break;
            }
            sb.append(Integer.toHexString(w[i]));
        }
        return sb.toString();
    }
}
