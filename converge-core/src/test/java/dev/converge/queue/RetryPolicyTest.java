package dev.converge.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void withoutJitterTheWaitDoublesUpToTheCap() {
        RetryPolicy p = RetryPolicy.attempts(8).backoff(Duration.ofSeconds(1)).cappedAt(Duration.ofSeconds(10)).jitter(0);
        assertThat(p.maxAttempts()).isEqualTo(8);
        long[] expected = {1, 2, 4, 8, 10, 10, 10};
        for (int attempt = 1; attempt <= expected.length; attempt++) {
            assertThat(p.delayAfter(attempt)).as("after attempt %d", attempt).isEqualTo(Duration.ofSeconds(expected[attempt - 1]));
        }
        assertThat(p.delayAfter(500)).as("no overflow for absurd attempts").isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void jitterSpreadsEachWaitWithinItsFractionAndNeverPastTheCap() {
        RetryPolicy p = RetryPolicy.attempts(10).backoff(Duration.ofSeconds(10)).cappedAt(Duration.ofSeconds(60)).jitter(0.2);
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 2_000; i++) {
            long first = p.delayAfter(1).toMillis();
            assertThat(first).isBetween(8_000L, 12_000L);
            min = Math.min(min, first);
            max = Math.max(max, first);
            assertThat(p.delayAfter(6).toMillis()).isBetween(48_000L, 60_000L);
        }
        assertThat(max - min).as("the waits really are spread").isGreaterThan(2_000);
    }

    @Test
    void neverMeansOneAttemptAndNoWait() {
        assertThat(RetryPolicy.never().maxAttempts()).isEqualTo(1);
        assertThat(RetryPolicy.never().delayAfter(1)).isZero();
    }

    @Test
    void invalidPoliciesFailWhenBuilt() {
        assertThatThrownBy(() -> RetryPolicy.attempts(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RetryPolicy.attempts(3).jitter(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RetryPolicy.attempts(3).backoff(Duration.ofSeconds(5)).cappedAt(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RetryPolicy.attempts(3).backoff(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
