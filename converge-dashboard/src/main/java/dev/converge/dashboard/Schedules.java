package dev.converge.dashboard;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/** A recurring job's schedule as a person reads it: "every 10 min", "cron 0 3 * * * (Europe/Madrid)". */
final class Schedules {
    private Schedules() {
    }

    static String words(String described) {
        if (described == null) {
            return "";
        }
        if (described.startsWith("every ")) {
            try {
                return "every " + duration(Duration.parse(described.substring(6)));
            } catch (DateTimeParseException e) {
                return described;
            }
        }
        if (described.startsWith("cron ")) {
            int zone = described.lastIndexOf(' ');
            return zone > 5 ? described.substring(0, zone) + " (" + described.substring(zone + 1) + ")" : described;
        }
        return described;
    }

    /** 90 s as "1 min 30 s", 1 h as "1 h", 1 day as "1 day". */
    static String duration(Duration d) {
        if (d.isZero() || d.isNegative()) {
            return d.toString();
        }
        StringBuilder out = new StringBuilder();
        long days = d.toDays();
        if (days > 0) {
            out.append(days).append(days == 1 ? " day" : " days");
        }
        append(out, d.toHoursPart(), "h");
        append(out, d.toMinutesPart(), "min");
        append(out, d.toSecondsPart(), "s");
        append(out, d.toMillisPart(), "ms");
        return out.toString();
    }

    private static void append(StringBuilder out, long n, String unit) {
        if (n > 0) {
            out.append(out.length() == 0 ? "" : " ").append(n).append(' ').append(unit);
        }
    }
}
