package dev.converge.claim;

import java.time.Instant;

/**
 * What one of the fleet's leader tasks last did (see {@code Converge.leaderRounds}).
 *
 * @param task          {@code retention}, {@code reaper}, {@code watchdog}, {@code recurring},
 *                      {@code fleet} or {@code history}
 * @param nodeId        the node that ran its last recorded round
 * @param roundAt       when (a round that changes nothing is recorded at most every 30 s)
 * @param outcome       {@code ok} or {@code failed}
 * @param detail        what the round did, or why it failed; null when it changed nothing
 * @param changedAt     the last round that changed something; null if none has
 * @param changedDetail what that round did
 */
public record LeaderRound(String task, String nodeId, Instant roundAt, String outcome, String detail,
        Instant changedAt, String changedDetail) {
}
