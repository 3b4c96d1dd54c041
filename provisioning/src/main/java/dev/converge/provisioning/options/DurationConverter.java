package dev.converge.provisioning.options;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads durations as people write them: 500ms, 90s, 10m, 2h, 30d. */
public final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        String v = value.trim().toLowerCase();
        try {
            if (v.endsWith("ms")) {
                return positive(Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2))), value);
            }
            long n = Long.parseLong(v.substring(0, v.length() - 1));
            return switch (v.charAt(v.length() - 1)) {
                case 's' -> positive(Duration.ofSeconds(n), value);
                case 'm' -> positive(Duration.ofMinutes(n), value);
                case 'h' -> positive(Duration.ofHours(n), value);
                case 'd' -> positive(Duration.ofDays(n), value);
                default -> throw new TypeConversionException("not a duration (use 500ms, 90s, 10m, 2h, 30d): " + value);
            };
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new TypeConversionException("not a duration (use 500ms, 90s, 10m, 2h, 30d): " + value);
        }
    }

    private static Duration positive(Duration d, String value) {
        if (d.isNegative() || d.isZero()) {
            throw new TypeConversionException("duration must be positive: " + value);
        }
        return d;
    }
}
