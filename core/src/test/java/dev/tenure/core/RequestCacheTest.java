package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RequestCacheTest {
    @Test
    void aFirstTryIsNotKeptAndALaterOneIs() {
        RequestCache cache = new RequestCache();
        cache.remember(7, Outcome.waiting("x"), 32);
        cache.attempted(7, 1);
        assertThat(cache.attempts()).as("one try: nothing to keep").isEmpty();
        assertThat(cache.triedAfter(7, 1)).isFalse();

        cache.attempted(7, 2);
        cache.attempted(7, 1); // a late first try changes nothing
        assertThat(cache.attempts()).containsExactly(Map.entry(7L, 2L));
        assertThat(cache.triedAfter(7, 1)).isTrue();
        assertThat(cache.triedAfter(7, 2)).isFalse();
        assertThat(cache.latestAttempt(7)).isEqualTo(2);
    }

    @Test
    void firstTriesInAnOlderSnapshotAreDroppedOnRestore() {
        TreeMap<Long, Outcome> outcomes = new TreeMap<>(Map.of(3L, Outcome.waiting("a"), 4L, Outcome.waiting("b")));
        RequestCache cache = new RequestCache(outcomes, new TreeMap<>(Map.of(3L, 1L, 4L, 3L)), 0);
        assertThat(cache.attempts()).containsExactly(Map.entry(4L, 3L));
        assertThat(cache.triedAfter(3, 1)).isFalse();
        assertThat(cache.triedAfter(4, 2)).isTrue();
    }
}
