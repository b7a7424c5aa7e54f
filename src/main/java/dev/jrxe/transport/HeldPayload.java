package dev.jrxe.transport;

import dev.jrxe.memory.SendHold;
import dev.jrxe.net.PayloadRelease;

/**
 * The payload memory of one link buffer's datagram, held while the link sends it by reference:
 * the bridge between the link's release and the memory's hold. One per link buffer, for good.
 */
final class HeldPayload implements PayloadRelease {
    final SendHold hold = new SendHold();

    @Override
    public void releasePayload() {
        hold.release();
    }
}
