package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.client.AcquireOptions;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.client.TenureLock;
import dev.tenure.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link TenureLock}, the {@link java.util.concurrent.locks.Lock} of a session, against a real node. */
// The tests take and end holds in the orders they check, not in try/finally; the counter test
// yields to widen the window in which a missing exclusion would lose an update.
@SuppressWarnings({"LockNotBeforeTry", "ThreadPriorityCheck"})
class TenureLockIT extends OnOneNode {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private TenureClient client;
    private ExecutorService threads;

    @BeforeEach
    void connect() {
        client = TenureClient.builder()
                .endpoints(server.endpoint())
                .sessionTtl(Duration.ofSeconds(20))
                .build();
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void disconnect() {
        threads.shutdownNow();
        client.close();
    }

    @Test
    void reentrantHoldsShareOneLeaseAndTheLastUnlockReleasesIt() throws Exception {
        try (Session session = client.openSession()) {
            TenureLock lock = session.lock("tl-reentrant");
            assertThat(session.lock("tl-reentrant")).as("one object per name").isSameAs(lock);
            lock.lock();
            long token = lock.token();
            lock.lock();
            assertThat(lock.getHoldCount()).isEqualTo(2);
            assertThat(lock.token()).isEqualTo(token);
            lock.unlock();
            assertThat(client.status("tl-reentrant").holder())
                    .as("held after the inner unlock")
                    .hasValueSatisfying(h -> assertThat(h.token()).isEqualTo(token));
            lock.unlock();
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThat(client.status("tl-reentrant").holder())
                    .as("released by the outer unlock")
                    .isEmpty();
        }
    }

    @Test
    void unlockByAThreadThatDoesNotHoldItThrows() throws Exception {
        try (Session session = client.openSession()) {
            TenureLock lock = session.lock("tl-monitor");
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
            assertThatThrownBy(lock::token).isInstanceOf(IllegalMonitorStateException.class);
            lock.lock();
            Future<?> other = threads.submit(lock::unlock);
            assertThatThrownBy(() -> other.get(WITHIN.toSeconds(), TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalMonitorStateException.class);
            assertThat(client.status("tl-monitor").holder()).as("still held").isPresent();
            lock.unlock();
            assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Test
    void threadsOfOneSessionTakeTurnsEachWithAFreshToken() throws Exception {
        try (Session session = client.openSession()) {
            TenureLock lock = session.lock("tl-threads");
            lock.lock();
            long first = lock.token();
            assertThat(threads.submit(() -> lock.tryLock()).get()).isFalse();
            assertThat(threads.submit(() -> lock.tryLock(200, TimeUnit.MILLISECONDS))
                            .get())
                    .isFalse();
            Future<Long> next = threads.submit(() -> {
                lock.lock();
                try {
                    return lock.token();
                } finally {
                    lock.unlock();
                }
            });
            lock.unlock();
            assertThat(next.get(WITHIN.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(first);
        }
    }

    @Test
    void anotherSessionWaitsForTheLockAndATimedTryRunsOut() throws Exception {
        try (Session a = client.openSession();
                Session b = client.openSession()) {
            TenureLock held = a.lock("tl-sessions");
            TenureLock wanted = b.lock("tl-sessions");
            held.lock();
            assertThat(wanted.tryLock()).isFalse();
            long start = System.nanoTime();
            assertThat(wanted.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(290));
            assertThat(wanted.isHeldByCurrentThread()).isFalse();
            Future<Long> waiting = threads.submit(() -> {
                wanted.lock();
                try {
                    return wanted.token();
                } finally {
                    wanted.unlock();
                }
            });
            Await.atMost(WITHIN)
                    .until(
                            "b waits in the lock's queue",
                            () -> client.status("tl-sessions").waiters().size() == 1);
            long token = held.token();
            held.unlock();
            assertThat(waiting.get(WITHIN.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(token);
        }
    }

    @Test
    void anInterruptedLockInterruptiblyWithdrawsItsWait() throws Exception {
        try (Session a = client.openSession();
                Session b = client.openSession()) {
            TenureLock held = a.lock("tl-interrupt");
            held.lock();
            AtomicReference<Thread> waiter = new AtomicReference<>();
            Future<Throwable> waiting = threads.submit(() -> {
                waiter.set(Thread.currentThread());
                try {
                    b.lock("tl-interrupt").lockInterruptibly();
                    return null;
                } catch (InterruptedException e) {
                    return e;
                }
            });
            Await.atMost(WITHIN)
                    .until(
                            "b waits in the lock's queue",
                            () -> client.status("tl-interrupt").waiters().size() == 1);
            waiter.get().interrupt();
            assertThat(waiting.get(WITHIN.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            Await.atMost(WITHIN)
                    .until(
                            "the wait is withdrawn",
                            () -> client.status("tl-interrupt").waiters().isEmpty());
            held.unlock();
            assertThat(client.status("tl-interrupt").holder())
                    .as("nobody was granted it")
                    .isEmpty();
        }
    }

    @Test
    void aHolderIsToldTheMomentItsLeaseIsLostAndCannotReenterUnderIt() throws Exception {
        try (Session session = client.openSession()) {
            // maxHold: the node revokes the lease 1.5 s after the grant, whatever the holder does.
            TenureLock lock = session.lock(
                    "tl-lost",
                    AcquireOptions.builder().maxHold(Duration.ofMillis(1500)).build());
            lock.lock();
            long token = lock.fence(Duration.ofMillis(100));
            CompletableFuture<Optional<LossReason>> invalidated = lock.invalidated();
            assertThat(invalidated).isNotDone();
            // The client's own horizon for maxHold (counted from the acquire's send time) passes
            // no later than the node's revocation; whichever it learns first is the reason.
            assertThat(invalidated.get(WITHIN.toSeconds(), TimeUnit.SECONDS))
                    .hasValueSatisfying(r -> assertThat(r).isIn(LossReason.REVOKED, LossReason.HORIZON_PASSED));
            assertThat(lock.lease().lost().get(WITHIN.toSeconds(), TimeUnit.SECONDS))
                    .isIn(LossReason.REVOKED, LossReason.HORIZON_PASSED);
            assertThatThrownBy(() -> lock.fence(Duration.ofMillis(100)))
                    .isInstanceOf(TenureException.class)
                    .extracting(e -> ((TenureException) e).code())
                    .isEqualTo(TenureException.Code.LEASE_LOST);
            assertThatThrownBy(lock::lock)
                    .as("a nested lock under a lost lease")
                    .isInstanceOf(TenureException.class)
                    .extracting(e -> ((TenureException) e).code())
                    .isEqualTo(TenureException.Code.LEASE_LOST);
            assertThat(lock.getHoldCount()).isEqualTo(1);
            lock.unlock(); // the loss was told already: ending the hold throws nothing
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            lock.lock();
            assertThat(lock.token()).as("a new hold, a new grant").isGreaterThan(token);
            lock.unlock();
        }
    }

    @Test
    void optionsAreTheGrantsPolicyAndOneNameHasOneSetOfThem() throws Exception {
        try (Session session = client.openSession()) {
            AcquireOptions bounded =
                    AcquireOptions.builder().maxHold(Duration.ofMinutes(5)).build();
            TenureLock lock = session.lock("tl-options", bounded);
            lock.lock();
            assertThat(client.status("tl-options").holder())
                    .hasValueSatisfying(h -> assertThat(h.maxHold()).isEqualTo(Duration.ofMinutes(5)));
            lock.unlock();
            assertThatThrownBy(() -> session.lock("tl-options")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** Two sessions, four threads each, one shared counter read and written without any other lock. */
    @Test
    void noUpdateIsLostUnderTheLock() throws Exception {
        try (Session a = client.openSession();
                Session b = client.openSession()) {
            int[] counter = {0};
            int rounds = 25;
            List<Future<?>> workers = new ArrayList<>();
            for (Session session : List.of(a, b)) {
                TenureLock lock = session.lock("tl-counter");
                for (int t = 0; t < 4; t++) {
                    workers.add(threads.submit(() -> {
                        for (int i = 0; i < rounds; i++) {
                            lock.lock();
                            try {
                                int read = counter[0];
                                Thread.yield(); // widen the window a missing exclusion would show in
                                counter[0] = read + 1;
                            } finally {
                                lock.unlock();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> w : workers) {
                w.get(WITHIN.toSeconds() * 2, TimeUnit.SECONDS);
            }
            TenureLock check = a.lock("tl-counter");
            check.lock();
            try {
                assertThat(counter[0]).isEqualTo(2 * 4 * rounds);
            } finally {
                check.unlock();
            }
        }
    }
}
