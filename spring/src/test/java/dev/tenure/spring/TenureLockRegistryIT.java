package dev.tenure.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.client.LossReason;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.process.RealNode;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.TimeScale;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * The registry's locks on a real node: two registries (two sessions, as two instances of an
 * application) contend for the same names.
 */
@SuppressWarnings("LockNotBeforeTry") // tests lock and unlock where each step is checked, not in finally blocks
class TenureLockRegistryIT {

    private static final Await WITHIN = Await.atMost(Duration.ofSeconds(10)).every(Duration.ofMillis(50));

    @RegisterExtension
    static final RealNode NODE = new RealNode();

    private TenureClient client;
    private TenureLockRegistry registry;
    private TenureLockRegistry other;
    private String name;

    @BeforeEach
    void connect(TestInfo test) {
        client = TenureClient.builder()
                .endpoints(NODE.endpoint())
                .requestTimeout(TimeScale.scaled(Duration.ofSeconds(20)))
                .build();
        registry = new TenureLockRegistry(client);
        other = new TenureLockRegistry(client);
        name = test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void disconnect() {
        registry.close();
        other.close();
        client.close();
    }

    /** Whether {@code by} is refused the name now (as another instance would be). */
    private static boolean heldAgainst(TenureLockRegistry by, String name) throws InterruptedException {
        return CompletableFuture.supplyAsync(() -> {
                    TenureRegistryLock probe = by.obtain(name);
                    if (probe.tryLock()) {
                        probe.unlock();
                        return false;
                    }
                    return true;
                })
                .join();
    }

    @Test
    void lockThenUnlockFreesTheNameForAnotherRegistry() throws Exception {
        TenureRegistryLock lock = registry.obtain(name);
        assertThat(registry.obtain(name)).isSameAs(lock);
        lock.lock();
        assertThat(lock.token()).isPositive();
        assertThat(heldAgainst(other, name)).isTrue();
        lock.unlock();
        assertThat(heldAgainst(other, name)).isFalse();
    }

    @Test
    void reentrantPerThreadWithOneTokenAndOneRelease() throws Exception {
        TenureRegistryLock lock = registry.obtain(name);
        lock.lock();
        long token = lock.token();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock(Duration.ofMillis(100), null)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(lock.token()).isEqualTo(token);
        lock.unlock();
        lock.unlock();
        assertThat(heldAgainst(other, name)).isTrue();
        lock.unlock();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(heldAgainst(other, name)).isFalse();
    }

    @Test
    void anotherThreadOfTheSameRegistryIsExcludedAndCannotUnlock() throws Exception {
        TenureRegistryLock lock = registry.obtain(name);
        lock.lock();
        CompletableFuture<Boolean> tried = CompletableFuture.supplyAsync(lock::tryLock);
        assertThat(tried.join()).isFalse();
        CompletableFuture<Void> unlocked = CompletableFuture.runAsync(lock::unlock);
        assertThatThrownBy(unlocked::join).hasCauseInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(lock::token).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void tryLockWithTimeWaitsForTheOtherRegistryToUnlock() throws Exception {
        TenureRegistryLock mine = registry.obtain(name);
        mine.lock();
        long first = mine.token();
        CompletableFuture<Long> theirs = CompletableFuture.supplyAsync(() -> {
            TenureRegistryLock lock = other.obtain(name);
            try {
                if (!lock.tryLock(10, TimeUnit.SECONDS)) {
                    return -1L;
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            long token = lock.token();
            lock.unlock();
            return token;
        });
        Thread.sleep(300);
        assertThat(theirs).isNotDone();
        mine.unlock();
        assertThat(theirs.get(10, TimeUnit.SECONDS)).isGreaterThan(first);
    }

    @Test
    void tryLockWithTimeGivesUpWhileAnotherRegistryHolds() throws Exception {
        TenureRegistryLock mine = registry.obtain(name);
        mine.lock();
        long start = System.nanoTime();
        boolean got = CompletableFuture.supplyAsync(() -> {
                    try {
                        return other.obtain(name).tryLock(300, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .join();
        assertThat(got).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        mine.unlock();
    }

    @Test
    void aTtlRevokesTheLeaseWhileHeld() throws Exception {
        TenureRegistryLock lock = registry.obtain(name);
        lock.lock(Duration.ofMillis(500));
        long token = lock.token();
        // The client's own horizon for the maxHold passes no later than the node's revocation.
        assertThat(lock.invalidated().get(10, TimeUnit.SECONDS))
                .hasValueSatisfying(reason -> assertThat(reason).isIn(LossReason.HORIZON_PASSED, LossReason.REVOKED));
        assertThatThrownBy(() -> lock.fence(Duration.ZERO)).isInstanceOf(TenureException.class);
        WITHIN.until("the node revokes it", () -> !heldAgainst(other, name));
        assertThatThrownBy(lock::lock).isInstanceOf(TenureException.class).hasMessageContaining("token " + token);
        lock.unlock(); // ends the hold of a lost lease without an error
        assertThat(lock.getHoldCount()).isZero();
    }

    @Test
    void renewLockMovesTheTtlLater() throws Exception {
        TenureRegistryLock lock = registry.obtain(name);
        assertThat(lock.tryLock(Duration.ofSeconds(5), Duration.ofMillis(700))).isTrue();
        registry.renewLock(name, Duration.ofSeconds(30));
        Thread.sleep(1500);
        assertThat(lock.fence(Duration.ZERO)).isEqualTo(lock.token());
        assertThat(heldAgainst(other, name)).isTrue();
        registry.renewLock(name);
        lock.unlock();
        assertThatThrownBy(() -> registry.renewLock(name)).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void renewLockOfALockTakenWithoutTtlIsRefused() {
        TenureRegistryLock lock = registry.obtain(name);
        lock.lock();
        assertThatThrownBy(() -> registry.renewLock(name, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class);
        lock.unlock();
    }

    @Test
    void expireUnusedDropsIdleLocksOnly() {
        TenureRegistryLock idle = registry.obtain(name + "-idle");
        TenureRegistryLock held = registry.obtain(name);
        held.lock();
        registry.expireUnusedOlderThan(-1000);
        assertThat(registry.obtain(name)).isSameAs(held);
        assertThat(registry.obtain(name + "-idle")).isNotSameAs(idle);
        held.unlock();
    }

    @Test
    void aKeyThatIsNotAStringIsRefused() {
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void closingARegistryReleasesItsLocksAtOnce() throws Exception {
        TenureRegistryLock lock = registry.obtain(name);
        lock.lock();
        CompletableFuture<Optional<LossReason>> invalidated = lock.invalidated();
        long start = System.nanoTime();
        registry.close();
        assertThat(heldAgainst(other, name)).isFalse();
        // Far below any TTL or the disconnect grace: the session's close released the lease.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(invalidated).isDone();
    }

    @Test
    void leaderInitiatorsOnTwoRegistriesHaveOneLeaderAndHandOver() throws Exception {
        LockRegistryLeaderInitiator first = initiator(registry, "first");
        LockRegistryLeaderInitiator second = initiator(other, "second");
        first.start();
        WITHIN.until("first leads", () -> first.getContext().isLeader());
        second.start();
        AtomicBoolean both = new AtomicBoolean();
        for (int i = 0; i < 10; i++) {
            both.compareAndSet(
                    false, first.getContext().isLeader() && second.getContext().isLeader());
            Thread.sleep(50);
        }
        assertThat(both).isFalse();
        assertThat(second.getContext().isLeader()).isFalse();
        first.stop();
        registry.close();
        WITHIN.until("second leads", () -> second.getContext().isLeader());
        assertThat(first.getContext().isLeader()).isFalse();
        second.stop();
    }

    private LockRegistryLeaderInitiator initiator(TenureLockRegistry on, String id) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(on, new DefaultCandidate(id, name));
        initiator.setHeartBeatMillis(100);
        initiator.setBusyWaitMillis(100);
        return initiator;
    }
}
