package dev.converge.recurring;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * Slots of a Unix cron expression, parsed and evaluated by cron-utils (an optional dependency of
 * the engine: this class is loaded only when a cron schedule is declared).
 */
final class CronSchedule {
    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime execution;

    private CronSchedule(String expression, ZoneId zone, ExecutionTime execution) {
        this.expression = expression;
        this.zone = zone;
        this.execution = execution;
    }

    static CronSchedule parse(String expression, ZoneId zone) {
        Objects.requireNonNull(zone, "zone");
        if (expression == null || expression.isBlank() || expression.length() > 200) {
            throw new IllegalArgumentException("a cron expression must be 1-200 characters");
        }
        Cron cron;
        try {
            cron = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX)).parse(expression).validate();
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException("cron schedules need com.cronutils:cron-utils on the classpath", e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a five-field cron expression '" + expression + "': " + e.getMessage(), e);
        }
        return new CronSchedule(expression, zone, ExecutionTime.forCron(cron));
    }

    public Instant latestAtOrBefore(Instant t) {
        ZonedDateTime at = t.truncatedTo(ChronoUnit.SECONDS).atZone(zone);
        // nextExecution is strictly after its argument: one second earlier finds a slot exactly at t
        ZonedDateTime next = execution.nextExecution(at.minusSeconds(1)).orElse(null);
        if (next != null && !next.isAfter(at)) {
            return next.toInstant();
        }
        return execution.lastExecution(at).map(ZonedDateTime::toInstant).orElse(null);
    }

    public Instant nextAfter(Instant t) {
        return execution.nextExecution(t.atZone(zone)).map(ZonedDateTime::toInstant).orElse(null);
    }

    public String describe() {
        return "cron " + expression + " " + zone;
    }
}
