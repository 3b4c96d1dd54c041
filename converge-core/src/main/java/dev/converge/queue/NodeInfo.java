package dev.converge.queue;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.TreeSet;
import java.util.Map;
import java.util.Set;

/**
 * One engine node of the fleet, as it last recorded itself: a running node writes its row every
 * heartbeat interval and deletes it when it stops.
 *
 * @param nodeId    the node's id ({@code Converge.Builder.nodeId})
 * @param version   the version it runs ({@code Converge.Builder.nodeVersion}; the engine's own by default)
 * @param queues    the queues it works, with their concurrency, in the order it was given them
 * @param jobTypes  the job types it has handlers for (the only ones it leases), sorted
 * @param startedAt when it started, by the database clock
 * @param lastSeen  its last heartbeat, by the database clock
 * @param live      whether that heartbeat is recent (within three heartbeat intervals of the
 *                  reading node); a node killed without stopping stays listed, not live, until
 *                  the leader deletes its row
 */
public record NodeInfo(String nodeId, String version, Map<String, Integer> queues, Set<String> jobTypes,
        Instant startedAt, Instant lastSeen, boolean live) {
    public NodeInfo {
        // in the node's own order (queues as configured, types sorted): a listing reads the same every time
        queues = Collections.unmodifiableMap(new LinkedHashMap<>(queues));
        jobTypes = Collections.unmodifiableSet(new TreeSet<>(jobTypes));
    }
}
