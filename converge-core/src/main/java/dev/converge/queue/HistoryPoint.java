package dev.converge.queue;

import java.time.Duration;
import java.time.Instant;

/**
 * What one queue did in one step of time, summed over every node of the fleet (see
 * {@code Converge.history}). Times are read from fixed buckets (10 ms, 50 ms, 250 ms, 1 s, 5 s,
 * 30 s, 2 min, 10 min), so a p95 is the upper bound of the bucket that holds it; one longer than
 * ten minutes reads as one hour.
 *
 * @param at        the step's start
 * @param step      its length
 * @param succeeded deliveries that succeeded in it
 * @param failed    deliveries that failed for good
 * @param retried   deliveries that failed and were put back for another attempt
 * @param depth     the most jobs due and waiting for a worker at a sample in the step; null when
 *                  none was taken (no leader was running)
 * @param running   the most jobs running at a sample in the step; null when none was taken
 * @param waitP95   how long jobs waited from due to start, 95th percentile; null if none started
 * @param runP95    how long handlers ran, 95th percentile; null if none ran
 */
public record HistoryPoint(Instant at, Duration step, long succeeded, long failed, long retried, Integer depth,
        Integer running, Duration waitP95, Duration runP95) {
}
