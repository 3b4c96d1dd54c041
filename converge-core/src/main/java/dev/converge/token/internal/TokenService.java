package dev.converge.token.internal;

import dev.converge.store.internal.Dialects;
import dev.converge.token.StepTokens;
import dev.converge.token.Token;
import dev.converge.token.TokenLookup;
import dev.converge.token.TokenOperation;
import dev.converge.token.TokenState;
import dev.converge.token.TokenUse;
import dev.converge.token.Tokens;
import dev.converge.crash.CrashPoint;
import dev.converge.flow.internal.FlowService;
import dev.converge.lease.LeaseLost;
import dev.converge.ledger.AmbiguousOutcome;
import dev.converge.ledger.ClaimHeld;
import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.OutcomeUnknown;
import dev.converge.queue.JobCancelledException;
import dev.converge.queue.Delivery;
import dev.converge.queue.NonRetryableException;
import dev.converge.queue.internal.EngineRuntime;
import dev.converge.store.TransactionGuard;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pools of single-use tokens (R11). A token has an owner for its whole life: a delivery checks it
 * out, marks its use as started, performs the operation it permits once, and spends it; on a
 * definitive failure it gives it back. Every step is fenced by the delivery's lease, so a stale
 * worker cannot spend, or give back, a token that is no longer its own. Obtained from
 * {@code engine.tokens()}.
 */
public final class TokenService implements Tokens {
    private static final Logger log = LoggerFactory.getLogger(Tokens.class);

    /** The payload of the job that settles one abandoned, used token. */
    public record TokenRef(long tokenId) {
    }

    public static final String RESOLVE_KIND = "converge.token.resolve";

    private static final int REAP_PAGE = 200;
    private static final int REAP_PAGES_PER_PASS = 10;

    private final EngineRuntime rt;
    private final java.util.concurrent.atomic.AtomicLong reapCursor = new java.util.concurrent.atomic.AtomicLong();
    private final TokenStore store;
    private final FlowService flows;
    private final java.util.Map<String, TokenLookup> lookups = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.function.Function<dev.converge.queue.Job<?>, Long> enqueue;
    private final dev.converge.queue.JobType<TokenRef> resolveType;

    public TokenService(EngineRuntime rt, FlowService flows, java.util.function.Function<dev.converge.queue.Job<?>, Long> enqueue,
            String systemQueue) {
        this.rt = rt;
        this.store = new TokenStore(Dialects.forUrl(rt.store().config().url(), rt.store().config().schema()));
        this.flows = flows;
        this.enqueue = enqueue;
        this.resolveType = resolveType(systemQueue);
    }

    public static dev.converge.queue.JobType<TokenRef> resolveType(String queue) {
        return dev.converge.queue.JobType.of(RESOLVE_KIND, TokenRef.class).withQueue(queue)
                .withRetry(dev.converge.queue.RetryPolicy.attempts(10).backoff(Duration.ofSeconds(1))
                        .cappedAt(Duration.ofMinutes(1)));
    }

    /** How the reaper asks the leaf whether a token of this pool was used. */
    public void resolveWith(String pool, TokenLookup lookup) {
        lookups.put(pool, lookup);
    }

    private Instant now() {
        return rt.store().clock().sqlNow();
    }

    /** The instant the store's writes stamp as now: the database's clock unless a test clock is bound. */
    private Instant clockNow() {
        Instant bound = now();
        return bound != null ? bound : rt.store().withConnection(c -> rt.jobs().databaseNow(c));
    }

    /** Adds a token to a pool, bound to a subject (or null for any); false if the pool already has it. */
    public boolean add(String pool, String token, String subject) {
        validate(pool, token);
        return rt.store().withConnection(c -> store.add(c, pool, token, subject, now()));
    }

    /** Adds a token in the caller's transaction (e.g. with the row it permits something for). */
    public boolean add(java.sql.Connection callerTransaction, String pool, String token, String subject) {
        validate(pool, token);
        try {
            return store.add(callerTransaction, pool, token, subject, now());
        } catch (java.sql.SQLException e) {
            throw new dev.converge.store.StoreException("adding a token failed", e);
        }
    }

    private static void validate(String pool, String token) {
        if (pool == null || pool.isBlank() || pool.length() > 200 || token == null || token.isBlank()
                || token.length() > 500) {
            throw new IllegalArgumentException("token pool (1-200) and value (1-500 characters) are required");
        }
    }

    public Optional<Token> forSubject(String pool, String subject) {
        return rt.store().withConnection(c -> store.bySubject(c, pool, subject));
    }

    /** Tokens of a pool by state, plus {@code used_unspent}: checked out, use started, not spent. */
    public Map<String, Long> counts(String pool) {
        return rt.store().withConnection(c -> store.counts(c, pool));
    }

    public List<Token> all(String pool) {
        return rt.store().withConnection(c -> store.all(c, pool));
    }

    /** Returns tokens checked out but never used by deliveries that ended; returns how many. */
    public int returnAbandoned(Duration olderThan) {
        return rt.store().withConnection(c -> store.returnAbandoned(c, olderThan.toMillis(), now()));
    }

    /**
     * The reaper's pass: returns unused tokens of ended owners, and schedules the settling of used
     * ones (their pool's lookup says whether the use happened: spent if so, given back if not).
     * Returns how many tokens it acted on.
     */
    public int reap(Duration olderThan) {
        int n = returnAbandoned(olderThan);
        // a page at a time from where the last pass stopped: tokens of pools without a lookup stay
        // used and unspent, and must not hide the ones behind them
        for (int page = 0; page < REAP_PAGES_PER_PASS; page++) {
            long after = reapCursor.get();
            List<Token> stale = rt.store().withConnection(c ->
                    store.staleUsed(c, olderThan.toMillis(), after, REAP_PAGE, now()));
            for (Token t : stale) {
                if (lookups.containsKey(t.pool())) {
                    enqueue.apply(dev.converge.queue.Job.of(resolveType, new TokenRef(t.id()))
                            .uniqueKey("token:resolve:" + t.id() + ":" + t.usedAt().toEpochMilli()));
                    n++;
                }
            }
            if (stale.size() < REAP_PAGE) {
                reapCursor.set(0); // reached the end: the next pass starts over
                break;
            }
            reapCursor.set(stale.get(stale.size() - 1).id());
        }
        return n;
    }

    /** The handler of the settling job: take the token over, then let the leaf decide. */
    public void onResolve(TokenRef ref, Delivery ctx) {
        // refused before the token is taken over: settling it means asking the leaf (R12)
        TransactionGuard.assertNoTransaction("settling token " + ref.tokenId());
        Optional<Token> found = rt.store().withConnection(c -> store.byId(c, ref.tokenId()));
        if (found.isEmpty() || found.get().state() != TokenState.CHECKED_OUT || found.get().usedAt() == null
                || ownerAlive(found.get())) {
            return;
        }
        Token t = found.get();
        TokenLookup lookup = lookups.get(t.pool());
        if (lookup == null) {
            return;
        }
        String owner = rt.nodeId() + "/job-" + ctx.jobId();
        Optional<Token> taken = rt.store().withConnection(c -> store.takeOverReturning(c, t, owner, ctx.lease(), now()));
        if (taken.isEmpty()) {
            return; // someone else moved it meanwhile
        }
        TransactionGuard.assertNoTransaction("lookup of pool " + t.pool());
        Instant asked = clockNow();
        Optional<Boolean> used = lookup.wasUsed(t.value());
        if (used.isPresent() && !used.get()) {
            holdWhileAbandonedUseMayLand(taken.get(), asked, lookup.abandonedUseWindow(), "the use of pool " + t.pool());
        }
        if (used.isEmpty()) {
            log.warn("token {} of pool {}: its use may have happened and the leaf cannot tell; left for a person",
                    t.id(), t.pool());
            return;
        }
        boolean settled = rt.store().withConnection(c -> used.get()
                ? store.markUsing(c, t.id(), ctx.lease(), now()) && store.spend(c, t.id(), ctx.lease(), now())
                : store.giveBack(c, t.id(), ctx.lease(), now()));
        if (!settled) {
            throw new LeaseLost(ctx.lease(), "settling token " + t.id() + " was refused");
        }
        log.info("token {} of pool {}: its abandoned use {}; {}", t.id(), t.pool(),
                used.get() ? "did happen" : "did not happen", used.get() ? "spent" : "given back");
    }

    /**
     * A person settles a token whose use is unknown (checked out, its use started, its owner gone
     * and the leaf unable to tell): {@code used} spends it, otherwise it is available again for
     * another use. Fenced by the token's state and owner: of two settlements at once, one applies,
     * and a stale delivery of the old owner can no longer spend or give it back.
     *
     * @return true if this call settled it; false if its use is not unknown (or its owner still runs)
     */
    public boolean settle(long tokenId, boolean used, String actor, String reason) {
        dev.converge.flow.ManualAction.validate(actor, reason);
        Token t = rt.store().withConnection(c -> store.byId(c, tokenId))
                .orElseThrow(() -> new java.util.NoSuchElementException("no token " + tokenId));
        if (t.state() != TokenState.CHECKED_OUT || t.usedAt() == null) {
            return false;
        }
        boolean won = rt.store().withConnection(c -> store.settle(c, t, used, now()));
        if (won) {
            log.info("token {} of pool {} settled by {}: {}; {}", t.id(), t.pool(), actor,
                    used ? "its use happened, spent" : "its use did not happen, available again", reason);
        }
        return won;
    }

    public Optional<Token> get(long tokenId) {
        return rt.store().withConnection(c -> store.byId(c, tokenId));
    }

    /**
     * Uses the subject's token of the pool for the operation, at most once. Returns the
     * operation's result, or {@code alreadySpent} if an earlier delivery spent it.
     */
    public <T> TokenUse<T> useOnce(Delivery ctx, String pool, String subject, TokenOperation<T> op) {
        TransactionGuard.assertNoTransaction("token operation " + op.name());
        Token t;
        Optional<Token> ready = Optional.empty();
        if (subject != null) {
            // the common case in one statement: checked out, its use started, the step not called off (R7)
            ctx.checkLease();
            ready = rt.store().withConnection(c -> store.checkoutForUse(c, pool, subject, ctx.batchId().orElse(null),
                    ctx.flowId().orElse(null), rt.nodeId() + "/job-" + ctx.jobId(), ctx.lease(), now()));
        }
        if (ready.isPresent()) {
            t = ready.get();
        } else {
            t = acquire(ctx, pool, subject, op);
            if (t.state() == TokenState.SPENT) {
                return new TokenUse<>(true, null, t);
            }
            if (ctx.cancelled()) {
                rt.store().withConnection(c -> store.giveBack(c, t.id(), ctx.lease(), now()));
                throw new JobCancelledException("cancelled before " + op.name() + " (R7); token given back");
            }
            ctx.checkLease();
            if (!rt.store().withConnection(c -> store.markUsing(c, t.id(), ctx.lease(), now()))) {
                throw new LeaseLost(ctx.lease(), "marking the use of token " + t.id() + " was refused");
            }
        }
        T result;
        try {
            // where an abandoned use can still land (see holdWhileAbandonedUseMayLand), the last check asks the
            // database: a node cut off from it may still trust its lease locally after another took the job over
            // early (its session ended), and its use must not pass the point of no return after that take-over
            Runnable lastCheck = op.abandonedUseWindow().isZero() ? ctx::checkLease : ctx::verifyLease;
            result = op.use(t.value(), lastCheck);
        } catch (LeafRejected r) {
            rt.store().withConnection(c -> store.giveBack(c, t.id(), ctx.lease(), now()));
            if (r.isTransient()) {
                throw r;
            }
            throw new NonRetryableException(r.getMessage(), r);
        } catch (AmbiguousOutcome a) {
            if (op.canTellIfUsed()) {
                throw a; // the next attempt asks the leaf before it uses the token again
            }
            throw unknown(ctx, op, a);
        }
        rt.crashPlan().reached(CrashPoint.AFTER_TOKEN_USE, ctx.lease());
        Optional<Token> spent = rt.store().withConnection(c -> store.spendReturning(c, t.id(), ctx.lease(), now()));
        if (spent.isEmpty()) {
            log.warn("token {} of pool {} was used by {} but spending it was refused: this delivery lost its lease",
                    t.id(), pool, op.name());
            throw new LeaseLost(ctx.lease(), "spending token " + t.id() + " was refused");
        }
        return new TokenUse<>(false, result, spent.get());
    }

    /** Checks the token out to this delivery, or finds it spent; resolves one left by a dead owner. */
    private <T> Token acquire(Delivery ctx, String pool, String subject, TokenOperation<T> op) {
        for (int round = 0; round < 5; round++) {
            Optional<Token> found = rt.store().withConnection(c -> {
                if (subject != null) {
                    return store.bySubject(c, pool, subject);
                }
                // without a subject, a retry comes back to the token an earlier delivery of this job
                // checked out or spent (its use may have happened): never a second one
                Optional<Token> earlier = store.ofJob(c, pool, ctx.jobId());
                return earlier.isPresent() ? earlier : store.firstAvailable(c, pool);
            });
            if (found.isEmpty()) {
                throw new NonRetryableException("no token in pool '" + pool + "'" + (subject == null ? "" : " for " + subject)
                        + ": the operation is not permitted");
            }
            Token t = found.get();
            if (t.state() == TokenState.SPENT) {
                return t;
            }
            ctx.checkLease();
            String owner = rt.nodeId() + "/job-" + ctx.jobId();
            boolean got;
            if (t.state() == TokenState.AVAILABLE) {
                // the checkout returns the token as it wrote it: no read after it
                Optional<Token> mine = rt.store().withConnection(c -> store.checkoutReturning(c, t.id(), owner, ctx.lease(),
                        now()));
                if (mine.isPresent()) {
                    return mine.get();
                }
                got = false;
            } else if (mine(t, ctx)) {
                return t;
            } else if (ownerAlive(t)) {
                throw new ClaimHeld("token " + t.id() + " of pool " + pool + " is in use by job " + t.ownerJobId());
            } else if (t.usedAt() == null) {
                Optional<Token> mine = rt.store().withConnection(c -> store.takeOverReturning(c, t, owner, ctx.lease(),
                        now()));
                if (mine.isPresent()) {
                    return mine.get();
                }
                got = false;
            } else {
                TransactionGuard.assertNoTransaction("lookup of " + op.name());
                Instant asked = clockNow();
                Optional<Boolean> used = op.wasUsed(t.value());
                if (used.isEmpty()) {
                    throw unknown(ctx, op, null);
                }
                Optional<Token> taken = rt.store().withConnection(c -> store.takeOverReturning(c, t, owner, ctx.lease(),
                        now()));
                got = taken.isPresent();
                if (got && !used.get()) {
                    holdWhileAbandonedUseMayLand(taken.get(), asked, op.abandonedUseWindow(), op.name());
                }
                if (got && used.get()) {
                    // the dead owner's use did happen: record it instead of repeating it
                    rt.store().withConnection(c -> store.markUsing(c, t.id(), ctx.lease(), now())
                            && store.spend(c, t.id(), ctx.lease(), now()));
                    log.info("token {} of pool {}: an earlier delivery's {} did happen; spent without repeating it",
                            t.id(), pool, op.name());
                    return store(t.id());
                }
            }
            if (got) {
                return store(t.id());
            }
            ctx.verifyLease();
        }
        throw new ClaimHeld("token of pool " + pool + " is contended; trying again later");
    }

    /**
     * A "not used" answer about a use that an earlier owner started is the leaf's word only once that
     * use can no longer land: the owner may be stopped, not dead, right before its point of no return
     * (an SMTP sender before the end of DATA), and complete the use when it wakes. The leaf gives up
     * on it after {@code window} (the SMTP server drops a stalled connection). The owner's last check
     * before that point asked the database, so it passed before the token was first taken over
     * ({@code checkedOutAt}, kept by later take-overs): an answer asked for from then plus the window
     * is final. Before that, this delivery keeps the
     * token and is released to look again when the window has passed (R11).
     */
    private void holdWhileAbandonedUseMayLand(Token taken, Instant asked, Duration window, String what) {
        if (window == null || window.isZero() || window.isNegative()) {
            return;
        }
        Instant finalFrom = taken.checkedOutAt().plus(window);
        if (asked.isBefore(finalFrom)) {
            Duration wait = Duration.between(clockNow(), finalFrom);
            log.info("token {} of pool {}: the leaf has no record of {} yet, and its abandoned use may still land for "
                    + "{} ms; looking again then", taken.id(), taken.pool(), what, Math.max(0, wait.toMillis()));
            throw new ClaimHeld("token " + taken.id() + " of pool " + taken.pool() + ": an abandoned use may still land "
                    + "until " + finalFrom, wait.isNegative() ? Duration.ZERO : wait);
        }
    }

    private Token store(long id) {
        return rt.store().withConnection(c -> store.byId(c, id)).orElseThrow();
    }

    private static boolean mine(Token t, Delivery ctx) {
        return t.ownerJobId() != null && t.ownerJobId() == ctx.jobId() && t.ownerEpoch() != null
                && t.ownerEpoch() == ctx.lease().epoch();
    }

    private boolean ownerAlive(Token t) {
        return rt.store().withConnection(c -> store.ownerAlive(c, t, now()));
    }

    private OutcomeUnknown unknown(Delivery ctx, TokenOperation<?> op, Throwable cause) {
        String msg = op.name() + " may or may not have happened and the leaf cannot tell; not repeated: a person must check";
        ctx.flowId().ifPresent(f -> flows.flagAttention(f, msg));
        return new OutcomeUnknown(msg, cause);
    }
}
