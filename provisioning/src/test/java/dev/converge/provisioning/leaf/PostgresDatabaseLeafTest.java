package dev.converge.provisioning.leaf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.converge.ledger.LeafRejected;
import dev.converge.ledger.LeafResource;
import dev.converge.ledger.ResourceExists;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The PostgreSQL leaf against the real local server, on databases named with a prefix unique to this run. */
class PostgresDatabaseLeafTest {
    private final String prefix = "cvg_lt_" + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 24)) + "_";
    private PostgresDatabaseLeaf leaf;

    @BeforeEach
    void connect() {
        LocalPostgres.requireReachable();
        leaf = new PostgresDatabaseLeaf(PostgresLeafConfig.of(LocalPostgres.URL, LocalPostgres.USER, prefix));
    }

    @AfterEach
    void dropOurDatabases() {
        if (leaf != null) {
            leaf.list().forEach(db -> leaf.delete(db.leafId()));
        }
    }

    @Test
    void createsFindsListsAndDropsATaggedDatabase() {
        LeafResource created = leaf.create(prefix + "site1", "converge:site-1", null);

        assertThat(created.leafId()).isEqualTo(prefix + "site1");
        assertThat(leaf.find(prefix + "site1")).hasValueSatisfying(found -> {
            assertThat(found.tag()).isEqualTo("converge:site-1");
            assertThat(found.data()).containsKey("oid");
        });
        assertThat(leaf.list()).extracting(LeafResource::naturalKey).containsExactly(prefix + "site1");

        leaf.delete(prefix + "site1");
        assertThat(leaf.find(prefix + "site1")).isEmpty();
        assertThatCode(() -> leaf.delete(prefix + "site1")).as("dropping what is gone succeeds")
                .doesNotThrowAnyException();
    }

    @Test
    void aSecondCreateIsResourceExistsAndTheFirstTagStays() {
        leaf.create(prefix + "twice", "converge:site-a", null);

        assertThatThrownBy(() -> leaf.create(prefix + "twice", "converge:site-b", null))
                .isInstanceOfSatisfying(ResourceExists.class,
                        exists -> assertThat(exists.naturalKey()).isEqualTo(prefix + "twice"));
        assertThat(leaf.find(prefix + "twice")).hasValueSatisfying(
                found -> assertThat(found.tag()).isEqualTo("converge:site-a"));
    }

    @Test
    void concurrentCreatesOfOneNameMakeOneDatabase() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<String>> outcomes = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                outcomes.add(pool.submit(() -> {
                    go.await();
                    try {
                        leaf.create(prefix + "raced", "converge:site-r", null);
                        return "created";
                    } catch (ResourceExists e) {
                        return "exists";
                    }
                }));
            }
            go.countDown();
            List<String> results = new ArrayList<>();
            for (Future<String> outcome : outcomes) {
                results.add(outcome.get());
            }
            assertThat(results).containsOnlyOnce("created").containsOnly("created", "exists");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aDatabaseCreatedButNotYetCommentedHasANullTagUntilTagged() throws Exception {
        try (Connection admin = LocalPostgres.connect(LocalPostgres.URL); Statement sql = admin.createStatement()) {
            sql.execute("CREATE DATABASE " + prefix + "crashed");
        }
        assertThat(leaf.find(prefix + "crashed")).hasValueSatisfying(found -> assertThat(found.tag()).isNull());

        leaf.tag(prefix + "crashed", "converge:site-c");
        assertThat(leaf.find(prefix + "crashed")).hasValueSatisfying(
                found -> assertThat(found.tag()).isEqualTo("converge:site-c"));
    }

    @Test
    void aTagWithQuotesIsStoredExactlyAndInjectsNothing() {
        String hostile = "it's O'Brien'; DROP DATABASE postgres; -- \\ \"x\"";
        leaf.create(prefix + "quoted", hostile, null);

        assertThat(leaf.find(prefix + "quoted")).hasValueSatisfying(found -> assertThat(found.tag()).isEqualTo(hostile));
        assertThat(new PostgresDatabaseLeaf(PostgresLeafConfig.of(LocalPostgres.URL, LocalPostgres.USER, "postgres"))
                .find("postgres")).isPresent();
    }

    @Test
    void dropsADatabaseEvenWhileASessionIsConnectedToIt() throws Exception {
        leaf.create(prefix + "busy", "converge:site-busy", null);
        try (Connection session = LocalPostgres.connect(LocalPostgres.urlOf(prefix + "busy"))) {
            assertThat(session.isValid(2)).isTrue();
            leaf.delete(prefix + "busy");
            assertThat(leaf.find(prefix + "busy")).isEmpty();
            assertThat(session.isValid(2)).as("the session was terminated by WITH (FORCE)").isFalse();
        }
    }

    @Test
    void refusesNamesThatAreNotPlainOrNotOurs() {
        for (String bad : List.of(prefix + "Upper", prefix + "x;drop", prefix + "a-b", prefix + "x".repeat(64),
                "other_prefix_db")) {
            assertThatThrownBy(() -> leaf.create(bad, "t", null)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> leaf.delete("postgres")).isInstanceOf(IllegalArgumentException.class);
        assertThat(leaf.list()).isEmpty();
    }

    @Test
    void anUnreachableServerIsATransientRejection() {
        PostgresDatabaseLeaf unreachable = new PostgresDatabaseLeaf(new PostgresLeafConfig(
                "jdbc:postgresql://127.0.0.1:1/postgres", "root", null, prefix, Duration.ofSeconds(1), null));

        assertThatThrownBy(() -> unreachable.create(prefix + "never", "t", null))
                .isInstanceOfSatisfying(LeafRejected.class, rejected -> assertThat(rejected.isTransient()).isTrue());
        assertThatThrownBy(() -> unreachable.find(prefix + "never")).isInstanceOf(LeafRejected.class);
        assertThatThrownBy(() -> unreachable.delete(prefix + "never")).isInstanceOf(LeafRejected.class);
    }

    @Test
    void aCreateThatDiedHalfWayIsFinishedByItsRetryAndNeverLeavesAnUntaggedDatabaseUnderTheRealName()
            throws Exception {
        String name = prefix + "halfway";
        String staging = leaf.stagingName(name);
        // a create that died after CREATE DATABASE (staging) and before its comment and rename
        try (var c = LocalPostgres.connect(LocalPostgres.URL); var st = c.createStatement()) {
            st.execute("CREATE DATABASE " + staging);
        }
        assertThat(leaf.find(name)).as("nothing untagged under the real name").isEmpty();

        LeafResource made = leaf.create(name, "converge:site-9", null);
        assertThat(made.leafId()).isEqualTo(name);
        assertThat(leaf.find(name)).hasValueSatisfying(db -> assertThat(db.tag()).isEqualTo("converge:site-9"));
        assertThat(leaf.list()).extracting(LeafResource::naturalKey).containsExactly(name);
    }

    @Test
    void teardownAlsoDropsTheStagingDatabaseOfACreateThatDied() throws Exception {
        String name = prefix + "dropped";
        String staging = leaf.stagingName(name);
        try (var c = LocalPostgres.connect(LocalPostgres.URL); var st = c.createStatement()) {
            st.execute("CREATE DATABASE " + staging);
            st.execute("COMMENT ON DATABASE " + staging + " IS 'converge:site-10'");
        }
        leaf.delete(name);
        assertThat(leaf.list()).isEmpty();
    }

    @Test
    void noSubdomainCanNameAnotherSitesStagingDatabase() throws Exception {
        String victim = prefix + "victim_shop";
        String staging = leaf.stagingName(victim);
        // what a crafted subdomain could reach: prefix + a DNS label with '-' as '_', 3-40 characters, no "__"
        String reachable = "[a-z0-9](?:[a-z0-9]|_(?!_)){2,39}";
        assertThat(staging.substring(prefix.length())).as("the staging name is out of every natural key's reach")
                .doesNotMatch(reachable);
        assertThat(staging).startsWith(prefix);
    }

    @Test
    void aStagingDatabaseThatCarriesAnotherTagIsNeverRenamedOrTaggedAsOurs() throws Exception {
        String name = prefix + "squatted";
        String staging = leaf.stagingName(name);
        try (var c = LocalPostgres.connect(LocalPostgres.URL); var st = c.createStatement()) {
            st.execute("CREATE DATABASE " + staging);
            st.execute("COMMENT ON DATABASE " + staging + " IS 'converge:site-666'");
        }
        assertThatThrownBy(() -> leaf.create(name, "converge:site-11", null)).isInstanceOf(LeafRejected.class);
        assertThat(leaf.find(name)).as("nothing was renamed into the site's name").isEmpty();
        assertThat(leaf.find(staging)).hasValueSatisfying(db -> assertThat(db.tag()).isEqualTo("converge:site-666"));
    }
}
