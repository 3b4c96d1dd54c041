package dev.converge.dashboard;

import dev.converge.Converge;
import dev.converge.ledger.ResourceType;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Handler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The operators' dashboard over one {@link Converge} engine, mounted on any Javalin application:
 * an overview (jobs per queue and their throughput, flows, the ledger, orphans, recurring jobs),
 * jobs (with their last error and "retry now" / "cancel"), flows and one flow's timeline, the
 * ledger's unresolved entries, and the orphans at the leaves. Every asset is served from this jar;
 * the page reads JSON under the same path and redraws every two seconds.
 *
 * <pre>{@code
 * Dashboard dashboard = Dashboard.builder(engine)
 *         .operators(token -> myTokens.isOperator(token)
 *                 ? Optional.of(new Dashboard.Operator(myTokens.idOf(token), null)) : Optional.empty())
 *         .build();
 * Javalin.create(cfg -> dashboard.mount(cfg, "/ui")).start(8080);
 * }</pre>
 *
 * <p>Who may look is the application's: {@link Operators} says whether a token is an operator's.
 * The page exchanges the token once for an HttpOnly, SameSite=Strict cookie (signed with the
 * {@linkplain Builder#sessionSecret session secret}), keeps only the session's CSRF token in memory,
 * and sends it with every request that changes something. A script may instead send the token as
 * {@code Authorization: Bearer}. An application adds its own pages with {@link Page}.
 */
public final class Dashboard {
    private static final Pattern MOUNT = Pattern.compile("(/[A-Za-z0-9._-]+)+");
    private static final Pattern PAGE_NAME = Pattern.compile("[a-z][a-z0-9-]{0,30}");
    /** Names the dashboard's own views use; a page may not take them. */
    private static final List<String> OWN = List.of("overview", "jobs", "job", "flows", "flow", "nodes", "history",
            "recurring", "ledger", "orphans");

    private final Converge engine;
    private final Operators operators;
    private final Sessions sessions;
    private final List<Page> pages;
    private final Actions actions;
    private final Supplier<? extends Collection<ResourceType>> resources;
    private final Duration orphanScanEvery;

    private Dashboard(Builder b) {
        this.engine = b.engine;
        this.operators = Objects.requireNonNull(b.operators, "operators: who may open the dashboard");
        this.sessions = new Sessions(b.secret);
        this.pages = List.copyOf(b.pages);
        this.actions = b.actions != null ? b.actions : new EngineActions(engine);
        this.resources = b.resources;
        this.orphanScanEvery = b.orphanScanEvery;
    }

    /** A dashboard over {@code engine}; {@link Builder#operators} is required. */
    public static Builder builder(Converge engine) {
        return new Builder(Objects.requireNonNull(engine, "engine"));
    }

    /**
     * Mounts the dashboard on a Javalin application being configured
     * ({@code Javalin.create(cfg -> dashboard.mount(cfg, "/ui"))}): the page at {@code path}, its
     * assets and session exchange below it, and its JSON under {@code path + "/api"}. Mounting one
     * dashboard on two paths is allowed; they share their sessions' secret.
     *
     * @param path where the page answers: {@code /} and then letters, digits, {@code . _ -}, e.g. {@code /ui}
     */
    public void mount(JavalinConfig config, String path) {
        Objects.requireNonNull(config, "config");
        if (path == null || !MOUNT.matcher(path).matches()) {
            throw new IllegalArgumentException("mount the dashboard on a path such as /ui (no trailing slash)");
        }
        new Routes(path, engine, operators, sessions, pages, actions, resources, orphanScanEvery).register(config.routes);
    }

    /** Says which tokens are an operator's: the application's own credentials, never stored by the dashboard. */
    @FunctionalInterface
    public interface Operators {
        /** The operator {@code token} stands for, or empty if it is not a live operator token. */
        Optional<Operator> authenticate(String token);

        /**
         * Whether the operator's credential is still live; asked on every request of a session, so
         * revoking a token ends its sessions. The default: live until the session expires.
         */
        default boolean live(String operatorId) {
            return true;
        }
    }

    /**
     * An operator, as a session remembers it: an id that is not secret (logged and put in the
     * cookie; never the token itself) and when its credential expires (null: never; a session
     * never outlives it).
     *
     * @param id 1 to 64 letters, digits, {@code _ -}
     */
    public record Operator(String id, Instant expiresAt) {
        private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

        public Operator {
            if (id == null || !ID.matcher(id).matches()) {
                throw new IllegalArgumentException("an operator id is 1 to 64 letters, digits, '_' or '-'");
            }
        }
    }

    /**
     * A page of the application's own, beside the engine's: an entry in the navigation, its data
     * at {@code <mount>/api/pages/<name>} (answered by {@code data}, behind the operator's session
     * like every other route; the query string is the page's filters), and the script that draws it,
     * a resource on the classpath served at {@code <mount>/pages/<name>.js}. The script calls
     * {@code ConvergeDashboard.page(name, async (ui) => nodes)}; {@code ui} offers {@code data()},
     * {@code el}, {@code table}, {@code state}, {@code time}, {@code filters} and {@code olderLink}.
     *
     * @param name lower-case letters, digits and {@code -}; not one of the dashboard's own views
     * @param title the navigation entry's text
     * @param data answers the page's JSON; it may read {@link #operator} of the request
     * @param script the classpath resource of the page's script, e.g. {@code "myapp/sites.js"}
     */
    public record Page(String name, String title, Handler data, String script) {
        public Page {
            if (name == null || !PAGE_NAME.matcher(name).matches() || OWN.contains(name)) {
                throw new IllegalArgumentException("a page's name is lower-case letters, digits and '-', not one of "
                        + OWN);
            }
            Objects.requireNonNull(title, "title");
            Objects.requireNonNull(data, "data");
            Objects.requireNonNull(script, "script");
            if (Page.class.getClassLoader().getResource(script) == null
                    && Thread.currentThread().getContextClassLoader().getResource(script) == null) {
                throw new IllegalArgumentException("the page's script " + script + " is not on the classpath");
            }
        }
    }

    /**
     * What the dashboard's actions do: each gets the operator and the reason the person gave, and
     * answers whether it changed anything and what happened, in a sentence for the person (also
     * when nothing changed, and why). The
     * default calls the engine's fenced paths ({@link Converge#retryFailedJob},
     * {@link Converge#cancelWaitingJob}, {@code flows().retry}, {@code ledger().settleExists} /
     * {@code settleAbsent}, {@code tokens().settle}, {@code recurring().pause} / {@code resume} /
     * {@code runNow}), which record who and why with the change; an
     * application that keeps its own record of operators' actions passes its own. A missing target
     * is {@link java.util.NoSuchElementException} (answered 404), a refused input
     * {@link IllegalArgumentException} (422).
     */
    public interface Actions {
        /** Retries a job that failed for good. */
        Outcome retryJob(String operatorId, long jobId, String reason);

        /** Cancels a job that waits. */
        Outcome cancelJob(String operatorId, long jobId, String reason);

        /** Retries a flow that needs attention from where it stopped (its compensation runs again). */
        Outcome retryFlow(String operatorId, long flowId, String reason);

        /** Settles a ledger entry nobody can decide: it exists at the leaf as {@code leafId}, or (null) it does not. */
        Outcome settleEntry(String operatorId, long entryId, String leafId, String reason);

        /** Settles a token whose use is unknown: spent ({@code used}) or available again. */
        Outcome settleToken(String operatorId, long tokenId, boolean used, String reason);

        /** Pauses a recurring job: its slots pass, not run, until it is resumed. */
        Outcome pauseRecurring(String operatorId, String name, String reason);

        /** Resumes a paused recurring job from its next slot. */
        Outcome resumeRecurring(String operatorId, String name, String reason);

        /** Runs a recurring job once now, beside its schedule. */
        Outcome runRecurring(String operatorId, String name, String reason);
    }

    /** What came of an action: whether it changed anything, and what the person is told. */
    public record Outcome(boolean changed, String detail) {
    }

    /** The operator of a request the dashboard admitted (for a {@link Page}'s {@code data}). */
    public static Operator operator(io.javalin.http.Context ctx) {
        return Routes.operator(ctx);
    }

    public static final class Builder {
        private final Converge engine;
        private Operators operators;
        private byte[] secret;
        private final List<Page> pages = new ArrayList<>();
        private Actions actions;
        private Supplier<? extends Collection<ResourceType>> resources = List::of;
        private Duration orphanScanEvery = Duration.ofMinutes(10);

        private Builder(Converge engine) {
            this.engine = engine;
        }

        /** Who may open the dashboard (required). */
        public Builder operators(Operators operators) {
            this.operators = Objects.requireNonNull(operators);
            return this;
        }

        /**
         * The secret that signs session cookies, at least 32 characters; the same on every process
         * behind one address. Without it each process draws its own: sessions end when it stops.
         */
        public Builder sessionSecret(String secret) {
            if (secret == null || secret.strip().length() < 32) {
                throw new IllegalArgumentException("a session secret is at least 32 characters");
            }
            this.secret = secret.strip().getBytes(StandardCharsets.UTF_8);
            return this;
        }

        /** Adds a page of the application's own, after the dashboard's. */
        public Builder page(Page page) {
            Objects.requireNonNull(page);
            if (pages.stream().anyMatch(p -> p.name().equals(page.name()))) {
                throw new IllegalArgumentException("two pages named " + page.name());
            }
            pages.add(page);
            return this;
        }

        /** What the actions do; by default the engine's fenced paths. */
        public Builder actions(Actions actions) {
            this.actions = Objects.requireNonNull(actions);
            return this;
        }

        /**
         * The resource types whose leaves the orphans page lists (those registered on the engine);
         * without them it has none to list.
         */
        public Builder resources(Supplier<? extends Collection<ResourceType>> resources) {
            this.resources = Objects.requireNonNull(resources);
            return this;
        }

        /**
         * How old the orphan scan may be before a viewer of the dashboard starts another (in the
         * background; the page shows the last one meanwhile). Default ten minutes: a scan lists
         * every leaf's inventory.
         */
        public Builder orphanScanEvery(Duration every) {
            if (every == null || every.isNegative()) {
                throw new IllegalArgumentException("orphanScanEvery is zero or more");
            }
            this.orphanScanEvery = every;
            return this;
        }

        public Dashboard build() {
            return new Dashboard(this);
        }
    }
}
