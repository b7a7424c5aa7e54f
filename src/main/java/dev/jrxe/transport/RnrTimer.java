package dev.jrxe.transport;

/** The IBTA RNR NAK timer encoding (5-bit code to microseconds), as rxe's {@code rnrnak_usec}. */
public final class RnrTimer {
    private static final int[] MICROS = {
        655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920, 2560, 3840,
        5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680,
        491520,
    };

    private RnrTimer() {
    }

    public static long nanos(int code) {
        return MICROS[code & 31] * 1000L;
    }

    /** Local ACK timeout: 4.096 µs × 2^timeout; 0 means no timer (returns 0). */
    public static long ackTimeoutNanos(int timeout) {
        if (timeout == 0) {
            return 0;
        }
        return 4096L << Math.min(timeout, 31);
    }
}
