package dev.tenure.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureClient;
import dev.tenure.process.RealNode;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import dev.tenure.testkit.TimeScale;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The behaviours ShedLock asks of every lock provider, on a real node: two providers (two
 * sessions, as two instances of an application) contend for the same names.
 */
class TenureLockProviderIT {

    private static final Duration AT_MOST = Duration.ofSeconds(30);
    private static final Await WITHIN = Await.atMost(Duration.ofSeconds(10)).every(Duration.ofMillis(50));

    @RegisterExtension
    static final RealNode NODE = new RealNode();

    private TenureClient client;
    private TenureLockProvider provider;
    private TenureLockProvider other;
    private String name1;
    private String name2;

    @BeforeEach
    void connect(TestInfo test) {
        client = TenureClient.builder()
                .endpoints(NODE.endpoint())
                .requestTimeout(TimeScale.scaled(Duration.ofSeconds(20)))
                .build();
        provider = new TenureLockProvider(client);
        other = new TenureLockProvider(client);
        String method = test.getTestMethod().orElseThrow().getName();
        name1 = method + "-1";
        name2 = method + "-2";
    }

    @AfterEach
    void disconnect() {
        // Every test ends each task it ran: none is left as this thread's current lock.
        assertThat(TenureLockProvider.currentLease()).isEmpty();
        provider.close();
        other.close();
        client.close();
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    private static LockConfiguration config(String name) {
        return config(name, AT_MOST, Duration.ZERO);
    }

    private boolean lockedFor(TenureLockProvider by, String name) {
        Optional<SimpleLock> probe = by.lock(config(name));
        probe.ifPresent(SimpleLock::unlock);
        return probe.isEmpty();
    }

    @Test
    void lockThenUnlockFreesTheName() {
        SimpleLock lock = provider.lock(config(name1)).orElseThrow();
        assertThat(lockedFor(other, name1)).isTrue();
        lock.unlock();
        assertThat(lockedFor(other, name1)).isFalse();
    }

    @Test
    void aSecondLockOnAHeldNameIsEmptyFromThisInstanceAndAnother() {
        SimpleLock lock = provider.lock(config(name1)).orElseThrow();
        assertThat(provider.lock(config(name1))).isEmpty();
        assertThat(other.lock(config(name1))).isEmpty();
        lock.unlock();
    }

    @Test
    void twoNamesAreIndependent() {
        SimpleLock one = provider.lock(config(name1)).orElseThrow();
        SimpleLock two = other.lock(config(name2)).orElseThrow();
        assertThat(TenureLockProvider.currentToken()).isGreaterThan(0);
        two.unlock();
        one.unlock();
    }

    @Test
    void lockAtMostForEndsTheLeaseEvenWhileTheTaskRuns() throws Exception {
        Instant start = Instant.now();
        SimpleLock revoked = provider.lock(config(name1, Duration.ofMillis(500), Duration.ZERO))
                .orElseThrow();
        long token = TenureLockProvider.currentToken();
        WITHIN.until("the name frees at lockAtMostFor", () -> !lockedFor(other, name1));
        assertThat(Duration.between(start, Instant.now())).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        // The task's token is stale from then on: a fenced write with it is refused.
        SimpleLock next = other.lock(config(name1)).orElseThrow();
        assertThatThrownBy(() -> client.kv().put(name1 + "/k", bytes("x"), name1, token))
                .isInstanceOf(StaleTokenException.class);
        // And this instance, whose lease ended on its own, can lock the name again once it is free.
        next.unlock();
        provider.lock(config(name1)).orElseThrow().unlock();
        revoked.unlock(); // the task ends: nothing left to release, and its handle is done
        assertThat(TenureLockProvider.currentLease()).isEmpty();
    }

    @Test
    void relockRightAfterUnlockTenTimes() {
        long last = 0;
        for (int i = 0; i < 10; i++) {
            SimpleLock lock =
                    (i % 2 == 0 ? provider : other).lock(config(name1)).orElseThrow();
            long token = TenureLockProvider.currentToken();
            assertThat(token).isGreaterThan(last);
            last = token;
            lock.unlock();
        }
    }

    @Test
    void lockAtLeastForHoldsAfterUnlockThenFrees() throws Exception {
        provider.lock(config(name2)).orElseThrow().unlock(); // opens the session: not timed below
        LockConfiguration config = config(name1, AT_MOST, Duration.ofSeconds(3));
        Instant until = config.getLockAtLeastUntil();
        provider.lock(config).orElseThrow().unlock();
        boolean lockedForOther = lockedFor(other, name1);
        boolean lockedForThis = provider.lock(config(name1)).isEmpty();
        // Probes that end before lockAtLeastFor has passed must find the name held; later ones
        // rightly may not (a machine slow enough to take 3 s over them proves nothing either way).
        if (Instant.now().isBefore(until)) {
            assertThat(lockedForOther).isTrue();
            assertThat(lockedForThis).isTrue();
        }
        WITHIN.until("the name frees once lockAtLeastFor has passed", () -> !lockedFor(other, name1));
        assertThat(Instant.now()).isAfterOrEqualTo(until);
    }

    @Test
    void extendKeepsTheLockPastItsFirstLockAtMostFor() throws Exception {
        SimpleLock lock = provider.lock(config(name1, Duration.ofMillis(800), Duration.ZERO))
                .orElseThrow();
        long token = TenureLockProvider.currentToken();
        SimpleLock extended = lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(TenureLockProvider.currentToken()).isEqualTo(token);
        Pause.of(Duration.ofMillis(1_200)); // past the first lockAtMostFor
        assertThat(lockedFor(other, name1)).isTrue();
        extended.unlock();
        assertThat(lockedFor(other, name1)).isFalse();
    }

    @Test
    void extendSeveralTimes() throws Exception {
        SimpleLock lock = provider.lock(config(name1, Duration.ofMillis(600), Duration.ZERO))
                .orElseThrow();
        for (int i = 0; i < 3; i++) {
            Pause.of(Duration.ofMillis(300));
            lock = lock.extend(Duration.ofMillis(600), Duration.ZERO).orElseThrow();
        }
        // 900 ms after the lock, past its first lockAtMostFor: still held.
        assertThat(lockedFor(other, name1)).isTrue();
        lock.unlock();
        assertThat(lockedFor(other, name1)).isFalse();
    }

    @Test
    void noExtendAfterUnlock() {
        SimpleLock lock = provider.lock(config(name1)).orElseThrow();
        lock.unlock();
        assertThatThrownBy(() -> lock.extend(AT_MOST, Duration.ZERO)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void noExtendAfterExpiry() throws Exception {
        SimpleLock lock = provider.lock(config(name1, Duration.ofMillis(300), Duration.ZERO))
                .orElseThrow();
        WITHIN.until("lockAtMostFor ends the lease", () -> !lockedFor(other, name1));
        assertThat(lock.extend(AT_MOST, Duration.ZERO)).isEmpty();
    }

    @Test
    void anOldHandleCanNeitherExtendAgainNorUnlockAfterAnExtend() {
        SimpleLock lock = provider.lock(config(name1)).orElseThrow();
        SimpleLock extended = lock.extend(AT_MOST, Duration.ZERO).orElseThrow();
        assertThatThrownBy(() -> lock.extend(AT_MOST, Duration.ZERO)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        assertThat(lockedFor(other, name1)).isTrue();
        extended.unlock();
        assertThat(lockedFor(other, name1)).isFalse();
    }

    @Test
    void theTaskSeesItsTokenAndCanExtendThroughShedLocksExecutor() throws Throwable {
        AtomicLong seen = new AtomicLong();
        new DefaultLockingTaskExecutor(provider)
                .executeWithLock(
                        (Runnable) () -> {
                            seen.set(TenureLockProvider.currentToken());
                            LockExtender.extendActiveLock(Duration.ofSeconds(40), Duration.ZERO);
                            assertThat(TenureLockProvider.currentToken()).isEqualTo(seen.get());
                            client.kv().put(name1 + "/k", bytes("ran"), name1, seen.get());
                        },
                        config(name1));
        assertThat(seen.get()).isPositive();
        assertThat(TenureLockProvider.currentLease()).isEmpty();
        assertThat(lockedFor(other, name1)).isFalse();
    }

    /** 8 threads over two instances and two names, each a read-then-write of a counter: none lost. */
    @Test
    @SuppressWarnings("ThreadPriorityCheck") // the yield only widens a race window; nothing relies on it
    void noUpdateIsLostUnderTheLock() throws Exception {
        AtomicIntegerArray counters = new AtomicIntegerArray(2);
        AtomicInteger[] done = {new AtomicInteger(), new AtomicInteger()};
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> runs = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            TenureLockProvider by = t % 2 == 0 ? provider : other;
            int n = t % 4 < 2 ? 0 : 1;
            String name = n == 0 ? name1 : name2;
            runs.add(pool.submit(() -> {
                for (int i = 0; i < 25; i++) {
                    Optional<SimpleLock> lock = by.lock(config(name));
                    if (lock.isPresent()) {
                        int read = counters.get(n); // a read, then a write: not an atomic increment
                        Thread.yield(); // widen the window a second holder would fall into
                        counters.set(n, read + 1);
                        done[n].incrementAndGet();
                        lock.get().unlock();
                    }
                }
                return null;
            }));
        }
        for (Future<?> run : runs) {
            run.get();
        }
        pool.shutdown();
        for (int n = 0; n < 2; n++) {
            assertThat(done[n].get()).isPositive();
            assertThat(counters.get(n)).isEqualTo(done[n].get());
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
