package dev.converge.provisioning.api;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.EstimationProbe;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Failed authentications counted per client address, in a Bucket4j bucket each: an address that has
 * failed {@code perMinute} times within the minute is refused before its token is looked at, so a
 * flood of made-up tokens costs no database work and cannot slow anyone else. Only failures count:
 * a client whose token is good is never limited here (its tenant's write rate applies). IPv6
 * addresses count by their /64, the block one customer is usually given. At most
 * {@link #MAX_ADDRESSES} addresses are remembered, least recently failed forgotten first.
 */
final class AuthFailures {
    static final int DEFAULT_PER_MINUTE = 30;
    static final int MAX_ADDRESSES = 100_000;

    private final int perMinute;
    private final Map<String, Bucket> buckets = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
            return size() > MAX_ADDRESSES;
        }
    };

    AuthFailures(int perMinute) {
        if (perMinute < 1) {
            throw new IllegalArgumentException("failed authentications a minute must be at least 1");
        }
        this.perMinute = perMinute;
    }

    /** Seconds the address must wait before its token is looked at again; empty when it may go on. */
    OptionalLong refusal(String address) {
        Bucket b;
        synchronized (buckets) {
            b = buckets.get(key(address));
        }
        if (b == null) {
            return OptionalLong.empty();
        }
        EstimationProbe probe = b.estimateAbilityToConsume(1);
        return probe.canBeConsumed() ? OptionalLong.empty()
                : OptionalLong.of(Math.max(1, Duration.ofNanos(probe.getNanosToWaitForRefill()).toSeconds() + 1));
    }

    /** Counts one failed authentication from the address. */
    void failed(String address) {
        Bucket b;
        synchronized (buckets) {
            // whole minutes, not a trickle: an address that used its failures waits, then gets them all back
            b = buckets.computeIfAbsent(key(address), k -> Bucket.builder().addLimit(l -> l.capacity(perMinute)
                    .refillIntervally(perMinute, Duration.ofMinutes(1))).build());
        }
        b.tryConsume(1);
    }

    /** An IPv4 address as it is; an IPv6 address by its /64; anything unparsable as the text it is. */
    static String key(String address) {
        if (address == null) {
            return "";
        }
        if (address.indexOf(':') < 0) {
            return address;
        }
        try {
            byte[] raw = InetAddress.getByName(address.startsWith("[") ? address.substring(1, address.length() - 1)
                    : address).getAddress();
            if (raw.length == 16) {
                for (int i = 8; i < 16; i++) {
                    raw[i] = 0;
                }
                return InetAddress.getByAddress(raw).getHostAddress() + "/64";
            }
            return InetAddress.getByAddress(raw).getHostAddress();
        } catch (UnknownHostException e) {
            return address;
        }
    }
}
