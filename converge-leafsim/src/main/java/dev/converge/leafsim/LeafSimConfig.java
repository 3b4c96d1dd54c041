package dev.converge.leafsim;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How a {@link LeafSim} runs: port, fault seed, one bearer token per leaf, an optional control
 * token, and the bounds of its held answers. Immutable and validated on build; {@link #toString()}
 * never shows a token.
 */
public final class LeafSimConfig {
    private final String host;
    private final int port;
    private final long seed;
    private final Map<String, String> tokens;
    private final String controlToken;
    private final Duration defaultHang;
    private final Duration idempotencyRetention;
    private final Clock clock;

    private LeafSimConfig(Builder b) {
        this.host = b.host;
        this.port = b.port;
        this.seed = b.seed;
        this.tokens = Map.copyOf(b.tokens);
        this.controlToken = b.controlToken;
        this.defaultHang = b.defaultHang;
        this.idempotencyRetention = b.idempotencyRetention;
        this.clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Defaults: loopback, random port, seed 42, token {@code dev-<leaf>-token} per leaf, open control API. */
    public static LeafSimConfig defaults() {
        return builder().build();
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public long seed() {
        return seed;
    }

    /** The bearer token a leaf requires. */
    public String token(String leaf) {
        return tokens.get(leaf);
    }

    /** Null when the control API is open. */
    public String controlToken() {
        return controlToken;
    }

    public Duration defaultHang() {
        return defaultHang;
    }

    public Duration idempotencyRetention() {
        return idempotencyRetention;
    }

    /** Timestamps in inventories and idempotency-key retention are read from this clock. */
    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "LeafSimConfig[host=" + host + ", port=" + port + ", seed=" + seed + ", tokens=<redacted>"
                + ", controlToken=" + (controlToken == null ? "none" : "<redacted>") + ", defaultHang=" + defaultHang
                + ", idempotencyRetention=" + idempotencyRetention + "]";
    }

    public static final class Builder {
        private String host = "127.0.0.1";
        private int port = 0;
        private long seed = 42;
        private final Map<String, String> tokens = new LinkedHashMap<>();
        private String controlToken;
        private Duration defaultHang = Duration.ofSeconds(10);
        private Duration idempotencyRetention = Duration.ofHours(24);
        private Clock clock = Clock.systemUTC();

        private Builder() {
            for (String leaf : LeafSim.LEAVES) {
                tokens.put(leaf, "dev-" + leaf + "-token");
            }
        }

        public Builder host(String value) {
            this.host = Objects.requireNonNull(value);
            return this;
        }

        /** 0 picks a free port. */
        public Builder port(int value) {
            this.port = value;
            return this;
        }

        public Builder seed(long value) {
            this.seed = value;
            return this;
        }

        public Builder token(String leaf, String token) {
            if (!LeafSim.LEAVES.contains(leaf)) {
                throw new IllegalArgumentException("unknown leaf '" + leaf + "', expected one of " + LeafSim.LEAVES);
            }
            tokens.put(leaf, requireToken(token));
            return this;
        }

        /** The same token for every leaf. */
        public Builder tokenForAll(String token) {
            LeafSim.LEAVES.forEach(leaf -> token(leaf, token));
            return this;
        }

        public Builder controlToken(String token) {
            this.controlToken = token == null ? null : requireToken(token);
            return this;
        }

        public Builder defaultHang(Duration value) {
            this.defaultHang = Objects.requireNonNull(value);
            return this;
        }

        public Builder idempotencyRetention(Duration value) {
            this.idempotencyRetention = Objects.requireNonNull(value);
            return this;
        }

        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value);
            return this;
        }

        public LeafSimConfig build() {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be within 0..65535: " + port);
            }
            if (defaultHang.isNegative() || defaultHang.compareTo(Duration.ofMinutes(5)) > 0) {
                throw new IllegalArgumentException("defaultHang must be within 0..5 minutes: " + defaultHang);
            }
            if (idempotencyRetention.isNegative() || idempotencyRetention.isZero()) {
                throw new IllegalArgumentException("idempotencyRetention must be positive");
            }
            return new LeafSimConfig(this);
        }

        private static String requireToken(String token) {
            if (token == null || token.isBlank() || token.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("a token must be non-blank and without whitespace");
            }
            return token;
        }
    }

    /** Parses {@code --port P --seed S --token T | --token leaf=T --control-token T}. */
    public static LeafSimConfig fromArgs(String... args) {
        Builder b = builder().port(8089);
        List<String> list = List.of(args);
        for (int i = 0; i < list.size(); i++) {
            String flag = list.get(i);
            if (i + 1 >= list.size()) {
                throw new IllegalArgumentException("missing value after " + flag);
            }
            String value = list.get(++i);
            switch (flag) {
                case "--port" -> b.port(Integer.parseInt(value));
                case "--seed" -> b.seed(Long.parseLong(value));
                case "--host" -> b.host(value);
                case "--control-token" -> b.controlToken(value);
                case "--token" -> {
                    int eq = value.indexOf('=');
                    if (eq > 0 && LeafSim.LEAVES.contains(value.substring(0, eq))) {
                        b.token(value.substring(0, eq), value.substring(eq + 1));
                    } else {
                        b.tokenForAll(value);
                    }
                }
                default -> throw new IllegalArgumentException(
                        "unknown option " + flag + " (expected --port, --seed, --host, --token, --control-token)");
            }
        }
        return b.build();
    }
}
