package dev.converge.recurring;

import java.time.Instant;

/**
 * The payload of a recurring job declared without one: which schedule, and which slot this run is for.
 *
 * @param schedule the recurring job's name
 * @param slot     the instant the run was due
 */
public record Occurrence(String schedule, Instant slot) {
}
