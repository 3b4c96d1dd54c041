package dev.converge.provisioning.logging;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Logback's own JSON lines, with the {@code timestamp} an ISO-8601 instant ({@code
 * 2026-12-05T17:36:02.123Z}) instead of epoch milliseconds: log shippers and people read it
 * without being told the unit. Logback's encoder has no option for it, so the one field is written
 * here, first, and the rest is Logback's.
 */
public final class IsoJsonEncoder extends JsonEncoder {
    private static final byte[] OPEN = "{\"timestamp\":\"".getBytes(StandardCharsets.US_ASCII);

    public IsoJsonEncoder() {
        setWithTimestamp(false);
    }

    @Override
    public void setWithTimestamp(boolean ignored) {
        super.setWithTimestamp(false); // written by encode
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        byte[] rest = super.encode(event); // "{...}\n", without a timestamp
        byte[] instant = Instant.ofEpochMilli(event.getTimeStamp()).toString().getBytes(StandardCharsets.US_ASCII);
        boolean empty = rest.length > 1 && rest[1] == '}';
        byte[] out = new byte[OPEN.length + instant.length + (empty ? 1 : 2) + rest.length - 1];
        int at = 0;
        System.arraycopy(OPEN, 0, out, at, OPEN.length);
        at += OPEN.length;
        System.arraycopy(instant, 0, out, at, instant.length);
        at += instant.length;
        out[at++] = '"';
        if (!empty) {
            out[at++] = ',';
        }
        System.arraycopy(rest, 1, out, at, rest.length - 1);
        return out;
    }
}
