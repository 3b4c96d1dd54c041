package dev.converge.proof.abuse;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@code converge abuse}: attacks a running server the way an abusive client would, each attack
 * beside a legitimate client, and prints per attack what the legitimate client saw (share served,
 * p50, p99), the count of {@code converge_http_requests} label combinations (method, route,
 * status: the series a request's own values choose) before and after, and the bearer-token lookups
 * that reached the database per attacking request. The attackers connect from
 * {@link Options#attackerAddress()} (127.0.0.2 by default, a second loopback address, so the
 * server sees another client than the legitimate one at 127.0.0.1).
 */
public final class Abuse {
    /** What to attack and how hard. Tokens: the legitimate tenant's, a second (noisy) tenant's, an operator's. */
    public record Options(URI server, String token, String noisyToken, String operatorToken, String attackerAddress,
            int slowSockets, int tokens, int methods, Duration phase, int legitPerSecond, java.util.Set<String> only) {
        /** The attacks by the names {@code --only} takes. */
        public static final List<String> ATTACKS = List.of("none", "slow", "tokens", "methods", "sites", "noisy");

        public Options {
            Objects.requireNonNull(server, "server");
            if (token == null || noisyToken == null || operatorToken == null) {
                throw new IllegalArgumentException("abuse needs three tokens: the legitimate tenant's "
                        + "(CONVERGE_TOKEN), another tenant's (CONVERGE_NOISY_TOKEN) and an operator's "
                        + "(CONVERGE_OPERATOR_TOKEN, to read /metrics)");
            }
            if (token.equals(noisyToken)) {
                throw new IllegalArgumentException("the noisy tenant's token must be another tenant's than the legitimate one");
            }
            if (slowSockets < 1 || tokens < 1 || methods < 1 || legitPerSecond < 1 || legitPerSecond > 1000) {
                throw new IllegalArgumentException("--slow-sockets, --tokens and --methods must be at least 1, "
                        + "--legit-rate between 1 and 1000");
            }
            only = only == null || only.isEmpty() ? new java.util.LinkedHashSet<>(ATTACKS) : java.util.Set.copyOf(only);
            for (String a : only) {
                if (!ATTACKS.contains(a)) {
                    throw new IllegalArgumentException("--only takes " + String.join(", ", ATTACKS) + "; got " + a);
                }
            }
            if (phase == null || phase.compareTo(Duration.ofSeconds(2)) < 0) {
                throw new IllegalArgumentException("--phase must be at least 2s");
            }
        }
    }

    /** One attack's figures. */
    public record Phase(String attack, long attacking, String answers, int legitSent, int legitServed, long legitP50Micros,
            long legitP99Micros, long seriesBefore, long seriesAfter, double lookupsBefore, double lookupsAfter) {
        public double lookupsPerAttackingRequest() {
            return attacking == 0 ? 0 : (lookupsAfter - lookupsBefore) / attacking;
        }

        public double legitSuccess() {
            return legitSent == 0 ? 1 : (double) legitServed / legitSent;
        }
    }

    private final Options o;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    public Abuse(Options options) {
        this.o = options;
    }

    /** Runs every attack in turn, printing each phase's line as it ends. */
    public List<Phase> run(PrintStream out) throws IOException, InterruptedException {
        List<Attack> attacks = new ArrayList<>();
        for (String name : Options.ATTACKS) {
            if (o.only().contains(name)) {
                attacks.add(switch (name) {
                    case "none" -> Attacks.none();
                    case "slow" -> Attacks.slowClients(o.server(), o.attackerAddress(), o.slowSockets());
                    case "tokens" -> Attacks.randomTokens(o.server(), o.attackerAddress(), o.tokens());
                    case "methods" -> Attacks.randomMethods(o.server(), o.attackerAddress(), o.methods());
                    case "noisy" -> Attacks.noisyTenant(o.server(), o.noisyToken());
                    // a tenant, not an attacker: from the legitimate client's address, whose failed-authentication
                    // budget the made-up tokens did not spend
                    default -> Attacks.noisySites(o.server(), null, o.noisyToken());
                });
            }
        }
        out.printf("abuse %s: each attack for %d s beside a legitimate client (%d requests/s, 5 s timeout); attackers from %s%n",
                o.server(), o.phase().toSeconds(), o.legitPerSecond(), o.attackerAddress());
        out.printf("%-18s %10s %9s %9s %9s %17s %14s  %s%n", "attack", "attacking", "legit ok", "p50 ms", "p99 ms",
                "http series", "lookups/attack", "answers");
        List<Phase> phases = new ArrayList<>();
        Legit legit = new Legit(o.server(), o.token(), o.legitPerSecond());
        for (Attack a : attacks) {
            if (a.name().equals("noisy sites")) {
                // the reference: the legitimate tenant's sites with nobody else requesting any
                Legit.Seen alone = legit.sitesDuring(Duration.ofSeconds(4), Duration.ofMillis(500));
                out.printf("%-18s legitimate sites requested every 500 ms; ok = live within %d s, p50/p99 = request to live%n",
                        "", Legit.SITE_WAIT.toSeconds());
                out.printf("%-18s %10d %8.2f%% %9.1f %9.1f%n", "sites (reference)", 0, 100 * alone.successRate(),
                        alone.p50Micros() / 1000.0, alone.p99Micros() / 1000.0);
            }
            Scrape before = scrape();
            a.start();
            // against a flood of sites the legitimate tenant's own sites are timed, from request to live
            Legit.Seen seen = a.name().equals("noisy sites") ? legit.sitesDuring(o.phase(), Duration.ofMillis(500))
                    : legit.during(o.phase());
            long attacking = a.stop();
            Thread.sleep(200); // the last answers counted before the scrape
            Scrape after = scrape();
            Phase p = new Phase(a.name(), attacking, a.answers(), seen.sent(), seen.served(), seen.p50Micros(),
                    seen.p99Micros(), before.series(), after.series(), before.lookups(), after.lookups());
            phases.add(p);
            out.printf("%-18s %10d %8.2f%% %9.1f %9.1f %8d → %-8d %14.3f  %s%n", p.attack(), p.attacking(),
                    100 * seen.successRate(), seen.p50Micros() / 1000.0, seen.p99Micros() / 1000.0, p.seriesBefore(),
                    p.seriesAfter(), p.lookupsPerAttackingRequest(), p.answers());
        }
        return phases;
    }

    private record Scrape(long series, double lookups) {
    }

    private Scrape scrape() throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(o.server().resolve("/metrics")).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + o.operatorToken()).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET /metrics answered " + r.statusCode() + ": is CONVERGE_OPERATOR_TOKEN an operator token "
                    + "of this server?");
        }
        long series = 0;
        double lookups = Double.NaN;
        for (String line : r.body().split("\n")) {
            if (line.startsWith("converge_http_") && line.contains("_count{")) {
                series++; // one per label combination a request's own values chose; job and flow series grow with
                          // background work
            }
            if (line.startsWith("converge_api_token_lookups_total")) {
                lookups = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return new Scrape(series, lookups);
    }
}
