package dev.converge.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.converge.claim.Claim;
import dev.converge.claim.Claims;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Claims, a durable {@code Cache::add(key, ttl)}: one holder per key until expiry or its own release. */
public interface ClaimContract extends HasFixture {

    private Claims claims() {
        return new dev.converge.claim.internal.ClaimService(fixture().store(), "contract-node");
    }

    @Test
    default void aKeyGoesToOneCallerUntilItExpires() {
        Claims claims = claims();
        Optional<Claim> first = claims.add("license:site:1", "a", Duration.ofMinutes(10));
        assertThat(first).isPresent();
        assertThat(first.get().fence()).isEqualTo(1);
        assertThat(claims.add("license:site:1", "b", Duration.ofMinutes(10))).isEmpty();
        assertThat(claims.add("license:site:1", "a", Duration.ofMinutes(10))).as("not re-entrant").isEmpty();
        assertThat(claims.add("license:site:2", "b", Duration.ofMinutes(10))).isPresent();

        fixture().clock().advance(Duration.ofMinutes(10).minusMillis(1));
        assertThat(claims.add("license:site:1", "b", Duration.ofMinutes(10))).isEmpty();
        fixture().clock().advance(Duration.ofMillis(1));
        Optional<Claim> taken = claims.add("license:site:1", "b", Duration.ofMinutes(10));
        assertThat(taken).isPresent();
        assertThat(taken.get().fence()).isEqualTo(2);
        assertThat(claims.holder("license:site:1")).contains(taken.get());
    }

    @Test
    default void onlyTheOwnerOfTheCurrentClaimCanReleaseIt() {
        Claims claims = claims();
        Claim a = claims.add("k", "a", Duration.ofSeconds(30)).orElseThrow();
        fixture().clock().advance(Duration.ofSeconds(31));
        Claim b = claims.add("k", "b", Duration.ofSeconds(30)).orElseThrow();

        assertThat(claims.release(a)).as("a's claim expired and was taken: releasing it must not free b's").isFalse();
        assertThat(claims.holder("k")).contains(b);
        assertThat(claims.add("k", "c", Duration.ofSeconds(30))).isEmpty();
        assertThat(claims.release(new Claim("k", "c", b.fence(), b.expiresAt()))).as("wrong owner").isFalse();

        assertThat(claims.release(b)).isTrue();
        assertThat(claims.release(b)).as("twice").isFalse();
        assertThat(claims.add("k", "c", Duration.ofSeconds(30))).isPresent();
    }

    @Test
    default void aFenceNeverGoesBackWhenTheKeyChangesHandsAfterARelease() {
        Claims claims = claims();
        Claim a = claims.add("k", "a", Duration.ofSeconds(30)).orElseThrow();
        assertThat(claims.release(a)).isTrue();
        assertThat(claims.holder("k")).as("released: nobody holds it").isEmpty();
        assertThat(claims.extend(a, Duration.ofSeconds(30))).as("a released claim cannot be extended").isFalse();
        Claim b = claims.add("k", "b", Duration.ofSeconds(30)).orElseThrow();
        assertThat(b.fence()).as("the fence after a release").isGreaterThan(a.fence());
        assertThat(claims.release(a)).as("the earlier owner, again").isFalse();
        assertThat(claims.holder("k")).contains(b);
        assertThat(claims.release(b)).isTrue();
        assertThat(claims.add("k", "a", Duration.ofSeconds(30)).orElseThrow().fence()).isGreaterThan(b.fence());
    }

    @Test
    default void onlyAHeldUnexpiredClaimCanBeExtended() {
        Claims claims = claims();
        Claim a = claims.add("k", "a", Duration.ofSeconds(30)).orElseThrow();
        fixture().clock().advance(Duration.ofSeconds(20));
        assertThat(claims.extend(a, Duration.ofSeconds(30))).isTrue();
        fixture().clock().advance(Duration.ofSeconds(20));
        assertThat(claims.add("k", "b", Duration.ofSeconds(30))).as("extended, so still held").isEmpty();
        fixture().clock().advance(Duration.ofSeconds(11));
        assertThat(claims.extend(a, Duration.ofSeconds(30))).as("expired").isFalse();
        Claim b = claims.add("k", "b", Duration.ofSeconds(30)).orElseThrow();
        assertThat(claims.extend(a, Duration.ofSeconds(30))).as("taken over").isFalse();
        assertThat(claims.holder("k")).contains(b);
    }

    @Test
    default void threadsRacingForTheSameKeysGetExactlyOneWinnerEach() throws Exception {
        Claims claims = claims();
        int threads = 8;
        int keys = 200;
        Map<String, List<String>> winners = new ConcurrentHashMap<>();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String owner = "thread-" + t;
                done.add(pool.submit(() -> {
                    go.await();
                    for (int k = 0; k < keys; k++) {
                        String key = "race:" + k;
                        if (claims.add(key, owner, Duration.ofMinutes(5)).isPresent()) {
                            winners.computeIfAbsent(key, x -> new CopyOnWriteArrayList<>()).add(owner);
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(winners).hasSize(keys);
        winners.forEach((key, who) -> assertThat(who).as(key).hasSize(1));
        winners.forEach((key, who) -> assertThat(claims.holder(key).orElseThrow().owner()).isEqualTo(who.get(0)));
    }
}
