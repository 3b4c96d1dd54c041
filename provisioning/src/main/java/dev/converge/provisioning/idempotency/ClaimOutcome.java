package dev.converge.provisioning.idempotency;

/** What claiming an idempotency key came to. */
public sealed interface ClaimOutcome {

    /** The caller owns the key now: do the work, then complete or release it. */
    record Claimed() implements ClaimOutcome {
    }

    /** The key already has a final response for this same request: replay it. */
    record Replay(StoredResponse response) implements ClaimOutcome {
    }

    /** Another request with this key is still being processed. */
    record InFlight() implements ClaimOutcome {
    }

    /** The key was used for a different request. */
    record Mismatch() implements ClaimOutcome {
    }
}
