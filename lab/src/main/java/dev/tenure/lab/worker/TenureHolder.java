package dev.tenure.lab.worker;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.client.UnavailableException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Tenure used as documented: a session with the lock's TTL, {@code acquire}, {@code
 * lease.fence(minRemaining)} right before each write (its token goes to storage), {@code release}
 * (compare-and-delete), and on loss the default policy: stop. Every acquire attempt is an
 * operation of its own, so one made during a quorum loss shows in the history.
 */
final class TenureHolder implements Holder {
    private static final long RETRY_MS = 200;
    /**
     * The Tenure client's request budget is never below this: it retries within the budget across
     * nodes with the same request id, and a short one only makes session opens fail on a loaded
     * machine. (The naive client's short timeout is part of what is under test; this is not.)
     */
    private static final long REQUEST_TIMEOUT_MS_MIN = 10_000;

    private final WorkerOptions o;
    private final Emitter ev;
    private final TenureClient client;
    private @Nullable Session session; // opened by the first acquire, again when lost
    // Set by acquire(), which the worker calls before fence() and release().
    @SuppressWarnings("NullAway.Init")
    private Lease lease;

    TenureHolder(WorkerOptions o, Emitter ev) {
        this.o = o;
        this.ev = ev;
        TenureClient.Builder b = TenureClient.builder()
                .endpoints(o.lockEndpoints)
                .sessionTtl(Duration.ofMillis(o.ttlMs))
                .requestTimeout(Duration.ofMillis(Math.max(REQUEST_TIMEOUT_MS_MIN, o.requestTimeoutMs)))
                .clientName("lab worker " + o.name);
        if (o.disconnectGraceMs >= 0) { // negative: the client's default, as an application gets it
            b.disconnectGrace(Duration.ofMillis(o.disconnectGraceMs));
        }
        this.client = b.build();
    }

    @Override
    public long acquire() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.acquireWaitMs);
        while (true) {
            long id = ev.nextId();
            ev.emit(id, "invoke", "acquire", "lock", o.lock);
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            try {
                if (session == null || session.state() == Session.State.LOST) {
                    session = client.openSession();
                }
                lease = session.acquire(o.lock, Duration.ofMillis(Math.max(0, leftMs)));
                ev.emit(
                        id,
                        "ok",
                        "acquire",
                        "lock",
                        o.lock,
                        "token",
                        lease.token(),
                        "detail",
                        "previous " + lease.previousEnd().map(Enum::name).orElse("NONE") + " " + lease.previousToken());
                // The loss is only reported: nothing waits on the returned stage.
                CompletableFuture<?> unused = lease.lost()
                        .thenAccept(reason -> ev.info("lost", "lease " + lease.token() + " lost: " + reason));
                return lease.token();
            } catch (TenureException e) {
                ev.emit(
                        id,
                        "fail",
                        "acquire",
                        "lock",
                        o.lock,
                        "detail",
                        e.getClass().getSimpleName() + ": " + e.getMessage());
                if (System.nanoTime() - deadline >= 0) {
                    return 0;
                }
                TimeUnit.MILLISECONDS.sleep(RETRY_MS);
            }
        }
    }

    /**
     * With {@code --fence-wait-ms}, a fence refused for too little time left is not a loss: the
     * lease still stands (a slow round trip, a resume to another node), so the holder writes
     * nothing and checks again, as an application that outlasts faults does, until the lease is
     * lost or the wait runs out.
     */
    @Override
    public long check() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.fenceWaitMs);
        while (true) {
            try {
                return lease.fence(Duration.ofMillis(o.fenceMinMs));
            } catch (TenureException e) {
                if (e.code() != TenureException.Code.LEASE_LOST && e.code() != TenureException.Code.LEASE_EXPIRING) {
                    throw e;
                }
                if (e.code() == TenureException.Code.LEASE_EXPIRING
                        && !lease.lost().isDone()
                        && System.nanoTime() - deadline < 0) {
                    ev.info("renew", "fence deferred: " + e.getMessage());
                    TimeUnit.MILLISECONDS.sleep(RETRY_MS);
                    continue;
                }
                ev.info("lost", "fence refused: " + e.getMessage());
                return 0;
            }
        }
    }

    @Override
    public void release() throws InterruptedException {
        if (lease.lost().isDone()) {
            ev.info(
                    "release",
                    "not sent: the lease is already lost (" + lease.lost().join() + ")");
            return;
        }
        long id = ev.nextId();
        ev.emit(id, "invoke", "release", "lock", o.lock, "token", lease.token());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.releaseRetryMs);
        int attempts = 0;
        while (true) {
            attempts++;
            try {
                lease.release();
                ev.emit(
                        id,
                        "ok",
                        "release",
                        "lock",
                        o.lock,
                        "token",
                        lease.token(),
                        "detail",
                        "after " + attempts + " attempt(s)");
                return;
            } catch (StaleTokenException e) { // NOT_OWNER: the lease is not ours to release
                ev.emit(
                        id,
                        "fail",
                        "release",
                        "lock",
                        o.lock,
                        "token",
                        lease.token(),
                        "detail",
                        "not owner (current " + e.currentToken() + ") after " + attempts + " attempt(s)");
                return;
            } catch (UnavailableException e) {
                if (System.nanoTime() - deadline >= 0) {
                    ev.emit(
                            id,
                            "fail",
                            "release",
                            "lock",
                            o.lock,
                            "token",
                            lease.token(),
                            "detail",
                            "unavailable after " + attempts + " attempt(s)");
                    return;
                }
                TimeUnit.MILLISECONDS.sleep(RETRY_MS); // retried as an application would
            } catch (TenureException e) {
                ev.emit(
                        id,
                        "fail",
                        "release",
                        "lock",
                        o.lock,
                        "token",
                        lease.token(),
                        "detail",
                        String.valueOf(e.getMessage()));
                return;
            }
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
