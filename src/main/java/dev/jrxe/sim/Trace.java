package dev.jrxe.sim;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The digest of a run: every datagram sent (when, from, to, its bytes) and every completion the
 * workload saw (when, where, what). Two runs with the same digest did the same thing.
 */
final class Trace {
    private final MessageDigest sha;
    private final byte[] word = new byte[8];
    long events;

    Trace() {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void put(long v) {
        for (int i = 0; i < 8; i++) {
            word[i] = (byte) (v >>> (56 - 8 * i));
        }
        sha.update(word);
    }

    void datagram(long time, long seq, int src, int dst, byte[] bytes) {
        events++;
        put(time);
        put(seq);
        put((long) src << 32 | (dst & 0xFFFFFFFFL));
        put(bytes.length);
        sha.update(bytes);
    }

    void completion(long time, int device, int qpn, long wrId, int status, int opcode, int byteLen) {
        events++;
        put(time);
        put((long) device << 32 | qpn);
        put(wrId);
        put((long) status << 40 | (long) opcode << 32 | (byteLen & 0xFFFFFFFFL));
    }

    /** The digest so far (hex), without ending the trace. */
    String digest() {
        try {
            return HexFormat.of().formatHex(((MessageDigest) sha.clone()).digest());
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }
}
