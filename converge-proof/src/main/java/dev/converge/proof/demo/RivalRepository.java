package dev.converge.proof.demo;

import dev.converge.ledger.LeafCallException;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.ResourceExists;
import dev.converge.provisioning.leaf.GitHostDriver;

/**
 * The demo's "another customer of the git host takes the repository name first": a repository of
 * that name, not ours, created at the git host before the site is requested. The git host is the
 * demo's faulting one, so the create is retried (a timeout may have taken effect: "already exists"
 * then means the name is taken) and a fault never ends the run.
 */
final class RivalRepository {
    static final String DESCRIPTION = "another customer's repository";

    private final GitHostDriver gitHost;
    private final java.util.Map<String, dev.converge.ledger.LeafResource> taken = new java.util.concurrent.ConcurrentHashMap<>();

    RivalRepository(GitHostDriver gitHost) {
        this.gitHost = gitHost;
    }

    static final int ATTEMPTS = 20;

    /** Makes the name taken at the git host; false if the git host would not have it (the site then provisions). */
    boolean take(String name) {
        return retried(() -> {
            try {
                taken.put(name, gitHost.create(name, DESCRIPTION, null));
                return true;
            } catch (ResourceExists e) {
                return true; // an earlier attempt's create went through before its answer was lost
            } catch (LeafRejected e) {
                if (!e.isTransient()) {
                    return false;
                }
                throw e;
            }
        });
    }

    /**
     * The other customer gives the name up: its repository is deleted at the git host (retried
     * through faults; a delete is safe to repeat). False if it could not be, or was never taken here.
     */
    boolean release(String name) {
        return retried(() -> {
            dev.converge.ledger.LeafResource r = taken.get(name);
            if (r == null) {
                r = gitHost.find(name).orElse(null);
            }
            if (r != null) {
                gitHost.delete(r.leafId());
                taken.remove(name);
            }
            return true;
        });
    }

    /**
     * The call's answer, asked again through leaf faults (no answer, a reset, a malformed reply, a
     * transient refusal), backing off, at most {@link #ATTEMPTS} times; false if it never answered.
     */
    private static boolean retried(java.util.function.BooleanSupplier call) {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                return call.getAsBoolean();
            } catch (LeafCallException e) {
                // a fault: try again
            }
            try {
                Thread.sleep(Math.min(1000, 100L * attempt));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }
}
